/**
 * @module What the payer reads, per language: the `Messages` every locale provides (a locale
 * missing one does not type-check, and test/unit/locales.test.ts fails on an empty one), and the
 * formatting that follows the locale without ever turning an amount into a float.
 */
import type { Locale } from './locales.ts';

/** Every text of the payer page and the widget, in one language. Arguments arrive already formatted. */
export interface Messages {
  readonly locale: Locale;
  // Status titles.
  readonly waiting: string;
  readonly partlyPaid: string;
  readonly paymentReceived: string;
  readonly paymentComplete: string;
  readonly paymentExpired: string;
  // What happened and what to do.
  sendExactly(amount: string, network: string): string;
  sendRemaining(received: string, remaining: string): string;
  confirming(network: string, confirmations: string, merchant: string): string;
  completed(merchant: string, received: string): string;
  /** Said after `completed` (or `confirming`) when more than the amount arrived: how much more, and that the shop can refund it. */
  overpaid(merchant: string, extra: string): string;
  /** Said instead of `overpaid` (or after `expiredPartial`) once the shop has decided on a refund that is not paid yet. */
  refundUnderway(merchant: string, amount: string): string;
  /** The same once every such refund is paid. */
  refundSent(merchant: string, amount: string): string;
  expiredEmpty(merchant: string): string;
  expiredPartial(amount: string, arrived: string, merchant: string): string;
  arrivedInTime(amount: string): string;
  arrivedLate(amount: string): string;
  droppedOne(amount: string, network: string): string;
  droppedMany(amounts: string, network: string): string;
  /** "2 confirmations", with the language's plural form. */
  confirmations(count: number): string;
  /** "1 of 2 confirmations". */
  progress(count: number, needed: number): string;
  readonly confirmed: string;
  // Paying.
  readonly amountToPay: string;
  readonly stillToPay: string;
  /** A fiat-priced payment's full amount and its price, once part of it has arrived: "Order total: 0.5 ETH ($1,000.00)". */
  orderTotal(amount: string, price: string): string;
  assetOnNetwork(asset: string, network: string): string;
  addressOn(network: string): string;
  readonly destinationTag: string;
  readonly destinationTagRequired: string;
  readonly destinationTagNote: string;
  qrLabel(amount: string): string;
  readonly openInWallet: string;
  readonly copy: string;
  readonly copied: string;
  readonly copyAmount: string;
  readonly copyAddress: string;
  readonly copyDestinationTag: string;
  readonly amountCopied: string;
  readonly addressCopied: string;
  readonly destinationTagCopied: string;
  readonly copyFailed: string;
  // Time.
  readonly timeLeft: string;
  readonly timeUp: string;
  timeLeftAnnouncement(duration: string): string;
  readonly payBefore: string;
  // Transactions.
  readonly receivedHeading: string;
  readonly transaction: string;
  readonly arrivedAfterExpiry: string;
  // Around the payment.
  invoice(invoice: string): string;
  returnTo(merchant: string): string;
  paymentTo(merchant: string): string;
  readonly reconnecting: string;
  /** Shown on a payment whose network is simulated, where a real wallet must not pay. */
  readonly testNetwork: string;
  readonly tryAgain: string;
  readonly loading: string;
  readonly notFoundTitle: string;
  readonly notFoundDetail: string;
  readonly networkTitle: string;
  readonly networkDetail: string;
  readonly invalidTitle: string;
  readonly invalidDetail: string;
  // The hosted page only.
  reloadsEvery(seconds: number): string;
  readonly language: string;
  readonly changeLanguage: string;
}

/** Picks the plural form of `count` in `locale` (CLDR rules through Intl.PluralRules). */
export function plural(locale: Locale, count: number, forms: Partial<Record<Intl.LDMLPluralRule, string>> & { other: string }): string {
  const form = forms[new Intl.PluralRules(locale).select(count)] ?? forms.other;
  return form.replace('#', formatCount(locale, count));
}

/** A whole number in the locale's digits and grouping. */
export function formatCount(locale: Locale, count: number): string {
  return new Intl.NumberFormat(locale, { numberingSystem: 'latn' }).format(count);
}

const AMOUNT = /^\d+(\.\d+)?$/;

/**
 * A decimal string in the locale's grouping and decimal mark ("1234.5" → "1.234,5" in German),
 * digit for digit: the string goes to Intl as a string (exact), never through a float. Anything
 * that is not a plain decimal comes back unchanged.
 */
export function formatDecimal(locale: Locale, amount: string): string {
  if (!AMOUNT.test(amount)) return amount;
  const fraction = amount.split('.')[1]?.length ?? 0;
  const format = new Intl.NumberFormat(locale, { numberingSystem: 'latn', minimumFractionDigits: fraction, maximumFractionDigits: Math.max(fraction, 0) });
  return format.format(amount as unknown as number);
}

/** Time left in words ("59 minutes, 32 seconds"), each unit in the locale's plural form. */
export function formatDurationWords(locale: Locale, totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const parts: Array<[number, 'hour' | 'minute' | 'second']> = [
    [Math.floor(seconds / 3600), 'hour'],
    [Math.floor((seconds % 3600) / 60), 'minute'],
    [seconds % 60, 'second'],
  ];
  const shown = parts.filter(([n]) => n > 0);
  const words = (shown.length > 0 ? shown : [[0, 'second'] as [number, 'second']]).map(([n, unit]) =>
    new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'long', numberingSystem: 'latn' }).format(n),
  );
  return new Intl.ListFormat(locale, { style: 'long', type: 'unit' }).format(words);
}
