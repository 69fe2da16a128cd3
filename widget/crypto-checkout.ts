/**
 * @module The `<crypto-checkout>` bundle's entry: registers the element (once, even if the script
 * is loaded twice) and exports its class and event types.
 */
import { CryptoCheckout } from './crypto-checkout.element.ts';

if (!customElements.get('crypto-checkout')) customElements.define('crypto-checkout', CryptoCheckout);

declare global {
  interface HTMLElementTagNameMap {
    'crypto-checkout': CryptoCheckout;
  }
}

export { CryptoCheckout };
export type { CheckoutStatus, CheckoutView } from './checkout-view.ts';
export type * from './events.ts';
