/** Request and response schemas of webhooks (contract section 12, Standard Webhooks 1.0). */
import { z } from 'zod';
import { pageQuery, Timestamp } from '../shared/common.schema.ts';
import { plainString } from '../shared/validation.ts';

/** Every event type, in the order a payment or withdrawal goes through them. */
export const WEBHOOK_EVENT_TYPES = [
  'payment.transaction-seen',
  'payment.confirming',
  'payment.completed',
  'payment.expired',
  'payment.reopened',
  'payment.overpaid',
  'payment.paid-late',
  'withdrawal.approved',
  'withdrawal.completed',
  'withdrawal.cancelled',
  'refund.requested',
  'refund.approved',
  'refund.completed',
  'refund.cancelled',
] as const;
/** An event type. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The longest endpoint URL accepted. */
export const MAX_WEBHOOK_URL = 2000;

/** Body of POST /v2/webhooks. */
export const CreateWebhookInput = z
  .strictObject({
    url: plainString()
      .min(1, 'must not be empty')
      .max(MAX_WEBHOOK_URL, `must be at most ${MAX_WEBHOOK_URL} characters`)
      .meta({
        description:
          'Where events are POSTed. In production an https URL whose host resolves to public addresses only (checked again at every delivery); outside production http and private addresses are allowed too.',
        examples: ['https://shop.example/webhooks/checkout'],
      }),
    events: z
      .array(z.enum(WEBHOOK_EVENT_TYPES, { error: `must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` }))
      .min(1, 'must name at least one event type (leave it out for all of them)')
      .max(WEBHOOK_EVENT_TYPES.length, `at most ${WEBHOOK_EVENT_TYPES.length} values`)
      .refine((events) => new Set(events).size === events.length, 'must not repeat an event type')
      .optional()
      .meta({ description: 'The event types to receive; every type when left out.' }),
  })
  .meta({ id: 'CreateWebhook' });
/** A validated endpoint registration. */
export type CreateWebhookInput = z.output<typeof CreateWebhookInput>;

const endpointFields = {
  id: z.uuid(),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)).meta({ description: 'The event types it receives.' }),
  createdAt: Timestamp,
  disabled: z.boolean().meta({ description: 'Extension: true once the endpoint answered 410 Gone; nothing is sent to it until a redelivery it accepts enables it again.' }),
  disabledReason: z.string().nullable().meta({ description: 'Extension: why it was disabled; null while enabled.' }),
};

/** An endpoint as GET /v2/webhooks lists it (no secret). */
export const WebhookOutput = z.object(endpointFields).meta({ id: 'Webhook' });
/** An endpoint as listed. */
export type WebhookOutput = z.output<typeof WebhookOutput>;

/** Response of POST /v2/webhooks: the endpoint and its signing secret, shown this once. */
export const CreatedWebhookOutput = z
  .object({
    ...endpointFields,
    secret: z.string().meta({ description: 'The signing secret (`whsec_` and base64), shown only in this answer.', examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] }),
  })
  .meta({ id: 'CreatedWebhook' });
/** A new endpoint with its secret. */
export type CreatedWebhookOutput = z.output<typeof CreatedWebhookOutput>;

/** One attempt to deliver an event, as the delivery log shows it. */
export const WebhookDeliveryOutput = z
  .object({
    id: z.uuid().meta({ description: 'The attempt id (what redeliver takes).' }),
    eventId: z.string().meta({ description: 'The event\'s `webhook-id`, the same on every attempt.' }),
    type: z.enum(WEBHOOK_EVENT_TYPES),
    attempt: z.number().int().min(1).meta({ description: 'Which attempt at this event this was, from 1.' }),
    statusCode: z.number().int().min(100).max(599).nullable().meta({ description: 'The endpoint\'s HTTP status; null when no answer came.' }),
    durationMs: z.number().int().min(0),
    error: z.string().nullable().meta({ description: 'What went wrong; null when the endpoint answered 2xx.' }),
    createdAt: Timestamp,
  })
  .meta({ id: 'WebhookDelivery' });
/** One attempt. */
export type WebhookDeliveryOutput = z.output<typeof WebhookDeliveryOutput>;

/** Query of GET /v2/webhooks/:id/deliveries. */
export const ListDeliveriesQuery = z.object({ ...pageQuery(0) });
/** A deliveries list query, read. */
export type ListDeliveriesQuery = z.output<typeof ListDeliveriesQuery>;
