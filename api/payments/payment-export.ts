/**
 * @module The payments report: one CSV row per payment transaction (a payment without one gets one
 * row with empty transaction cells) for payments created in [from, to), oldest first. Read a batch
 * at a time by keyset (created_at, id), so any range costs the memory of one batch.
 */
import type { Merchant } from '../merchants/merchant.store.ts';
import type { AssetRegistry } from '../networks/asset-registry.ts';
import { type Clock, isoTime } from '../shared/clock.ts';
import { csvRow } from '../shared/csv.ts';
import { invalidFields } from '../shared/errors.ts';
import { formatAmount } from '../shared/money.ts';
import type { UnitOfWork } from '../unit-of-work.ts';
import { paymentFigures } from './payment.view.ts';

/** The report's columns, in order (CONTRACT.md section 18). */
export const EXPORT_COLUMNS = [
  'paymentId',
  'invoice',
  'status',
  'exception',
  'asset',
  'network',
  'amount',
  'priceAmount',
  'priceCurrency',
  'rate',
  'txnId',
  'receivedAmount',
  'confirmations',
  'date',
  'late',
  'createdAt',
] as const;

/** Payments read per statement. */
export const EXPORT_BATCH = 500;

/** A report's range: payments created at or after `from` and before `to` (epoch ms). */
export interface ExportRange {
  from: number;
  to: number;
}

/** Creates the export use case. */
export function createPaymentExport(deps: { uow: UnitOfWork; registry: AssetRegistry; clock: Clock }) {
  const { uow, registry, clock } = deps;
  return {
    /** Checks a range; 400 validation-failed naming `to` when it does not end after `from`. */
    checkRange(range: ExportRange): ExportRange {
      if (range.to <= range.from) throw invalidFields([{ path: 'to', message: 'must be later than from' }]);
      return range;
    },

    /** The report's text, a header and then a batch of rows at a time. */
    async *csv(merchant: Merchant, range: ExportRange): AsyncGenerator<string> {
      yield csvRow(EXPORT_COLUMNS);
      const now = clock();
      let after: { createdAt: number; id: string } | undefined;
      for (;;) {
        // Each batch in one snapshot: its payments with their transactions as they stood together.
        const { payments, transactions } = await uow.snapshot(async (stores) => {
          const found = await stores.payments.createdBetween(merchant.id, range.from, range.to, after, EXPORT_BATCH);
          return { payments: found, transactions: await stores.payments.transactionsOfMany(found.map((p) => p.id)) };
        });
        let text = '';
        for (const payment of payments) {
          const asset = registry.byId(payment.assetId);
          const received = transactions.get(payment.id) ?? [];
          const { status, exception } = paymentFigures(registry, payment, received, now);
          const head = [payment.id, payment.invoice, status, exception, asset.short, asset.network, formatAmount(payment.amount, asset.decimals), payment.price?.amount, payment.price?.currency, payment.rate?.value];
          const createdAt = isoTime(payment.createdAt);
          if (received.length === 0) text += csvRow([...head, null, null, null, null, null, createdAt]);
          for (const t of received) text += csvRow([...head, t.txnId, formatAmount(t.amount, asset.decimals), t.confirmations, isoTime(t.seenAt), t.late, createdAt]);
        }
        if (text) yield text;
        if (payments.length < EXPORT_BATCH) return;
        const last = payments[payments.length - 1]!;
        after = { createdAt: last.createdAt, id: last.id };
      }
    },
  };
}

/** The export use case. */
export type PaymentExport = ReturnType<typeof createPaymentExport>;
