/**
 * @module The OpenAPI 3.1 document, generated from the very zod schemas that validate requests
 * and describe responses, so the document and the behaviour cannot drift apart.
 */
import { z } from 'zod';
import { CheckoutOutput } from '../checkout/checkout.schema.ts';
import { AssetListOutput } from '../networks/asset.schema.ts';
import { CreatePaymentInput, ListPaymentsQuery, PaymentOutput } from '../payments/payment.schema.ts';
import { MineBlocksInput, SimulatedTransactionInput } from '../simulator/simulator.schema.ts';
import { CreateWebhookInput, CreatedWebhookOutput, ListDeliveriesQuery, WEBHOOK_EVENT_TYPES, WebhookDeliveryOutput, WebhookEventOutput, WebhookOutput } from '../webhooks/webhook.schema.ts';
import { BalanceOutput, CreateWithdrawalInput, ListWithdrawalsQuery, WithdrawalActionInput, WithdrawalOutput } from '../withdrawals/withdrawal.schema.ts';
import { ErrorOutput } from './common.schema.ts';

type JsonObject = Record<string, unknown>;

const SIMULATOR_SCHEMAS: z.ZodType[] = [SimulatedTransactionInput, MineBlocksInput];

const ref = (schema: z.ZodType): JsonObject => ({ $ref: `#/components/schemas/${(schema.meta() as { id: string }).id}` });
const json = (schema: JsonObject) => ({ 'application/json': { schema } });
const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), { description: ERROR_DESCRIPTIONS[s], content: json(ref(ErrorOutput)) }]));

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'validation-failed (every bad field in `details`), invalid-json or unsupported-asset',
  401: 'missing-api-key, invalid-api-key, missing-signature or invalid-signature',
  404: 'payment-not-found / withdrawal-not-found / webhook-not-found / delivery-not-found (also for another merchant\'s id)',
  409: 'invalid-state, duplicate-invoice or webhook-limit-reached; idempotency-key-in-use while the first request with the same Idempotency-Key still runs',
  413: 'payload-too-large (over 64 KiB)',
  415: 'unsupported-media-type',
  422: 'insufficient-funds; idempotency-key-reused when the Idempotency-Key was used with other bytes',
  429: 'rate-limited (per API key on merchant routes, per client address on public ones); `Retry-After` says when to try again',
  503: 'database-unavailable: try again after `Retry-After` seconds',
};

// Sent on every POST; its first answer is replayed, with `Idempotent-Replayed: true`, for 24 hours.
const idempotencyKeyParameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Optional, 1–255 printable ASCII characters. The first answer to a request with this key is kept 24 hours per merchant; a repeat with the same body bytes gets it again (header `Idempotent-Replayed: true`) and changes nothing. Other bytes with the same key: 422 idempotency-key-reused; a repeat while the first still runs: 409 idempotency-key-in-use.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
};

function queryParameters(schema: z.ZodObject): JsonObject[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    const fieldSchema = z.toJSONSchema(field as z.ZodType, { io: 'input', unrepresentable: 'any' }) as JsonObject;
    delete fieldSchema.$schema;
    const isArray = fieldSchema.type === 'array';
    return {
      name,
      in: 'query',
      required: false,
      description: `${(field as z.ZodType).description ?? ''}${isArray ? ' Repeat the key, use brackets (`ids[]=a`) or separate with commas.' : ''}`.trim(),
      schema: fieldSchema,
      ...(isArray ? { style: 'form', explode: true } : {}),
    };
  });
}

function signedBody(schema: z.ZodType) {
  return { required: true, content: json(ref(schema)) };
}

const idParameter = (what: string) => ({ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' }, description: `The ${what} id.` });
const list = (item: z.ZodType) => ({
  type: 'object',
  required: ['data', 'page', 'limit', 'total'],
  properties: { data: { type: 'array', items: ref(item) }, page: { type: 'integer' }, limit: { type: 'integer' }, total: { type: 'integer' } },
});

/** Builds the document; `simulator` adds the dev endpoints. */
export function buildOpenApi(options: { publicUrl: string; simulator: boolean }): JsonObject {
  const components = z.toJSONSchema(z.globalRegistry, { uri: (id) => `#/components/schemas/${id}`, unrepresentable: 'any' }) as { schemas: Record<string, JsonObject> };
  for (const schema of Object.values(components.schemas)) {
    delete schema.$schema;
    delete schema.$id;
  }
  // Without the simulator its routes do not exist, and neither do their bodies.
  if (!options.simulator) for (const schema of SIMULATOR_SCHEMAS) delete components.schemas[(schema.meta() as { id: string }).id];
  const merchantOnly = { security: [{ apiKey: [] }] };
  const signed = { security: [{ apiKey: [], hmac: [] }] };
  const paths: JsonObject = {
    '/payment': {
      post: {
        summary: 'Create a payment',
        ...signed,
        parameters: [idempotencyKeyParameter],
        requestBody: signedBody(CreatePaymentInput),
        responses: { 200: { description: 'The new payment, OPEN.', content: json(ref(PaymentOutput)) }, ...errors(400, 401, 409, 413, 415, 422, 429, 503) },
      },
      get: {
        summary: 'List payments, newest first',
        ...merchantOnly,
        parameters: queryParameters(ListPaymentsQuery),
        responses: { 200: { description: 'One page.', content: json(list(PaymentOutput)) }, ...errors(400, 401, 429, 503) },
      },
    },
    '/payment/{id}': {
      get: { summary: 'Get a payment', ...merchantOnly, parameters: [idParameter('payment')], responses: { 200: { description: 'The payment.', content: json(ref(PaymentOutput)) }, ...errors(401, 404, 429, 503) } },
    },
    '/withdrawal': {
      post: {
        summary: 'Create a withdrawal (reserves the amount)',
        ...signed,
        parameters: [idempotencyKeyParameter],
        requestBody: signedBody(CreateWithdrawalInput),
        responses: { 200: { description: 'The new withdrawal, OPEN.', content: json(ref(WithdrawalOutput)) }, ...errors(400, 401, 409, 413, 415, 422, 429, 503) },
      },
      get: {
        summary: 'List withdrawals, newest first',
        ...merchantOnly,
        parameters: queryParameters(ListWithdrawalsQuery),
        responses: { 200: { description: 'One page.', content: json(list(WithdrawalOutput)) }, ...errors(400, 401, 429, 503) },
      },
    },
    '/withdrawal/{id}': {
      get: { summary: 'Get a withdrawal', ...merchantOnly, parameters: [idParameter('withdrawal')], responses: { 200: { description: 'The withdrawal.', content: json(ref(WithdrawalOutput)) }, ...errors(401, 404, 429, 503) } },
    },
    '/withdrawal/{id}/approve': {
      post: {
        summary: 'Extension: approve an OPEN withdrawal and send it',
        ...signed,
        parameters: [idParameter('withdrawal'), idempotencyKeyParameter],
        requestBody: signedBody(WithdrawalActionInput),
        responses: { 200: { description: 'The withdrawal, APPROVED, with txnId once broadcast.', content: json(ref(WithdrawalOutput)) }, ...errors(400, 401, 404, 409, 422, 429, 503) },
      },
    },
    '/withdrawal/{id}/cancel': {
      post: {
        summary: 'Extension: cancel an OPEN withdrawal (releases the reservation)',
        ...signed,
        parameters: [idParameter('withdrawal'), idempotencyKeyParameter],
        requestBody: signedBody(WithdrawalActionInput),
        responses: { 200: { description: 'The withdrawal, CANCELLED.', content: json(ref(WithdrawalOutput)) }, ...errors(400, 401, 404, 409, 422, 429, 503) },
      },
    },
    '/assets': {
      get: {
        summary: 'Extension: the served assets (public, CORS open), with confirmations needed and withdrawal fees',
        responses: { 200: { description: 'Every asset/network pair this service accepts and pays out.', content: json(ref(AssetListOutput)) } },
      },
    },
    '/balance': {
      get: { summary: 'Extension: balances per asset', ...merchantOnly, responses: { 200: { description: 'Available and reserved per asset.', content: json(ref(BalanceOutput)) }, ...errors(401, 429, 503) } },
    },
    '/webhooks': {
      post: {
        summary: 'Register a webhook endpoint (Standard Webhooks 1.0); the answer shows its signing secret, once',
        ...signed,
        parameters: [idempotencyKeyParameter],
        requestBody: signedBody(CreateWebhookInput),
        responses: { 200: { description: 'The endpoint, with `secret`.', content: json(ref(CreatedWebhookOutput)) }, ...errors(400, 401, 409, 413, 415, 422, 429, 503) },
      },
      get: {
        summary: 'List webhook endpoints (no secrets)',
        ...merchantOnly,
        responses: { 200: { description: 'Every endpoint of the merchant.', content: json(list(WebhookOutput)) }, ...errors(401, 429, 503) },
      },
    },
    '/webhooks/{id}': {
      delete: {
        summary: 'Remove a webhook endpoint (X-HMAC over the empty body)',
        ...signed,
        parameters: [idParameter('webhook endpoint')],
        responses: { 204: { description: 'Removed; nothing more is sent to it.' }, ...errors(401, 404, 429, 503) },
      },
    },
    '/webhooks/{id}/deliveries': {
      get: {
        summary: 'The delivery log of an endpoint: every attempt, newest first',
        ...merchantOnly,
        parameters: [idParameter('webhook endpoint'), ...queryParameters(ListDeliveriesQuery)],
        responses: { 200: { description: 'One page of attempts.', content: json(list(WebhookDeliveryOutput)) }, ...errors(400, 401, 404, 429, 503) },
      },
    },
    '/webhooks/{id}/deliveries/{deliveryId}/redeliver': {
      post: {
        summary: 'Send an attempt\'s event again now, as a new attempt with the same webhook-id (X-HMAC over the body sent, usually empty)',
        ...signed,
        parameters: [idParameter('webhook endpoint'), { name: 'deliveryId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' }, description: 'An attempt id from the delivery log.' }],
        responses: { 200: { description: 'The new attempt; a 2xx answer enables an endpoint a 410 disabled.', content: json(ref(WebhookDeliveryOutput)) }, ...errors(401, 404, 429, 503) },
      },
    },
    '/checkout/{id}': {
      get: {
        summary: 'Extension: the payer-safe view of a payment (public, CORS open, ETag)',
        parameters: [idParameter('payment')],
        responses: { 200: { description: 'The view.', content: json(ref(CheckoutOutput)) }, 304: { description: 'Not modified (If-None-Match).' }, ...errors(404, 429, 503) },
      },
    },
    '/checkout/{id}/events': {
      get: {
        summary: 'Extension: server-sent `payment` events with the checkout view on every change; closes after COMPLETE or EXPIRED',
        parameters: [idParameter('payment')],
        responses: {
          200: { description: 'text/event-stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          ...errors(404, 429, 503),
        },
      },
    },
  };
  if (options.simulator) {
    paths['/dev/transactions'] = {
      post: {
        summary: 'Simulator: a payer sends a transaction (unauthenticated; never in production)',
        requestBody: { required: true, content: json(ref(SimulatedTransactionInput)) },
        responses: { 200: { description: 'The simulated transaction, with its txnId.' }, ...errors(400) },
      },
    };
    paths['/dev/transactions/{txnId}/drop'] = {
      post: {
        summary: 'Simulator: drop an unconfirmed payer transaction from the mempool',
        parameters: [{ name: 'txnId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { 200: { description: 'Dropped.' }, ...errors(404, 409) },
      },
    };
    paths['/dev/blocks'] = {
      post: {
        summary: 'Simulator: mine blocks, adding confirmations',
        requestBody: { required: true, content: json(ref(MineBlocksInput)) },
        responses: { 200: { description: 'New heights.' }, ...errors(400) },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Crypto checkout API',
      version: '2',
      description:
        'Payments and withdrawals for merchants. Every merchant endpoint needs the API-KEY header; POSTs also X-HMAC, the lowercase or uppercase hex HMAC-SHA256 of the exact body bytes keyed with the secret key, and may carry an Idempotency-Key. Amounts are decimal strings. Rate-limited routes answer with `RateLimit-Policy` and `RateLimit` headers (IETF httpapi draft) and, past the limit, 429 rate-limited with Retry-After; the payer event stream is also capped per client address and per instance (429 as well).',
    },
    servers: [{ url: `${options.publicUrl}/v2` }],
    components: {
      ...components,
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'API-KEY' },
        hmac: { type: 'apiKey', in: 'header', name: 'X-HMAC', description: 'hex(HMAC-SHA256(secretKey, raw body bytes))' },
      },
    },
    paths,
    // What this service POSTs to merchants' endpoints.
    webhooks: Object.fromEntries(
      WEBHOOK_EVENT_TYPES.map((type) => [
        type,
        {
          post: {
            summary: `${type}: signed with webhook-id, webhook-timestamp and webhook-signature (Standard Webhooks 1.0)`,
            requestBody: { required: true, content: json(ref(WebhookEventOutput)) },
            responses: { 200: { description: 'Any 2xx within 15 s acknowledges it; anything else is retried for more than three days, and 410 disables the endpoint.' } },
          },
        },
      ]),
    ),
  };
}
