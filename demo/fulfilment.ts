/**
 * @module The store's fulfilment decision, made only from the payment record its server fetched
 * with GET /v2/payment/:id; never from anything a browser says. An order is paid when that record
 * is COMPLETE, in an asset the store prices, for at least the product's price in that asset.
 */
import Decimal from 'decimal.js';
import type { Payment } from '../client/index.ts';
import { covers, isPriced, priceIn, productOfInvoice, type Product } from './catalogue.ts';
import { networkName } from './views/format.ts';

/** Where an order stands, from the store's point of view. */
export type OrderStateKind = 'awaiting-payment' | 'partly-paid' | 'confirming' | 'paid' | 'expired' | 'needs-review';

/** The order's state with the words the store shows for it. */
export interface OrderState {
  kind: OrderStateKind;
  /** A short badge text. */
  label: string;
  /** What it means for the shopper. */
  message: string;
}

/** An order of this store: the product and the payment record it was checked against. */
export interface Order {
  product: Product;
  payment: Payment;
  state: OrderState;
  /** When the store's server fetched the record (ISO 8601). */
  checkedAt: string;
}

/**
 * What the store must have received for the product: a payment priced in dollars at the product's
 * price is owed its own locked amount; one priced in the asset (the offline fallback), the amount at
 * the store's fixed demo rate.
 */
function expectedAmount(product: Product, payment: Payment): string | undefined {
  if (payment.price) return payment.price.currency === 'USD' && covers(payment.price.amount, product.priceUsd) ? payment.amount : undefined;
  return isPriced(payment.asset) ? priceIn(product, payment.asset) : undefined;
}

/** Decides the order's state from the server-side payment record. */
export function orderState(product: Product, payment: Payment): OrderState {
  switch (payment.status) {
    case 'COMPLETE': {
      const expected = expectedAmount(product, payment);
      if (expected !== undefined && covers(payment.amount, expected) && covers(payment.totalReceivedAmount, expected)) {
        return { kind: 'paid', label: 'Paid', message: `The payment is confirmed on the ${networkName(payment.asset.network)} network. Your ${product.name} is being packed.` };
      }
      return {
        kind: 'needs-review',
        label: 'Needs review',
        message: `The payment is complete but does not match the price of a ${product.name} in ${payment.asset.short}; the store will not ship it until someone checks.`,
      };
    }
    case 'CONFIRMING':
      return {
        kind: 'confirming',
        label: 'Confirming',
        message: `The full amount has arrived and is waiting for ${payment.confirmsNeeded} network confirmations. Nothing ships until the payment is complete.`,
      };
    case 'EXPIRED':
      return { kind: 'expired', label: 'Expired', message: 'The time to pay ran out. Funds that arrive late are credited to the store; contact us and we will sort it out.' };
    case 'OPEN':
      return new Decimal(payment.totalReceivedAmount).gt(0)
        ? { kind: 'partly-paid', label: 'Partly paid', message: `${payment.totalReceivedAmount} ${payment.asset.short} has arrived; ${payment.amountDue} ${payment.asset.short} is still due.` }
        : { kind: 'awaiting-payment', label: 'Awaiting payment', message: 'Pay on the hosted page or right here on this page.' };
  }
}

/** The order a payment record belongs to, or undefined when the payment is not one of this store's orders. */
export function orderOf(payment: Payment, checkedAt: string): Order | undefined {
  const product = productOfInvoice(payment.invoice);
  if (!product) return undefined;
  return { product, payment, state: orderState(product, payment), checkedAt };
}
