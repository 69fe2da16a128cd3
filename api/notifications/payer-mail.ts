/**
 * @module The mail that events send (contract section 17), queued in the same transaction as the
 * change: the payer's receipt link when a payment completes (with its invoice, amount and date), the
 * payer's claim link when a refund awaits their address (to `customer.email`, in the language last
 * chosen on the payer page, else English), and the merchant's notice of a payer's refund request (to the merchant's e-mail). Each
 * message has a plain-text part and an HTML one; its id names the event, so it is queued once.
 */
import { amountText, priceText } from '../../widget/checkout-format.ts';
import { type Locale, lookupLocale } from '../../widget/i18n/locales.ts';
import { html } from '../http/html.ts';
import type { AssetRegistry } from '../networks/asset-registry.ts';
import { PAYER_MESSAGES } from '../payer-pages/payer-messages-all.ts';
import { dateText } from '../payer-pages/receipt-page.ts';
import type { Payment } from '../payments/payment.store.ts';
import type { Clock } from '../shared/clock.ts';
import type { Refund } from '../refunds/refund.store.ts';
import { claimUrlOf, type RefundViewDeps } from '../refunds/refund.view.ts';
import type { Stores } from '../unit-of-work.ts';

/**
 * A message's text as paragraphs (their lines kept apart), also rendered as HTML with the service's
 * own links (under `publicUrl`) clickable; any other address, such as an invoice that is one, stays text.
 */
function bodies(text: string, locale: Locale, publicUrl: string): { textBody: string; htmlBody: string } {
  const paragraphs = text.trim().split(/\n\n+/);
  const linkedLine = (line: string) => {
    const match = /(https?:\/\/\S+)$/.exec(line);
    if (!match || !match[1]!.startsWith(`${publicUrl}/`)) return html`${line}`;
    const before = line.slice(0, match.index);
    return html`${before}<a href="${match[1]!}">${match[1]!}</a>`;
  };
  const linked = (paragraph: string) => paragraph.split('\n').map((line, i) => (i === 0 ? linkedLine(line) : html`<br>${linkedLine(line)}`));
  // Its language named, so a mail reader speaks and hyphenates it as such (and sets Arabic right to left).
  const dir = locale === 'ar' ? 'rtl' : 'ltr';
  return { textBody: text, htmlBody: html`<!doctype html><html lang="${locale}" dir="${dir}"><body>${paragraphs.map((p) => html`<p>${linked(p)}</p>`)}</body></html>`.markup };
}

/**
 * A "label: value" line as the locale punctuates it, like its own sentences ("Votre reçu : …",
 * "領収書：…"): a space before the colon in French, a full-width colon in Chinese and Japanese.
 */
function factLine(locale: Locale, label: string, value: string): string {
  if (locale === 'fr') return `${label} : ${value}`;
  if (locale === 'zh-CN' || locale === 'ja') return `${label}：${value}`;
  return `${label}: ${value}`;
}

/** Creates the event mail; `enabled` is false without SMTP_URL (then nothing is queued at all). */
export function createPayerMail(deps: { enabled: boolean; clock: Clock; registry: AssetRegistry; view: Pick<RefundViewDeps, 'publicUrl' | 'tokens'> }) {
  const { enabled, clock, registry, view } = deps;

  async function localeOf(stores: Stores, paymentId: string): Promise<Locale> {
    const stored = await stores.payments.payerLocaleOf(paymentId);
    return (stored && lookupLocale(stored)) || 'en';
  }

  async function shopOf(stores: Stores, merchantId: string) {
    return (await stores.merchants.findById(merchantId))!;
  }

  return {
    /** The payer's receipt link, when a payment moves to COMPLETE and its customer gave an e-mail. */
    async paymentCompleted(stores: Stores, payment: Payment): Promise<void> {
      const to = payment.customer?.email;
      if (!enabled || !to) return;
      const m = PAYER_MESSAGES[await localeOf(stores, payment.id)];
      const shop = (await shopOf(stores, payment.merchantId)).name;
      const url = `${view.publicUrl}/receipt?id=${payment.id}`;
      const now = clock();
      // What was paid, as the receipt page shows it, so the mail alone is a record of the payment.
      const facts = [
        ...(payment.invoice ? [factLine(m.locale, m.invoice, payment.invoice)] : []),
        factLine(m.locale, m.amount, `${amountText(payment.amount, registry.byId(payment.assetId), m.locale)}${payment.price ? ` (${priceText(payment.price, m.locale)})` : ''}`),
        factLine(m.locale, m.date, dateText(new Date(now).toISOString(), m)),
      ];
      const text = `${m.mailReceiptText(shop, url)}\n${facts.join('\n')}\n`;
      await stores.mail.queue({ id: `receipt:${payment.id}`, recipient: to, subject: m.mailReceiptSubject(shop), ...bodies(text, m.locale, view.publicUrl), kind: 'receipt', createdAt: now });
    },

    /** The payer's claim link, when a refund is created awaiting their address and the payment's customer gave an e-mail. */
    async refundCreated(stores: Stores, refund: Refund): Promise<void> {
      if (!enabled || refund.status !== 'AWAITING_ADDRESS') return;
      const payment = (await stores.payments.findById(refund.paymentId))!;
      const to = payment.customer?.email;
      if (!to) return;
      const m = PAYER_MESSAGES[await localeOf(stores, payment.id)];
      const shop = (await shopOf(stores, refund.merchantId)).name;
      const amount = amountText(refund.amount, registry.byId(refund.assetId), m.locale);
      await stores.mail.queue({
        id: `refund-claim:${refund.id}`,
        recipient: to,
        subject: m.mailClaimSubject(shop),
        ...bodies(m.mailClaimText(shop, amount, claimUrlOf(view, refund.id)), m.locale, view.publicUrl),
        kind: 'refund-claim',
        createdAt: clock(),
      });
    },

    /** The merchant's notice of a payer's refund request, to the merchant's e-mail (in English). */
    async refundRequested(stores: Stores, refund: Refund): Promise<void> {
      if (!enabled) return;
      const merchant = await shopOf(stores, refund.merchantId);
      if (!merchant.email) return;
      const amount = amountText(refund.amount, registry.byId(refund.assetId), 'en');
      const payment = await stores.payments.findById(refund.paymentId);
      const invoice = payment?.invoice ? ` (invoice ${payment.invoice})` : '';
      const text =
        `A payer asks for a refund of ${amount} for payment ${refund.paymentId}${invoice}, to ${refund.addressTo}${refund.destTag ? ` (tag ${refund.destTag})` : ''}.\n\n` +
        `Approve or cancel it in the dashboard, on the payment's page: ${view.publicUrl}/dashboard/payments/${refund.paymentId}\n\n` +
        `Or through the API: POST /v2/refund/${refund.id}/approve or /cancel.\n`;
      await stores.mail.queue({ id: `refund-request:${refund.id}`, recipient: merchant.email, subject: `Refund requested: ${amount}${invoice}`, ...bodies(text, 'en', view.publicUrl), kind: 'refund-request', createdAt: clock() });
    },
  };
}

/** The event mail. */
export type PayerMail = ReturnType<typeof createPayerMail>;
