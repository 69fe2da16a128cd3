/**
 * @module `crypto-checkout/client`: the typed client for merchant backends.
 *
 * ```ts
 * import { MerchantClient, CheckoutApiError } from 'crypto-checkout/client';
 * const client = new MerchantClient({ baseUrl: 'https://pay.example.com', apiKey, secretKey });
 * const payment = await client.createPayment({ amount: '0.015', asset: { short: 'BTC', network: 'bitcoin' } });
 * ```
 */
export { CheckoutApiError } from './errors.ts';
export { MerchantClient, signBody, type MerchantClientOptions, type PostOptions } from './merchant-client.ts';
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions } from './verify-webhook.ts';
export type * from './types.ts';
