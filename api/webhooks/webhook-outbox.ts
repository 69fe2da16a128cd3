/**
 * @module The webhook outbox: an event is written in the same transaction as the change it
 * announces, queued for each of the merchant's enabled endpoints that take its type. A rollback
 * takes the event with it; a commit makes it durable, and the dispatcher delivers it, after a crash
 * too. A merchant with no endpoint costs one indexed read and nothing is rendered.
 */
import { randomUUID } from 'node:crypto';
import { isoTime } from '../shared/clock.ts';
import type { Stores } from '../unit-of-work.ts';
import type { WebhookEventType } from './webhook.schema.ts';
import type { WebhookEndpoint } from './webhook.store.ts';

/** Creates the outbox; `queued` is told (after the call, maybe before the commit) that events wait. */
export function createWebhookOutbox(deps: { queued?: () => void } = {}) {
  // Each transaction reads a merchant's endpoints once (an expiry sweep may announce thousands of payments).
  const endpointsIn = new WeakMap<Stores, Map<string, Promise<WebhookEndpoint[]>>>();
  const endpointsOf = (stores: Stores, merchantId: string): Promise<WebhookEndpoint[]> => {
    let known = endpointsIn.get(stores);
    if (!known) endpointsIn.set(stores, (known = new Map()));
    let endpoints = known.get(merchantId);
    if (!endpoints) known.set(merchantId, (endpoints = stores.webhooks.enabledEndpointsOf(merchantId)));
    return endpoints;
  };
  return {
    /**
     * Queues an event of `type` for the merchant's endpoints; `render` gives the record as GET
     * returns it now, and is called only if some endpoint takes the event. `subjectId` names that
     * record (a payment's or withdrawal's id), so its deliveries can be listed with it.
     */
    async emit(stores: Stores, event: { merchantId: string; subjectId?: string; type: WebhookEventType; at: number; render: () => Promise<object> }): Promise<void> {
      const endpoints = (await endpointsOf(stores, event.merchantId)).filter((e) => e.events === null || e.events.includes(event.type));
      if (endpoints.length === 0) return;
      const body = JSON.stringify({ type: event.type, timestamp: isoTime(event.at), data: await event.render() });
      const id = `msg_${randomUUID().replaceAll('-', '')}`;
      await stores.webhooks.insertEvent({ id, merchantId: event.merchantId, subjectId: event.subjectId ?? null, type: event.type, body, createdAt: event.at }, endpoints.map((e) => e.id));
      deps.queued?.();
    },
  };
}

/** The webhook outbox. */
export type WebhookOutbox = ReturnType<typeof createWebhookOutbox>;
