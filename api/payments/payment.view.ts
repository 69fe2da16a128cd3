/** Turns stored payments into the API's payment record. */
import type { Merchant } from '../merchants/merchant.store.ts';
import type { AssetRegistry } from '../networks/asset-registry.ts';
import { paymentUri } from '../networks/payment-uri.ts';
import { isoTime } from '../shared/clock.ts';
import { Amount, formatAmount, formatCounted, parseAmount, sumAmounts, ZERO } from '../shared/money.ts';
import type { PaymentOutput } from './payment.schema.ts';
import { reckon } from './payment-exception.ts';
import { amountDue, effectiveStatus } from './payment-status.ts';
import type { LockedRate, Payment, PaymentTransaction } from './payment.store.ts';

/** The parts of a payment every view derives: money figures, status and the wallet URI. */
export function paymentFigures(registry: AssetRegistry, payment: Payment, transactions: readonly PaymentTransaction[], now: number) {
  const asset = registry.byId(payment.assetId);
  const due = amountDue(payment, transactions);
  const status = effectiveStatus(payment, now);
  const reckoning = reckon(status, payment, transactions);
  return {
    asset,
    status,
    reckoning,
    exception: reckoning.exception,
    overpaidAmount: reckoning.overpaid && formatCounted(reckoning.overpaid, asset.decimals),
    amount: formatAmount(payment.amount, asset.decimals),
    // Received amounts may be counted more finely than shown (XMR): what arrived is floored, what is owed raised.
    amountDue: formatCounted(due, asset.decimals, 'up'),
    totalReceivedAmount: formatCounted(sumAmounts(transactions.map((t) => t.amount)), asset.decimals),
    // After a partial payment the QR asks for what is left; once covered, for the full amount.
    paymentUri: paymentUri({
      asset,
      network: registry.network(asset.network),
      address: payment.addressTo,
      destTag: payment.destTag,
      amount: due.isZero() ? parseAmount(payment.amount) : due,
    }),
  };
}

/** Builds the payment record of section 2.4, with the contract's extensions. */
export function toPaymentOutput(
  deps: { registry: AssetRegistry; publicUrl: string },
  payment: Payment,
  transactions: readonly PaymentTransaction[],
  merchant: Merchant,
  now: number,
  /** The amounts of the payment's refunds that are not CANCELLED. */
  pendingRefunds: readonly string[],
): PaymentOutput {
  const figures = paymentFigures(deps.registry, payment, transactions, now);
  const asset = deps.registry.toJson(figures.asset);
  return {
    id: payment.id,
    transactions: transactions.map((t) => ({
      paymentId: payment.id,
      txnId: t.txnId,
      receivedAmount: formatCounted(t.amount, figures.asset.decimals),
      asset,
      destTag: t.destTag,
      addressFrom: t.addressFrom,
      addressTo: t.addressTo,
      date: isoTime(t.seenAt),
      confirmations: t.confirmations,
      late: t.late,
    })),
    amount: figures.amount,
    totalReceivedAmount: figures.totalReceivedAmount,
    asset,
    addressTo: payment.addressTo,
    confirmsNeeded: payment.confirmsNeeded,
    timeout: payment.timeout,
    checkoutUrl: payment.checkoutUrl,
    status: figures.status,
    customer: payment.customer,
    merchant,
    invoice: payment.invoice,
    paymentRedirectUrl: `${deps.publicUrl}/pay?id=${payment.id}`,
    createdAt: isoTime(payment.createdAt),
    updatedAt: isoTime(payment.updatedAt),
    expiresAt: isoTime(payment.expiresAt),
    amountDue: figures.amountDue,
    destTag: payment.destTag,
    paymentUri: figures.paymentUri,
    price: payment.price,
    rate: rateOutput(payment.rate),
    exception: figures.exception,
    overpaidAmount: figures.overpaidAmount,
    refundableAmount: formatCounted(Amount.max(ZERO, sumAmounts(transactions.filter((t) => t.confirmations >= payment.confirmsNeeded).map((t) => t.amount)).minus(sumAmounts(pendingRefunds))), figures.asset.decimals),
  };
}

/** A locked rate as records show it (its time in ISO 8601), or null on a payment priced in the asset. */
export function rateOutput(rate: LockedRate | null): PaymentOutput['rate'] {
  return rate && { value: rate.value, currency: rate.currency, sources: [...rate.sources], at: isoTime(rate.at) };
}
