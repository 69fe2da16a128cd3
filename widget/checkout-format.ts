/**
 * @module What the payer reads, as plain strings: amounts, status lines, safe links and the QR
 * payload. Pure and DOM-free, so the widget and the payer page's server-side HTML say the same.
 */
import type { CheckoutAsset, CheckoutPrice, CheckoutTransaction, CheckoutView } from './checkout-view.ts';
import { directionOf, type Locale } from './i18n/locales.ts';
import { formatDecimal, formatDurationWords, type Messages } from './i18n/messages.ts';

/** Drops trailing fractional zeros of a decimal string ("0.01000000" → "0.01"); no float involved. */
export function trimAmount(amount: string): string {
  if (!amount.includes('.')) return amount;
  return amount.replace(/0+$/, '').replace(/\.$/, '');
}

/**
 * An amount with its ticker, as wallets show it: "0.006 BTC", with the locale's digit grouping and
 * decimal mark (for reading only: what is copied and what the QR encodes stays the exact string).
 */
export function amountText(amount: string, asset: Pick<CheckoutAsset, 'short'>, locale: Locale = 'en'): string {
  const text = `${formatDecimal(locale, trimAmount(amount))} ${asset.short}`;
  // Inside right-to-left text the amount keeps its own order ("12.5 BTC", not "BTC 12.5"): a
  // left-to-right isolate around it, invisible when copied or read aloud.
  return directionOf(locale) === 'rtl' ? `\u2066${text}\u2069` : text;
}

/**
 * A fiat price in the payer's locale and the currency's style ("19,99 €" in German, "$19.99" in
 * English, "￥3,000" in Japanese). The decimal string goes to Intl as a string, which formats it
 * exactly (never through a float), with the currency's usual digits or more if the price has them.
 */
export function priceText(price: CheckoutPrice, locale: Locale = 'en'): string {
  if (!/^[0-9]+(\.[0-9]+)?$/.test(price.amount) || !/^[A-Z]{3}$/.test(price.currency)) return `${price.amount} ${price.currency}`;
  const usual = new Intl.NumberFormat(locale, { style: 'currency', currency: price.currency }).resolvedOptions();
  const fraction = price.amount.split('.')[1]?.length ?? 0;
  const format = new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: price.currency,
    numberingSystem: 'latn',
    minimumFractionDigits: usual.minimumFractionDigits,
    maximumFractionDigits: Math.max(usual.maximumFractionDigits ?? 0, fraction),
  });
  const text = format.format(price.amount as unknown as number);
  return directionOf(locale) === 'rtl' ? `\u2066${text}\u2069` : text;
}

/**
 * Adds decimal strings exactly (through integers of the smallest unit, never a float) and renders
 * the sum with `decimals` fractional digits.
 */
export function sumAmounts(amounts: readonly string[], decimals: number): string {
  let total = 0n;
  for (const amount of amounts) {
    const [whole = '0', fraction = ''] = amount.split('.');
    total += BigInt(whole + fraction.padEnd(decimals, '0').slice(0, decimals));
  }
  const digits = total.toString().padStart(decimals + 1, '0');
  return decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

/** Whether a decimal string is above zero. */
export function isPositive(amount: string): boolean {
  return /[1-9]/.test(amount);
}

/** The network's name for people ("tron" → "Tron"). */
export function networkName(network: string): string {
  return network.charAt(0).toUpperCase() + network.slice(1);
}

/** Whether some but not all of the amount has arrived in time. */
export function isPartlyPaid(view: Pick<CheckoutView, 'status' | 'amount' | 'amountDue'>): boolean {
  return view.status === 'OPEN' && view.amountDue !== view.amount && isPositive(view.amountDue);
}

/**
 * What goes beside the amount to pay of a fiat-priced payment: the price alone while the full amount
 * is asked for; once part has arrived, the price labelled as the order total with the full amount it
 * prices, so it never reads as the worth of the remainder. Undefined for a payment priced in the asset.
 */
export function priceNote(view: Pick<CheckoutView, 'status' | 'amount' | 'amountDue' | 'asset' | 'price'>, m: Messages): { kind: 'price' | 'order-total'; text: string } | undefined {
  if (!view.price) return undefined;
  const price = priceText(view.price, m.locale);
  if (!isPartlyPaid(view)) return { kind: 'price', text: price };
  return { kind: 'order-total', text: m.orderTotal(amountText(view.amount, view.asset, m.locale), price) };
}

/** A short title for the payment's state. */
export function statusTitle(view: CheckoutView, m: Messages): string {
  switch (view.status) {
    case 'OPEN':
      return isPartlyPaid(view) ? m.partlyPaid : m.waiting;
    case 'CONFIRMING':
      return m.paymentReceived;
    case 'COMPLETE':
      return m.paymentComplete;
    case 'EXPIRED':
      return m.paymentExpired;
  }
}

/** The sum of what arrived after the payment expired (`late`), or in time. */
function receivedSum(view: Pick<CheckoutView, 'transactions' | 'asset'>, late: boolean): string {
  return sumAmounts(view.transactions.filter((t) => t.late === late).map((t) => t.receivedAmount), view.asset.decimals);
}

/** What arrived in time and what after expiry ("0.6 ETH arrived in time and 0.3 ETH arrived after it expired"). */
export function arrivedText(view: Pick<CheckoutView, 'transactions' | 'asset'>, m: Messages): string {
  const onTime = receivedSum(view, false);
  const late = receivedSum(view, true);
  const arrived = [isPositive(onTime) ? m.arrivedInTime(amountText(onTime, view.asset, m.locale)) : '', isPositive(late) ? m.arrivedLate(amountText(late, view.asset, m.locale)) : ''].filter(Boolean);
  return listText(m.locale, arrived);
}

/** One or two sentences that tell the payer what happened and what to do. */
export function statusDetail(view: CheckoutView, m: Messages): string {
  const merchant = view.merchant.name;
  const amount = (value: string) => amountText(value, view.asset, m.locale);
  const network = networkName(view.asset.network);
  switch (view.status) {
    case 'OPEN':
      return isPartlyPaid(view) ? m.sendRemaining(amount(view.totalReceivedAmount), amount(view.amountDue)) : m.sendExactly(amount(view.amountDue), network);
    case 'CONFIRMING':
      return withOverpaid(m.confirming(network, m.confirmations(view.confirmsNeeded), merchant), view, m);
    case 'COMPLETE':
      return withOverpaid(m.completed(merchant, amount(view.totalReceivedAmount)), view, m);
    case 'EXPIRED': {
      if (!isPositive(view.totalReceivedAmount)) return m.expiredEmpty(merchant);
      const expired = m.expiredPartial(amount(view.amount), arrivedText(view, m), merchant);
      const refund = refundText(view, m);
      return refund ? `${expired} ${refund}` : expired;
    }
  }
}

// A refund the shop decided on: on its way, or sent. Undefined when there is none.
function refundText(view: CheckoutView, m: Messages): string | undefined {
  const refund = view.refund;
  if (!refund || !isPositive(refund.amount)) return undefined;
  const amount = amountText(refund.amount, view.asset, m.locale);
  return refund.sent ? m.refundSent(view.merchant.name, amount) : m.refundUnderway(view.merchant.name, amount);
}

// A payer who sent more than asked is told how much more, and that the shop can give it back; once
// the shop has decided on a refund, that it is on its way or sent instead. What arrived after the
// payment expired, once it was paid (PAID_LATE on a paid payment), is more than asked too.
function withOverpaid(detail: string, view: CheckoutView, m: Messages): string {
  const refund = refundText(view, m);
  if (refund) return `${detail} ${refund}`;
  const extra = view.exception === 'OVERPAID' ? view.overpaidAmount : view.exception === 'PAID_LATE' ? receivedSum(view, true) : undefined;
  if (!extra || !isPositive(extra)) return detail;
  return `${detail} ${m.overpaid(view.merchant.name, amountText(extra, view.asset, m.locale))}`;
}

/** Items joined as the language joins a list ("a and b", "a et b", "a و b"). */
export function listText(locale: Locale, items: readonly string[]): string {
  return new Intl.ListFormat(locale, { style: 'long', type: 'conjunction' }).format(items);
}

/**
 * What to tell a payer whose transactions the network dropped before they confirmed (replaced,
 * double-spent or never mined): they no longer count, which is why more is asked for again.
 */
export function droppedText(dropped: readonly CheckoutTransaction[], view: Pick<CheckoutView, 'asset'>, m: Messages): string | undefined {
  if (dropped.length === 0) return undefined;
  const network = networkName(view.asset.network);
  const amounts = dropped.map((t) => amountText(t.receivedAmount, view.asset, m.locale));
  return dropped.length === 1 ? m.droppedOne(amounts[0]!, network) : m.droppedMany(listText(m.locale, amounts), network);
}

/** A transaction's progress: "1 of 2 confirmations" or "Confirmed". */
export function transactionProgress(transaction: CheckoutTransaction, confirmsNeeded: number, m: Messages): string {
  if (transaction.confirmations >= confirmsNeeded) return m.confirmed;
  return m.progress(transaction.confirmations, confirmsNeeded);
}

/** A long transaction id shortened for display: first and last eight characters. */
export function shortTxnId(txnId: string): string {
  return txnId.length > 20 ? `${txnId.slice(0, 8)}…${txnId.slice(-8)}` : txnId;
}

/** Time left as "m:ss", or "h:mm:ss" from an hour up. */
export function durationText(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** Time left in words for screen readers: "59 minutes, 32 seconds", in the locale. */
export function durationWords(totalSeconds: number, locale: Locale = 'en'): string {
  return formatDurationWords(locale, totalSeconds);
}

// Wallet URI schemes a link may open; anything else (javascript:, data:, a bare address) gets no link.
const WALLET_SCHEMES = new Set(['bitcoin', 'litecoin', 'ethereum', 'ripple', 'tron', 'xrpl', 'monero', 'dogecoin', 'bitcoincash', 'solana']);

/** The payment URI if it is a wallet link worth offering, else undefined. */
export function walletHref(paymentUri: string): string | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(paymentUri)?.[1]?.toLowerCase();
  return scheme && WALLET_SCHEMES.has(scheme) ? paymentUri : undefined;
}

/** The URL if it is an absolute http or https URL (merchant-supplied links), else undefined. */
export function httpUrl(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

// BIP21 schemes whose bech32 addresses are case-insensitive, so the QR may upper-case them.
const UPPER_CASE_QR = /^(bitcoin|litecoin):((?:bc|tb|bcrt|ltc|tltc|rltc)1[02-9ac-hj-np-z]+)(\?.*)?$/i;

/**
 * The text the QR encodes: the payment URI, with scheme and bech32 address upper-cased for
 * bitcoin and litecoin so the encoder can use its denser alphanumeric mode (easier to scan).
 * Base58 and hex addresses are case-sensitive and stay as they are; so does the query.
 */
export function qrPayload(paymentUri: string): string {
  const match = UPPER_CASE_QR.exec(paymentUri);
  if (!match) return paymentUri;
  return `${match[1]!.toUpperCase()}:${match[2]!.toUpperCase()}${match[3] ?? ''}`;
}
