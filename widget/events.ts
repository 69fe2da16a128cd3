/**
 * @module The events `<crypto-checkout>` fires. All bubble and are composed (they leave the shadow
 * root), none is cancelable, and each fires only because the server reported a change or the payer
 * did something; never because the page set a property.
 */
import type { CheckoutStatus, CheckoutView } from './checkout-view.ts';

/** Detail of `checkout-status-change`. */
export interface CheckoutStatusChangeDetail {
  status: CheckoutStatus;
  /** The status shown before, or null for the first status the element learns. */
  previousStatus: CheckoutStatus | null;
  checkout: CheckoutView;
}

/** Detail of `checkout-paid` and `checkout-expired`. */
export interface CheckoutViewDetail {
  checkout: CheckoutView;
}

/** Why the element cannot show a payment. */
export type CheckoutErrorCode = 'not-found' | 'network' | 'invalid-response';

/** Detail of `checkout-error`. */
export interface CheckoutErrorDetail {
  code: CheckoutErrorCode;
  message: string;
}

/** Which value a copy button copies. */
export type CopyField = 'amount' | 'address' | 'destTag';

/** Detail of `checkout-copy`. */
export interface CheckoutCopyDetail {
  field: CopyField;
  value: string;
}

/** The status the server reports differs from the one shown (including the first one learned). */
export type CheckoutStatusChangeEvent = CustomEvent<CheckoutStatusChangeDetail>;
/**
 * Extension: a new view of the payment was rendered (every one, the first included), whatever
 * changed in it: a transaction, a confirmation, funds seen late on an EXPIRED payment, a refund.
 */
export type CheckoutUpdateEvent = CustomEvent<CheckoutViewDetail>;
/** The payment reached COMPLETE. */
export type CheckoutPaidEvent = CustomEvent<CheckoutViewDetail>;
/** The payment reached EXPIRED. */
export type CheckoutExpiredEvent = CustomEvent<CheckoutViewDetail>;
/** The payment cannot be shown: unknown id, server unreachable, or an answer that is not a checkout. */
export type CheckoutErrorEvent = CustomEvent<CheckoutErrorDetail>;
/** The payer copied a value to the clipboard. */
export type CheckoutCopyEvent = CustomEvent<CheckoutCopyDetail>;

/** Every event of the element, by name. */
export interface CheckoutEventMap {
  'checkout-status-change': CheckoutStatusChangeEvent;
  'checkout-update': CheckoutUpdateEvent;
  'checkout-paid': CheckoutPaidEvent;
  'checkout-expired': CheckoutExpiredEvent;
  'checkout-error': CheckoutErrorEvent;
  'checkout-copy': CheckoutCopyEvent;
}

declare global {
  interface GlobalEventHandlersEventMap extends CheckoutEventMap {}
}

type DetailOf<K extends keyof CheckoutEventMap> = CheckoutEventMap[K] extends CustomEvent<infer D> ? D : never;

/** Creates one of the element's events with the shared options. */
export function checkoutEvent<K extends keyof CheckoutEventMap>(name: K, detail: DetailOf<K>): CheckoutEventMap[K] {
  return new CustomEvent(name, { bubbles: true, composed: true, cancelable: false, detail }) as CheckoutEventMap[K];
}
