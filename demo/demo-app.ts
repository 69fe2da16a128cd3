/**
 * @module Wires the demo store: the demo merchant's keys from DATA_DIR/demo-merchant.json, a
 * typed client that calls the service over HTTP at its own public URL (through node:http, see
 * http-fetch.ts), the payer simulator, and the routes.
 */
import type { Router } from 'express';
import { type DemoMerchant, readDemoMerchant } from '../api/merchants/demo-merchant.ts';
import { MerchantClient } from '../client/index.ts';
import { createDemoStore } from './demo-store.ts';
import { httpFetch } from './http-fetch.ts';
import { StoreError } from './store-error.ts';
import { demoRoutes } from './demo.routes.ts';
import { createPayerSimulator } from './payer-simulator.ts';
import { createPayouts } from './payouts.ts';
import { createStoreWebhooks } from './store-webhooks.ts';
import type { StoreFrame } from './views/layout.ts';

/** How a simulated payment is paced: one block this many milliseconds after the last. */
export const SIMULATED_BLOCK_INTERVAL_MS = 2_000;
const REGISTER_TRIES = 30;

/** What the store needs from the service that mounts it. */
export interface DemoStoreOptions {
  /** Where the router is mounted, like "/demo". */
  basePath: string;
  /** The service's public URL: the store's backend calls the API there, and the browser loads the widget from there. */
  publicUrl: string;
  /** DATA_DIR, where demo-merchant.json lives. */
  dataDir: string;
  /** Whether the service runs the simulated networks (and their /v2/dev routes). */
  simulator: boolean;
  /** The signing secret of one of the demo merchant's webhook endpoints, from the service's database. */
  webhookSecret: (merchantId: string, endpointId: string) => Promise<string>;
  /** Logs what went wrong in the background or unexpectedly. */
  logError: (err: unknown, message: string) => void;
}

/** Creates the demo store's router. */
export function createDemoRouter(options: DemoStoreOptions): Router {
  const basePath = options.basePath.replace(/\/+$/, '');
  let keys: { client: MerchantClient; storeName: string; merchantId: string } | undefined;

  // Read lazily, so a keys file written after start-up (or fixed by hand) is picked up.
  function merchant(): { client: MerchantClient; storeName: string; merchantId: string } {
    if (keys) return keys;
    let demo: DemoMerchant | undefined;
    try {
      demo = readDemoMerchant(options.dataDir);
    } catch (err) {
      throw new StoreError(503, 'Store not set up', `The demo merchant's keys file in DATA_DIR cannot be read (${err instanceof Error ? err.message : String(err)}).`);
    }
    if (!demo) {
      throw new StoreError(503, 'Store not set up', 'There is no demo-merchant.json in DATA_DIR yet. `npm start` writes it on an empty DATA_DIR.');
    }
    keys = { client: new MerchantClient({ baseUrl: options.publicUrl, apiKey: demo.apiKey, secretKey: demo.secretKey, fetch: httpFetch }), storeName: demo.merchant.name, merchantId: demo.merchant.id };
    return keys;
  }

  const frame = (): StoreFrame => {
    let storeName = 'Demo Store';
    try {
      storeName = merchant().storeName;
    } catch {
      // The error page still needs a frame when the keys are missing.
    }
    return { basePath, storeName, simulator: options.simulator };
  };

  const simulator = options.simulator
    ? createPayerSimulator({
        apiBase: `${options.publicUrl}/v2`,
        blockIntervalMs: SIMULATED_BLOCK_INTERVAL_MS,
        onBackgroundError: (err) => options.logError(err, 'demo store: mining a simulated block failed'),
      })
    : undefined;

  const store = createDemoStore({
    client: () => merchant().client,
    simulator,
    returnUrl: (invoice) => `${options.publicUrl}${basePath}/return?invoice=${encodeURIComponent(invoice)}`,
  });

  // Without an owner login, payouts stay on simulated networks.
  const payouts = options.simulator ? createPayouts(() => merchant().client) : undefined;

  // The store hears of paid orders by webhook. It registers its endpoint once the service answers
  // (this router exists before the server listens), trying every 2 s for a minute.
  const webhooks = createStoreWebhooks({
    url: `${options.publicUrl}${basePath}/webhooks`,
    dataDir: options.dataDir,
    client: () => merchant().client,
    secretOf: (endpointId) => options.webhookSecret(merchant().merchantId, endpointId),
    logError: options.logError,
  });
  let tries = 0;
  const registerSoon = () => {
    const timer = setTimeout(() => {
      webhooks.register().catch((err) => {
        if (++tries < REGISTER_TRIES) registerSoon();
        else options.logError(err, 'demo store: could not register its webhook endpoint; paid orders still show from the payment records');
      });
    }, tries === 0 ? 100 : 2_000);
    timer.unref();
  };
  registerSoon();
  return demoRoutes(store, payouts, { frame, publicUrl: options.publicUrl, webhooks, onError: (err) => options.logError(err, 'demo store: unexpected error') });
}
