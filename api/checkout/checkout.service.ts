/** The payer's side of a payment: the public view and its ETag, rendered once per payment version. */
import { createHash } from 'node:crypto';
import type { MerchantService } from '../merchants/merchant.service.ts';
import type { AssetRegistry } from '../networks/asset-registry.ts';
import { isTerminal } from '../payments/payment-status.ts';
import { createPaymentStamps } from '../payments/payment-stamps.ts';
import { createPaymentViewCache } from '../payments/payment-view-cache.ts';
import type { Merchant } from '../merchants/merchant.store.ts';
import type { Payment, PaymentTransaction } from '../payments/payment.store.ts';
import { paymentFigures, rateOutput } from '../payments/payment.view.ts';
import { type Clock, isoTime } from '../shared/clock.ts';
import { NotFound } from '../shared/errors.ts';
import { storedId } from '../shared/ids.ts';
import { type Locale, lookupLocale } from '../../widget/i18n/locales.ts';
import { formatCounted } from '../shared/money.ts';
import type { UnitOfWork } from '../unit-of-work.ts';
import type { CheckoutOutput } from './checkout.schema.ts';
import { LATE_FOLLOW_MS } from '../../widget/checkout-view.ts';
import type { PaymentEvents } from './payment-events.ts';

/** How many rendered payer views a process keeps (about 1.2 KB each). */
export const CHECKOUT_VIEW_CACHE_SIZE = 2_000;

/** A view with the validator that changes exactly when the view (bar serverTime) changes. */
export interface CheckoutSnapshot {
  view: CheckoutOutput;
  /** `view` as JSON (its bytes exactly: the body's serialised once per version, serverTime appended). */
  text: string;
  etag: string;
  /** Nothing more is expected: COMPLETE, or EXPIRED past its late window (the stream ends). */
  terminal: boolean;
  /**
   * When what a stream follows changes by time alone, if it can: an OPEN payment's expiry, the end
   * of an EXPIRED one's late window (LATE_FOLLOW_MS past its expiry, while the payer may still
   * watch funds sent in the last moment arrive).
   */
  expiresAt: number | null;
}

/** Everything of a snapshot but the server's clock, rendered once per payment version. */
interface RenderedView {
  body: Omit<CheckoutOutput, 'serverTime'>;
  /** `body` as JSON. */
  bodyText: string;
  etag: string;
  terminal: boolean;
  expiresAt: number | null;
}

/** Creates the checkout use cases. */
export function createCheckoutService(deps: {
  uow: UnitOfWork;
  merchants: Pick<MerchantService, 'findById' | 'changes'>;
  registry: AssetRegistry;
  clock: Clock;
  events: PaymentEvents;
  /** Whether a network is simulated (no real funds move on it). */
  isSimulated: (network: string) => boolean;
}) {
  const { uow, merchants, registry, clock, events, isSimulated } = deps;

  // Payer pages poll and every open event stream re-reads its payment; an unchanged payment is
  // answered, and a matching If-None-Match settled, without rendering it again.
  const views = createPaymentViewCache<RenderedView>(CHECKOUT_VIEW_CACHE_SIZE);
  const stamps = createPaymentStamps(uow.stores.payments, uow);
  // The payer's view shows the merchant's name, site and logo: a profile edit drops every view.
  let merchantsSeen = merchants.changes();

  function render(payment: Payment, transactions: PaymentTransaction[], merchant: Merchant, now: number, refund: CheckoutOutput['refund']): RenderedView {
    const figures = paymentFigures(registry, payment, transactions, now);
    const body: Omit<CheckoutOutput, 'serverTime'> = {
      id: payment.id,
      status: figures.status,
      amount: figures.amount,
      amountDue: figures.amountDue,
      totalReceivedAmount: figures.totalReceivedAmount,
      asset: registry.toJson(figures.asset),
      addressTo: payment.addressTo,
      destTag: payment.destTag,
      paymentUri: figures.paymentUri,
      confirmsNeeded: payment.confirmsNeeded,
      timeout: payment.timeout,
      expiresAt: isoTime(payment.expiresAt),
      createdAt: isoTime(payment.createdAt),
      invoice: payment.invoice,
      checkoutUrl: payment.checkoutUrl,
      merchant: { name: merchant.name, siteUrl: merchant.siteUrl, logoUrl: merchant.logoUrl },
      transactions: transactions.map((t) => ({
        txnId: t.txnId,
        receivedAmount: formatCounted(t.amount, figures.asset.decimals),
        confirmations: t.confirmations,
        date: isoTime(t.seenAt),
        late: t.late,
      })),
      exception: figures.exception,
      overpaidAmount: figures.overpaidAmount,
      refund,
      testNetwork: isSimulated(figures.asset.network),
      price: payment.price,
      rate: rateOutput(payment.rate),
    };
    const bodyText = JSON.stringify(body);
    const rendered: RenderedView = {
      body: Object.freeze(body),
      bodyText,
      etag: `"${createHash('sha256').update(bodyText).digest('base64url').slice(0, 32)}"`,
      terminal: isTerminal(figures.status),
      expiresAt: figures.status === 'OPEN' ? payment.expiresAt : figures.status === 'EXPIRED' ? payment.expiresAt + LATE_FOLLOW_MS : null,
    };
    views.set(payment.id, payment, now, rendered);
    return rendered;
  }

  // The row and its transactions from one snapshot of the database, even while another process
  // writes; the merchant after it (the merchant service reads on its own, never inside a transaction).
  async function renderCurrent(id: string, now: number): Promise<RenderedView | undefined> {
    const read = await uow.snapshot(async (stores) => {
      const payment = await stores.payments.findById(id);
      if (!payment) return undefined;
      const transactions = await stores.payments.transactionsOf(payment.id);
      // A refund changes the payment's version (a trigger), so a view kept by version shows it.
      const refund = await stores.refunds.payerRefundOf(payment.id, registry.byId(payment.assetId).decimals);
      return { payment, transactions, refund: refund ?? null };
    });
    if (!read) return undefined;
    const merchant = await merchants.findById(read.payment.merchantId);
    if (!merchant) throw new Error(`payment ${id} names merchant ${read.payment.merchantId}, which does not exist`);
    return render(read.payment, read.transactions, merchant, now, read.refund);
  }

  function snapshotAt(rendered: RenderedView, now: number): CheckoutSnapshot {
    const serverTime = isoTime(now);
    return {
      get view() {
        return { ...rendered.body, serverTime };
      },
      // serverTime is the view's last key: the same bytes as JSON.stringify(view).
      get text() {
        return `${rendered.bodyText.slice(0, -1)},"serverTime":"${serverTime}"}`;
      },
      etag: rendered.etag,
      terminal: rendered.terminal && (rendered.expiresAt === null || now >= rendered.expiresAt),
      expiresAt: rendered.expiresAt,
    };
  }

  return {
    /** The payer-safe view of a payment; 404 payment-not-found for an unknown id. */
    async snapshot(id: string): Promise<CheckoutSnapshot> {
      if (merchants.changes() !== merchantsSeen) {
        merchantsSeen = merchants.changes();
        views.clear();
      }
      const key = storedId(id);
      const stamp = key === undefined ? undefined : await stamps.of(key);
      const now = clock();
      const rendered = stamp && (views.get(stamp.id, stamp, now) ?? (await renderCurrent(stamp.id, now)));
      if (!rendered) throw new NotFound('payment-not-found', `No payment with id "${id}" exists.`);
      return snapshotAt(rendered, now);
    },

    /** Keeps the language the payer chose on a payment's page, for its receipt and mail; nothing for an unknown id. */
    async rememberLocale(id: string, locale: Locale): Promise<void> {
      const key = storedId(id);
      if (key !== undefined) await uow.stores.payments.setPayerLocale(key, locale);
    },

    /** The language the payer last chose on a payment's page, if any. */
    async payerLocaleOf(id: string): Promise<Locale | undefined> {
      const key = storedId(id);
      const stored = key === undefined ? null : await uow.stores.payments.payerLocaleOf(key);
      return (stored && lookupLocale(stored)) || undefined;
    },

    /** Subscribes to a payment's changes. */
    subscribe: events.subscribe,
  };
}

/** The checkout use cases' interface. */
export type CheckoutService = ReturnType<typeof createCheckoutService>;
