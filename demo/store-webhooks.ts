/**
 * @module The store's webhook endpoint, as a merchant would run one: registered through the client
 * when the store starts, each request verified with `verifyWebhook` over the raw body,
 * and an order fulfilled on `payment.completed` only after the store's server fetched the payment
 * record with GET /v2/payment/:id and found it paid. Fulfilments are kept in
 * DATA_DIR/demo-fulfilled.json, each once, however often an event is delivered.
 *
 * Unlike a merchant's own store, it keeps no copy of the secret: several instances on one database
 * (behind one PUBLIC_URL) share one endpoint, the oldest registered with the store's URL, and each
 * reads its secret from the service (sealed in the database under the server key). An endpoint of
 * the same route at another address (the service moved to another port or PUBLIC_URL) is removed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CheckoutApiError, type MerchantClient, verifyWebhook, type WebhookDelivery, WebhookVerificationError } from '../client/index.ts';
import { orderOf } from './fulfilment.ts';

/** A fulfilled order: which event led to it and when. */
export interface Fulfilment {
  paymentId: string;
  invoice: string;
  webhookId: string;
  fulfilledAt: string;
}

interface Registration {
  id: string;
  url: string;
  secret: string;
}

/** What the endpoint needs. */
export interface StoreWebhookOptions {
  /** The URL the service posts to (this store's /webhooks route). */
  url: string;
  dataDir: string;
  client: () => MerchantClient;
  /** The signing secret of one of the merchant's endpoints, from the service. */
  secretOf: (endpointId: string) => Promise<string>;
  logError: (err: unknown, message: string) => void;
  now?: () => Date;
}

/** The answer to one webhook request. */
export interface WebhookAnswer {
  status: number;
  text: string;
}

/** Creates the endpoint: `register` (called at start-up, retried until it works), `receive`, and what the orders page shows. */
export function createStoreWebhooks(options: StoreWebhookOptions) {
  const fulfilmentFile = path.join(options.dataDir, 'demo-fulfilled.json');
  const now = options.now ?? (() => new Date());
  let registration: Registration | undefined;
  let registering: Promise<Registration> | undefined;

  function readJson<T>(file: string): T | undefined {
    try {
      return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
    } catch {
      return undefined;
    }
  }

  const fulfilled = new Map<string, Fulfilment>((readJson<Fulfilment[]>(fulfilmentFile) ?? []).map((f) => [f.paymentId, f]));

  async function removeEndpoint(client: MerchantClient, id: string): Promise<void> {
    try {
      await client.deleteWebhook(id);
    } catch (err) {
      // Another instance removed it first.
      if (!(err instanceof CheckoutApiError && err.status === 404)) throw err;
    }
  }

  async function register(): Promise<Registration> {
    const client = options.client();
    const listed = await client.listWebhooks();
    // The demo merchant's endpoints of the store's route at another address (the service moved to
    // another port or PUBLIC_URL) would collect failed deliveries for good: they go.
    const route = new URL(options.url).pathname;
    for (const stale of listed.filter((w) => w.url !== options.url && URL.canParse(w.url) && new URL(w.url).pathname === route)) await removeEndpoint(client, stale.id);
    const ours = async () => (await client.listWebhooks()).filter((w) => w.url === options.url);
    let endpoints = listed.filter((w) => w.url === options.url);
    if (endpoints.length === 0) {
      await client.createWebhook({ url: options.url });
      endpoints = await ours();
    }
    // Instances that registered at the same moment keep the oldest (the list is oldest first).
    const [kept, ...extra] = endpoints;
    if (!kept) throw new Error('the webhook endpoint just registered is not listed');
    for (const endpoint of extra) await removeEndpoint(client, endpoint.id);
    return { id: kept.id, url: kept.url, secret: await options.secretOf(kept.id) };
  }

  return {
    /** Registers the endpoint once (again after a failure); resolves when it is registered. */
    async register(): Promise<Registration> {
      if (registration) return registration;
      registering ??= register().finally(() => {
        registering = undefined;
      });
      registration = await registering;
      return registration;
    },

    /** Handles one delivery: 401 when it is not genuine, 200 once handled (502 to have it retried). */
    async receive(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): Promise<WebhookAnswer> {
      if (!registration) return { status: 503, text: 'not registered yet' };
      let event;
      try {
        event = verifyWebhook(rawBody, headers, registration.secret);
      } catch (err) {
        if (err instanceof WebhookVerificationError) return { status: 401, text: err.message };
        return { status: 400, text: 'not JSON' };
      }
      if (event.type !== 'payment.completed' || fulfilled.has(event.data.id)) return { status: 200, text: 'ok' };
      try {
        // The event says where to look; the record fetched by the store's own server decides.
        const payment = await options.client().getPayment(event.data.id);
        const order = orderOf(payment, now().toISOString());
        if (order?.state.kind === 'paid' && !fulfilled.has(payment.id)) {
          fulfilled.set(payment.id, { paymentId: payment.id, invoice: payment.invoice ?? '', webhookId: String(headers['webhook-id']), fulfilledAt: now().toISOString() });
          fs.writeFileSync(fulfilmentFile, JSON.stringify([...fulfilled.values()], null, 2) + '\n', { mode: 0o600 });
        }
        return { status: 200, text: 'ok' };
      } catch (err) {
        options.logError(err, 'demo store: a payment.completed event could not be checked; the service will retry it');
        return { status: 502, text: 'could not check the payment now' };
      }
    },

    /** The fulfilment of an order, if its payment.completed event fulfilled it. */
    fulfilment(paymentId: string): Fulfilment | undefined {
      return fulfilled.get(paymentId);
    },

    /** The newest delivery attempts to the store's endpoint (empty until it is registered). */
    async deliveries(limit: number): Promise<{ endpointUrl: string | undefined; attempts: WebhookDelivery[] }> {
      const current = registration;
      if (!current) return { endpointUrl: undefined, attempts: [] };
      try {
        return { endpointUrl: current.url, attempts: (await options.client().listDeliveries(current.id, { limit })).data };
      } catch (err) {
        options.logError(err, 'demo store: the webhook delivery log could not be read');
        return { endpointUrl: current.url, attempts: [] };
      }
    },
  };
}

/** The store's webhook endpoint. */
export type StoreWebhooks = ReturnType<typeof createStoreWebhooks>;
