/**
 * JSX types of `<crypto-checkout>` for React (`crypto-checkout/widget/react`): its attributes,
 * beside every standard HTML attribute. Add `import type {} from 'crypto-checkout/widget/react'`
 * once in a project; listen to its events through a ref (`addEventListener('checkout-paid', …)`,
 * typed by the element's event map).
 */
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type { CryptoCheckout } from './crypto-checkout.ts';

/** The element's own attributes. */
export interface CryptoCheckoutAttributes {
  /** The payment to show: the `id` from POST /v2/payment. */
  'payment-id': string;
  /** Base URL of the API, like "https://pay.example.com/v2"; defaults to the script's origin + /v2. */
  'api-base'?: string;
  /** Forces the light or dark palette; without it the element follows prefers-color-scheme. */
  theme?: 'light' | 'dark';
  /** The payer's language (en, es, pt-BR, fr, de, ru, tr, ar, zh-CN, ja, hi, id); the browser's when left out. */
  lang?: string;
}

declare module 'react' {
  // oxlint-disable-next-line typescript/no-namespace -- React's JSX types live in this namespace
  namespace JSX {
    interface IntrinsicElements {
      'crypto-checkout': DetailedHTMLProps<HTMLAttributes<CryptoCheckout>, CryptoCheckout> & CryptoCheckoutAttributes;
    }
  }
}
