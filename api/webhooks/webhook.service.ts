/** Webhook use cases: register, list and remove endpoints, read the delivery log, redeliver. */
import { DEFAULT_LIMIT, type ListEnvelope } from '../shared/list-page.ts';
import { Conflict, type FieldError, invalidFields, NotFound } from '../shared/errors.ts';
import { fieldsOf, parseCollecting } from '../shared/validation.ts';
import type { Merchant } from '../merchants/merchant.store.ts';
import { type Clock, isoTime } from '../shared/clock.ts';
import { newId, storedId } from '../shared/ids.ts';
import type { UnitOfWork } from '../unit-of-work.ts';
import { addressProblem, hostOf, urlProblem } from './webhook-address.ts';
import type { WebhookDispatcher } from './webhook-dispatcher.ts';
import type { WebhookSecrets } from './webhook-secrets.ts';
import {
  CreateWebhookInput,
  type CreatedWebhookOutput,
  type ListDeliveriesQuery,
  WEBHOOK_EVENT_TYPES,
  type WebhookDeliveryOutput,
  type WebhookEventType,
  type WebhookOutput,
} from './webhook.schema.ts';
import type { WebhookAttempt, WebhookEndpoint } from './webhook.store.ts';

/** The most endpoints one merchant may register. */
export const MAX_ENDPOINTS_PER_MERCHANT = 20;

/** What the webhook use cases need. */
export interface WebhookServiceDeps {
  uow: UnitOfWork;
  clock: Clock;
  secrets: WebhookSecrets;
  dispatcher: WebhookDispatcher;
  /** Whether endpoints may be plain http and private addresses (outside production). */
  allowPrivate: boolean;
}

function toOutput(endpoint: WebhookEndpoint): WebhookOutput {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: (endpoint.events ?? [...WEBHOOK_EVENT_TYPES]) as WebhookEventType[],
    createdAt: isoTime(endpoint.createdAt),
    disabled: endpoint.disabledAt !== null,
    disabledReason: endpoint.disabledReason,
  };
}

function toDeliveryOutput(attempt: WebhookAttempt): WebhookDeliveryOutput {
  return {
    id: attempt.id,
    eventId: attempt.eventId,
    type: attempt.type as WebhookEventType,
    attempt: attempt.attempt,
    statusCode: attempt.statusCode,
    durationMs: attempt.durationMs,
    error: attempt.error,
    createdAt: isoTime(attempt.createdAt),
  };
}

/** Creates the webhook use cases. */
export function createWebhookService(deps: WebhookServiceDeps) {
  const { uow, clock, secrets, dispatcher, allowPrivate } = deps;

  async function owned(merchant: Merchant, id: string): Promise<WebhookEndpoint> {
    const key = storedId(id);
    const endpoint = key === undefined ? undefined : await uow.stores.webhooks.findEndpoint(key);
    if (!endpoint || endpoint.merchantId !== merchant.id) throw new NotFound('webhook-not-found', `No webhook endpoint with id "${id}" exists for this merchant.`);
    return endpoint;
  }

  return {
    /** Reads a create request's body: every bad field at once, a URL that can never receive among them. */
    read(body: unknown): CreateWebhookInput {
      const parsed = parseCollecting(CreateWebhookInput, body);
      const errors: FieldError[] = [...parsed.errors];
      const url = fieldsOf(body).url;
      const problem = typeof url === 'string' && !errors.some((e) => e.path === 'url') ? urlProblem(url, allowPrivate) : undefined;
      if (problem) errors.unshift({ path: 'url', message: problem });
      if (errors.length > 0) throw invalidFields(errors);
      return parsed.data!;
    },

    /** Registers an endpoint; the answer carries its secret, shown this once. */
    async create(merchant: Merchant, input: CreateWebhookInput): Promise<CreatedWebhookOutput> {
      const problem = urlProblem(input.url, allowPrivate) ?? (await addressProblem(hostOf(new URL(input.url)), allowPrivate));
      if (problem) throw invalidFields([{ path: 'url', message: problem }]);
      const secret = secrets.generate();
      const id = newId();
      const endpoint: WebhookEndpoint = {
        id,
        merchantId: merchant.id,
        url: input.url,
        events: input.events ?? null,
        secretSealed: secrets.seal(secret, id),
        createdAt: clock(),
        disabledAt: null,
        disabledReason: null,
      };
      await uow.transaction(async (stores) => {
        // Counted under the merchant's lock, so two racing registrations cannot pass the limit.
        await stores.merchants.lockById(merchant.id);
        if ((await stores.webhooks.endpointsOf(merchant.id)).length >= MAX_ENDPOINTS_PER_MERCHANT) {
          throw new Conflict('webhook-limit-reached', `A merchant may register at most ${MAX_ENDPOINTS_PER_MERCHANT} webhook endpoints; delete one first.`);
        }
        await stores.webhooks.insertEndpoint(endpoint);
      });
      return { ...toOutput(endpoint), secret };
    },

    /**
     * An endpoint's signing secret, opened from its sealed form. Never over HTTP: for the demo store
     * in this process, whose endpoint another instance on the same database may have registered.
     */
    async secretOf(merchant: Merchant, id: string): Promise<string> {
      return secrets.open(await owned(merchant, id));
    },

    /** The merchant's endpoints, oldest first (no secrets). */
    async list(merchant: Merchant): Promise<ListEnvelope<WebhookOutput>> {
      const endpoints = await uow.stores.webhooks.endpointsOf(merchant.id);
      return { data: endpoints.map(toOutput), page: 0, limit: MAX_ENDPOINTS_PER_MERCHANT, total: endpoints.length };
    },

    /** Removes an endpoint; nothing more is sent to it. */
    async remove(merchant: Merchant, id: string): Promise<void> {
      const endpoint = await owned(merchant, id);
      await uow.stores.webhooks.deleteEndpoint(merchant.id, endpoint.id);
    },

    /** A page of an endpoint's delivery attempts, newest first. */
    async deliveries(merchant: Merchant, id: string, query: ListDeliveriesQuery): Promise<ListEnvelope<WebhookDeliveryOutput>> {
      const endpoint = await owned(merchant, id);
      const page = query.page ?? 0;
      const limit = query.limit ?? DEFAULT_LIMIT;
      const { attempts, total } = await uow.snapshot((stores) => stores.webhooks.attempts(endpoint.id, page * limit, limit));
      return { data: attempts.map(toDeliveryOutput), page, limit, total };
    },

    /** The newest delivery attempts (up to 50) of the merchant's events about one payment or withdrawal, with each endpoint. */
    async deliveriesAbout(merchant: Merchant, subjectId: string): Promise<Array<WebhookDeliveryOutput & { endpointId: string; url: string }>> {
      const attempts = await uow.stores.webhooks.attemptsAbout(merchant.id, subjectId, 50);
      return attempts.map((a) => ({ ...toDeliveryOutput(a), endpointId: a.endpointId, url: a.url }));
    },

    /** Sends an attempt's event again now; answers with the new attempt. */
    async redeliver(merchant: Merchant, id: string, deliveryId: string): Promise<WebhookDeliveryOutput> {
      const endpoint = await owned(merchant, id);
      const key = storedId(deliveryId);
      const attempt = key === undefined ? undefined : await uow.stores.webhooks.findAttempt(endpoint.id, key);
      const event = attempt && (await uow.stores.webhooks.eventFor(endpoint.id, attempt.eventId));
      if (!attempt || !event) throw new NotFound('delivery-not-found', `No delivery with id "${deliveryId}" exists for this webhook endpoint.`);
      return toDeliveryOutput(await dispatcher.redeliver(endpoint, { id: attempt.eventId, ...event }));
    },
  };
}

/** The webhook use cases. */
export type WebhookService = ReturnType<typeof createWebhookService>;
