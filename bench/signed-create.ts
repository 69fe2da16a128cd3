/** Bodies for the create benchmark: each request a new payment, signed over its own bytes. */
import { createHmac } from 'node:crypto';

/** One asset per network, so creates draw on every network's address pool equally; `partial` pays part of it. */
export const CREATE_ASSETS = [
  { short: 'BTC', network: 'bitcoin', amount: '0.00125', partial: '0.0005' },
  { short: 'LTC', network: 'litecoin', amount: '0.25', partial: '0.1' },
  { short: 'USDT', network: 'ethereum', amount: '49.99', partial: '20' },
  { short: 'USDT', network: 'tron', amount: '19.5', partial: '10' },
  { short: 'XRP', network: 'ripple', amount: '42', partial: '21' },
] as const;

/** Networks whose receiving addresses come from the pool (XRP shares one address and tags it). */
export const POOLED_NETWORKS = ['bitcoin', 'litecoin', 'ethereum', 'tron'] as const;

/**
 * Every network whose pool the service fills: the pooled ones and Monero (simulated, derived from
 * its key like the others), which the creates never use but the derivation worker fills all the
 * same. Rows start once all are full, so no derivation competes with a measurement for the CPU
 * (a read row once ran beside the worker's last 3,708 Monero addresses) or adds to its memory.
 */
export const DERIVED_NETWORKS = [...POOLED_NETWORKS, 'monero'] as const;

/** The headers and body of a signed POST. */
export function signedRequest(apiKey: string, secretKey: string, body: string): { body: string; headers: Record<string, string> } {
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'api-key': apiKey,
      'x-hmac': createHmac('sha256', secretKey).update(body).digest('hex'),
    },
  };
}

/** A fiat price that creates carry in place of `amount` (the fiat row's). */
export interface FiatPrice {
  amount: string;
  currency: string;
}

/**
 * A generator of distinct, realistic create requests that cycles through the networks; priced in
 * each asset, or all at `price` in a fiat currency. Both kinds cost the load generator the same.
 */
export function createRequests(keys: { apiKey: string; secretKey: string }, shopUrl: string, price?: FiatPrice) {
  let sequence = 0;
  return () => {
    const n = ++sequence;
    const asset = CREATE_ASSETS[n % CREATE_ASSETS.length]!;
    const body = JSON.stringify({
      ...(price ? { price } : { amount: asset.amount }),
      asset: { short: asset.short, network: asset.network },
      invoice: `bench-${process.pid}-${price ? 'fiat-' : ''}${n}`,
      customer: { id: 1 + (n % 997), name: `Bench Customer ${n % 997}`, email: `bench${n % 997}@example.com` },
      checkoutUrl: `${shopUrl}/orders/bench-${n}`,
    });
    return signedRequest(keys.apiKey, keys.secretKey, body);
  };
}
