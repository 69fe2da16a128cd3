/**
 * @module The payer-safe view of a payment as GET /v2/checkout/:id and its event stream send it,
 * typed for the widget and checked on arrival (the widget may be pointed at the wrong server).
 */

/** Every status a payment can have, in the order a payment usually moves through them. */
export const CHECKOUT_STATUSES = ['OPEN', 'CONFIRMING', 'COMPLETE', 'EXPIRED'] as const;
/** A payment status. */
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];

/** The asset being paid. */
export interface CheckoutAsset {
  short: string;
  network: string;
  name: string;
  logoUrl: string;
  decimals: number;
}

/** A transaction the payment has received. */
export interface CheckoutTransaction {
  txnId: string;
  /** Decimal string with the asset's decimals. */
  receivedAmount: string;
  confirmations: number;
  date: string;
  /** Seen after the payment expired: credited to the merchant, not counted towards the amount. */
  late: boolean;
}

/** The price the merchant set in a fiat currency (ISO 4217), which the asset amount pays. */
export interface CheckoutPrice {
  /** Decimal string, at most the currency's minor digits. */
  amount: string;
  currency: string;
}

/** The rate the asset amount was converted at, locked for the payment's life. */
export interface CheckoutRate {
  value: string;
  currency: string;
  sources: string[];
  at: string;
}

/** The whole view; each update replaces it. Amounts are decimal strings and stay strings. */
export interface CheckoutView {
  id: string;
  status: CheckoutStatus;
  amount: string;
  amountDue: string;
  totalReceivedAmount: string;
  asset: CheckoutAsset;
  addressTo: string;
  destTag: string | null;
  paymentUri: string;
  confirmsNeeded: number;
  timeout: number;
  expiresAt: string;
  createdAt: string;
  invoice: string | null;
  checkoutUrl: string | null;
  merchant: { name: string; siteUrl: string | null; logoUrl: string | null };
  transactions: CheckoutTransaction[];
  /** The asset's network is simulated: nothing real is paid on it (absent from older servers: false). */
  testNetwork?: boolean;
  /** The fiat price, shown beside the asset amount; null on a payment priced in the asset. */
  price: CheckoutPrice | null;
  /** The rate that converted `price`; null with it. */
  rate: CheckoutRate | null;
  /** Paid too much, too little by the expiry, or after it; null when none (absent from older servers). */
  exception?: 'OVERPAID' | 'UNDERPAID' | 'PAID_LATE' | null;
  /** How much more than `amount` arrived in time, on an OVERPAID payment; null otherwise (absent from older servers). */
  overpaidAmount?: string | null;
  /**
   * The refunds on their way to the payer (being paid out, or paid): their total and whether all
   * are paid; null when none (absent from older servers).
   */
  refund?: { amount: string; sent: boolean } | null;
  /** The server's clock when the view was made; the countdown runs against it. */
  serverTime: string;
}

/** Thrown when a response is not a checkout view. */
export class InvalidCheckoutError extends Error {
  override name = 'InvalidCheckoutError';
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function check(ok: boolean, field: string): void {
  if (!ok) throw new InvalidCheckoutError(`The checkout response has no valid "${field}".`);
}

function strings(object: Json, prefix: string, fields: string[], nullable = false): void {
  for (const field of fields) {
    const value = object[field];
    check(typeof value === 'string' || (nullable && value === null), prefix + field);
  }
}

function isTime(value: unknown): boolean {
  return typeof value === 'string' && !Number.isNaN(Date.parse(value));
}

/** Checks that parsed JSON is a checkout view and returns it typed; throws InvalidCheckoutError. */
export function parseCheckoutView(json: unknown): CheckoutView {
  check(isObject(json), 'view');
  const view = json as Json;
  strings(view, '', ['id', 'amount', 'amountDue', 'totalReceivedAmount', 'addressTo', 'paymentUri']);
  strings(view, '', ['destTag', 'invoice', 'checkoutUrl'], true);
  check((CHECKOUT_STATUSES as readonly unknown[]).includes(view.status), 'status');
  for (const field of ['expiresAt', 'createdAt', 'serverTime']) check(isTime(view[field]), field);
  check(Number.isInteger(view.confirmsNeeded), 'confirmsNeeded');
  check(Number.isInteger(view.timeout), 'timeout');
  check(isObject(view.asset), 'asset');
  strings(view.asset as Json, 'asset.', ['short', 'network', 'name', 'logoUrl']);
  check(Number.isInteger((view.asset as Json).decimals), 'asset.decimals');
  check(isObject(view.merchant), 'merchant');
  strings(view.merchant as Json, 'merchant.', ['name']);
  strings(view.merchant as Json, 'merchant.', ['siteUrl', 'logoUrl'], true);
  check(view.testNetwork === undefined || typeof view.testNetwork === 'boolean', 'testNetwork');
  check(view.overpaidAmount === undefined || view.overpaidAmount === null || typeof view.overpaidAmount === 'string', 'overpaidAmount');
  check(view.refund === undefined || view.refund === null || (isObject(view.refund) && typeof view.refund.amount === 'string' && typeof view.refund.sent === 'boolean'), 'refund');
  check(Array.isArray(view.transactions), 'transactions');
  for (const item of view.transactions as unknown[]) {
    check(isObject(item), 'transactions[]');
    const txn = item as Json;
    strings(txn, 'transactions[].', ['txnId', 'receivedAmount']);
    check(Number.isInteger(txn.confirmations) && isTime(txn.date) && typeof txn.late === 'boolean', 'transactions[]');
  }
  // A server from before fiat prices sends neither: the payment is priced in the asset.
  view.price ??= null;
  view.rate ??= null;
  if (view.price !== null) {
    check(isObject(view.price), 'price');
    strings(view.price as Json, 'price.', ['amount', 'currency']);
  }
  return view as unknown as CheckoutView;
}

/**
 * How long after its expiry an EXPIRED payment is still followed: a transaction sent in the last
 * minute may reach the network after it, and the payer watching should see it counted (late).
 */
export const LATE_FOLLOW_MS = 30 * 60_000;

/**
 * How many more milliseconds a view is worth following, by the server's clock (the device's may be
 * wrong): Infinity while the payment is open or confirming, what is left of LATE_FOLLOW_MS past the
 * expiry of an EXPIRED one, 0 once nothing more is expected.
 */
export function followFor(view: Pick<CheckoutView, 'status' | 'expiresAt' | 'serverTime'>): number {
  if (view.status === 'EXPIRED') return Math.max(0, Date.parse(view.expiresAt) + LATE_FOLLOW_MS - Date.parse(view.serverTime));
  return isFinalStatus(view.status) ? 0 : Infinity;
}

/** Whether a status is final: no more updates will come. */
export function isFinalStatus(status: CheckoutStatus): boolean {
  return status === 'COMPLETE' || status === 'EXPIRED';
}
