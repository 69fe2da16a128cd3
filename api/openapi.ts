/**
 * @module The OpenAPI 3.1 document, generated from the very zod schemas that validate requests
 * and describe responses, so the document and the behaviour cannot drift apart. Every operation
 * lists each status it can answer with and, for errors, the codes that status carries there; the
 * document passes `redocly lint` with the recommended rules (npm test runs it).
 */
import { z } from 'zod';
import { CheckoutOutput } from './checkout/checkout.schema.ts';
import { AssetListOutput } from './networks/asset.schema.ts';
import { CreatePaymentInput, ExportPaymentsQuery, ListPaymentsQuery, PaymentOutput } from './payments/payment.schema.ts';
import { RatesOutput, RatesQuery } from './rates/rates.schema.ts';
import { CreateRefundInput, ListRefundsQuery, RefundActionInput, RefundOutput } from './refunds/refund.schema.ts';
import { DroppedTransactionOutput, MineBlocksInput, MinedBlocksOutput, SimulatedTransactionInput, SimulatedTransactionOutput } from './simulator/simulator.schema.ts';
import { CreateWebhookInput, CreatedWebhookOutput, ListDeliveriesQuery, WEBHOOK_EVENT_TYPES, WebhookDeliveryOutput, WebhookOutput } from './webhooks/webhook.schema.ts';
import { BalanceOutput, CreateWithdrawalInput, ListWithdrawalsQuery, WithdrawalActionInput, WithdrawalOutput } from './withdrawals/withdrawal.schema.ts';
import { ErrorOutput, Timestamp } from './shared/common.schema.ts';

/** The body POSTed to an endpoint (documentation: the service builds it, never parses it). */
const WebhookEventOutput = z
  .object({
    type: z.enum(WEBHOOK_EVENT_TYPES),
    timestamp: Timestamp.meta({ description: 'When the change happened.' }),
    data: z.union([PaymentOutput, WithdrawalOutput, RefundOutput]).meta({ description: 'The payment (payment.*), withdrawal (withdrawal.*) or refund (refund.*) as GET returned it then.' }),
  })
  .meta({ id: 'WebhookEvent' });

type JsonObject = Record<string, unknown>;
/** The error statuses of one operation, each with the codes it carries there. */
type Failures = Partial<Record<number, string>>;

const SIMULATOR_SCHEMAS: z.ZodType[] = [SimulatedTransactionInput, MineBlocksInput, SimulatedTransactionOutput, DroppedTransactionOutput, MinedBlocksOutput];

const ref = (schema: z.ZodType): JsonObject => ({ $ref: `#/components/schemas/${(schema.meta() as { id: string }).id}` });
const json = (schema: JsonObject) => ({ 'application/json': { schema } });
const errors = (failures: Failures) =>
  Object.fromEntries(Object.entries(failures).map(([status, description]) => [status, { description, content: json(ref(ErrorOutput)) }]));

// What every operation that reads the database can answer, whoever calls it.
const ALWAYS: Failures = {
  500: 'internal-error: something unexpected; the answer carries no detail (the log has it, under the X-Request-Id)',
  503: 'database-unavailable (PostgreSQL unreachable), storage-unavailable (the SQLite file cannot be written) or service-starting (a request that came while the service started, and waited 10 s): try again after `Retry-After` seconds',
};
const LIMITED: Failures = { 429: 'rate-limited: over the per-minute limit; `Retry-After` says when to try again' };
const BY_KEY: Failures = { 401: 'missing-api-key or invalid-api-key', ...LIMITED, ...ALWAYS };
const SIGNED: Failures = { ...BY_KEY, 401: 'missing-api-key, invalid-api-key, missing-signature or invalid-signature (X-HMAC over the exact body bytes)' };
const JSON_BODY: Failures = { 413: 'payload-too-large: the body is over 64 KiB', 415: 'unsupported-media-type: send Content-Type: application/json (UTF-8)' };
const RAW_BODY: Failures = { 413: 'payload-too-large: the body is over 64 KiB' };
const IDEMPOTENT = {
  409: 'idempotency-key-in-use: the first request with this Idempotency-Key is still running',
  422: 'idempotency-key-reused: this Idempotency-Key came with other bytes before',
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
    // page and limit arrive as strings and are read as whole numbers: documented as the integers they are.
    if (fieldSchema.type === 'integer') delete fieldSchema.pattern;
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

const uuidParameter = (name: string, description: string) => ({ name, in: 'path', required: true, schema: { type: 'string', format: 'uuid' }, description });
const idParameter = (what: string) => uuidParameter('id', `The ${what} id.`);
const list = (item: z.ZodType) => ({
  type: 'object',
  required: ['data', 'page', 'limit', 'total'],
  properties: {
    data: { type: 'array', items: ref(item) },
    page: { type: 'integer', minimum: 0 },
    limit: { type: 'integer', minimum: 1 },
    total: { type: 'integer', minimum: 0 },
  },
});

/** Builds the document; `simulator` adds the dev endpoints. */
export function buildOpenApi(options: { publicUrl: string; simulator: boolean }): JsonObject {
  const components = z.toJSONSchema(z.globalRegistry, { uri: (id) => `#/components/schemas/${id}`, unrepresentable: 'any' }) as { schemas: Record<string, JsonObject> };
  for (const schema of Object.values(components.schemas)) {
    delete schema.$schema;
    delete schema.$id;
  }
  // A payment is priced in the asset (amount) or in a fiat currency (price): exactly one (section 16).
  const createPayment = components.schemas[(CreatePaymentInput.meta() as { id: string }).id]!;
  createPayment.oneOf = [{ required: ['amount'] }, { required: ['price'] }];
  // Without the simulator its routes do not exist, and neither do their bodies.
  if (!options.simulator) for (const schema of SIMULATOR_SCHEMAS) delete components.schemas[(schema.meta() as { id: string }).id];
  const byKey = { security: [{ apiKey: [] }] };
  const signed = { security: [{ apiKey: [], hmac: [] }] };
  const open = { security: [] };
  const paths: JsonObject = {
    '/payment': {
      post: {
        operationId: 'createPayment',
        summary: 'Create a payment',
        ...signed,
        parameters: [idempotencyKeyParameter],
        requestBody: signedBody(CreatePaymentInput),
        responses: {
          200: { description: 'The new payment, OPEN.', content: json(ref(PaymentOutput)) },
          ...errors({
            400: 'validation-failed (every bad field in `details`; also both or neither of `amount` and `price`), invalid-json, unsupported-asset, or unsupported-currency (every rate source answered and none quotes the asset in that currency)',
            ...SIGNED,
            ...IDEMPOTENT,
            ...JSON_BODY,
            503: `${ALWAYS[503]}; or rates-unavailable: no fresh quote for a \`price\` in that currency (every source down, slow or answering garbage); nothing was created, \`Retry-After\` is the refresh period`,
          }),
        },
      },
      get: {
        operationId: 'listPayments',
        summary: 'List payments, newest first',
        ...byKey,
        parameters: queryParameters(ListPaymentsQuery),
        responses: { 200: { description: 'One page.', content: json(list(PaymentOutput)) }, ...errors({ 400: 'validation-failed: a filter, page or limit out of range', ...BY_KEY }) },
      },
    },
    '/payment/{id}': {
      get: {
        operationId: 'getPayment',
        summary: 'Get a payment',
        ...byKey,
        parameters: [idParameter('payment')],
        responses: { 200: { description: 'The payment.', content: json(ref(PaymentOutput)) }, ...errors({ 404: 'payment-not-found (also for another merchant\'s id)', ...BY_KEY }) },
      },
    },
    '/withdrawal': {
      post: {
        operationId: 'createWithdrawal',
        summary: 'Create a withdrawal (reserves the amount)',
        ...signed,
        parameters: [idempotencyKeyParameter],
        requestBody: signedBody(CreateWithdrawalInput),
        responses: {
          200: { description: 'The new withdrawal, OPEN.', content: json(ref(WithdrawalOutput)) },
          ...errors({
            400: 'validation-failed (every bad field in `details`, the address checked for its network), invalid-json or unsupported-asset',
            ...SIGNED,
            409: 'duplicate-invoice (invoices are unique per merchant), or idempotency-key-in-use',
            422: 'insufficient-funds (the available balance is short), or idempotency-key-reused',
            ...JSON_BODY,
          }),
        },
      },
      get: {
        operationId: 'listWithdrawals',
        summary: 'List withdrawals, newest first',
        ...byKey,
        parameters: queryParameters(ListWithdrawalsQuery),
        responses: { 200: { description: 'One page.', content: json(list(WithdrawalOutput)) }, ...errors({ 400: 'validation-failed: a filter, page or limit out of range', ...BY_KEY }) },
      },
    },
    '/withdrawal/{id}': {
      get: {
        operationId: 'getWithdrawal',
        summary: 'Get a withdrawal',
        ...byKey,
        parameters: [idParameter('withdrawal')],
        responses: { 200: { description: 'The withdrawal.', content: json(ref(WithdrawalOutput)) }, ...errors({ 404: 'withdrawal-not-found (also for another merchant\'s id)', ...BY_KEY }) },
      },
    },
    '/withdrawal/{id}/approve': {
      post: {
        operationId: 'approveWithdrawal',
        summary: 'Extension: approve an OPEN withdrawal and send it',
        ...signed,
        parameters: [idParameter('withdrawal'), idempotencyKeyParameter],
        requestBody: signedBody(WithdrawalActionInput),
        responses: {
          200: { description: 'The withdrawal, APPROVED, with txnId once broadcast.', content: json(ref(WithdrawalOutput)) },
          ...errors({
            400: 'validation-failed (the body must be `{}`) or invalid-json',
            ...SIGNED,
            404: 'withdrawal-not-found',
            409: 'invalid-state (only an OPEN withdrawal can be approved), payouts-disabled (this network cannot pay out here; the message says why), or idempotency-key-in-use',
            422: IDEMPOTENT[422],
            ...JSON_BODY,
          }),
        },
      },
    },
    '/withdrawal/{id}/cancel': {
      post: {
        operationId: 'cancelWithdrawal',
        summary: 'Extension: cancel an OPEN withdrawal (releases the reservation)',
        ...signed,
        parameters: [idParameter('withdrawal'), idempotencyKeyParameter],
        requestBody: signedBody(WithdrawalActionInput),
        responses: {
          200: { description: 'The withdrawal, CANCELLED.', content: json(ref(WithdrawalOutput)) },
          ...errors({
            400: 'validation-failed (the body must be `{}`) or invalid-json',
            ...SIGNED,
            404: 'withdrawal-not-found',
            409: 'invalid-state (only an OPEN withdrawal can be cancelled), or idempotency-key-in-use',
            422: IDEMPOTENT[422],
            ...JSON_BODY,
          }),
        },
      },
    },
    '/payment/{id}/refund': {
      post: {
        operationId: 'refundPayment',
        summary: 'Extension: refund a payment (reserves the amount from the balance)',
        ...signed,
        parameters: [idParameter('payment'), idempotencyKeyParameter],
        requestBody: signedBody(CreateRefundInput),
        responses: {
          200: { description: 'The new refund: APPROVED (with addressTo, paid out at once) or AWAITING_ADDRESS (send the payer its claimUrl).', content: json(ref(RefundOutput)) },
          ...errors({
            400: 'validation-failed (every bad field in `details`: the address checked for the payment\'s network; `amount` required on an exactly paid payment), invalid-json, or unsupported-currency (a `price` in a currency no rate source quotes the asset in)',
            ...SIGNED,
            404: 'payment-not-found (also for another merchant\'s id)',
            409: 'payouts-disabled (this network cannot pay out here), refund-already-requested (a payer\'s request waits and holds what this refund would need: approve or cancel it first), or idempotency-key-in-use',
            422: 'refund-exceeds-payment (more than refundableAmount), insufficient-funds (the available balance is short), or idempotency-key-reused',
            503: `${ALWAYS[503]}; or rates-unavailable: no fresh quote for a \`price\` in that currency; nothing was created, \`Retry-After\` is the refresh period`,
            ...JSON_BODY,
          }),
        },
      },
    },
    '/refund': {
      get: {
        operationId: 'listRefunds',
        summary: 'Extension: list refunds, newest first',
        ...byKey,
        parameters: queryParameters(ListRefundsQuery),
        responses: { 200: { description: 'One page.', content: json(list(RefundOutput)) }, ...errors({ 400: 'validation-failed: a filter, page or limit out of range', ...BY_KEY }) },
      },
    },
    '/refund/{id}': {
      get: {
        operationId: 'getRefund',
        summary: 'Extension: get a refund',
        ...byKey,
        parameters: [idParameter('refund')],
        responses: { 200: { description: 'The refund.', content: json(ref(RefundOutput)) }, ...errors({ 404: 'refund-not-found (also for another merchant\'s id)', ...BY_KEY }) },
      },
    },
    '/refund/{id}/approve': {
      post: {
        operationId: 'approveRefund',
        summary: 'Extension: approve a REQUESTED refund (reserves the amount and pays it out)',
        ...signed,
        parameters: [idParameter('refund'), idempotencyKeyParameter],
        requestBody: signedBody(RefundActionInput),
        responses: {
          200: { description: 'The refund, APPROVED, with withdrawalId (and txnId once broadcast).', content: json(ref(RefundOutput)) },
          ...errors({
            400: 'validation-failed (the body must be `{}`) or invalid-json',
            ...SIGNED,
            404: 'refund-not-found',
            409: 'invalid-state (only a REQUESTED refund can be approved), payouts-disabled, or idempotency-key-in-use',
            422: 'insufficient-funds, or idempotency-key-reused',
            ...JSON_BODY,
          }),
        },
      },
    },
    '/refund/{id}/cancel': {
      post: {
        operationId: 'cancelRefund',
        summary: 'Extension: cancel a refund before its payout is signed (releases the reservation)',
        ...signed,
        parameters: [idParameter('refund'), idempotencyKeyParameter],
        requestBody: signedBody(RefundActionInput),
        responses: {
          200: { description: 'The refund, CANCELLED.', content: json(ref(RefundOutput)) },
          ...errors({
            400: 'validation-failed (the body must be `{}`) or invalid-json',
            ...SIGNED,
            404: 'refund-not-found',
            409: 'invalid-state (COMPLETE, CANCELLED, or its payout is signed), or idempotency-key-in-use',
            422: IDEMPOTENT[422],
            ...JSON_BODY,
          }),
        },
      },
    },
    '/assets': {
      get: {
        operationId: 'listAssets',
        summary: 'Extension: the served assets (public, CORS open), with confirmations needed, withdrawal fees and minimums',
        ...open,
        responses: {
          200: { description: 'Every asset/network pair this service accepts and pays out.', content: json(ref(AssetListOutput)) },
          ...errors({ 429: 'rate-limited: over the per-minute limit of this client address; `Retry-After` says when to try again', 500: ALWAYS[500] }),
        },
      },
    },
    '/rates': {
      get: {
        operationId: 'listRates',
        summary: 'Extension: the current rate of every served asset in a fiat currency (median of the fresh quotes, before any spread)',
        ...byKey,
        parameters: queryParameters(RatesQuery),
        responses: {
          200: { description: 'Every served asset that has a fresh rate; a currency no source quotes lists none.', content: json(ref(RatesOutput)) },
          ...errors({ 400: 'validation-failed: `currency` is not an ISO 4217 code', ...BY_KEY }),
        },
      },
    },
    '/balance': {
      get: {
        operationId: 'getBalance',
        summary: 'Extension: balances per asset',
        ...byKey,
        responses: { 200: { description: 'Available and reserved per asset.', content: json(ref(BalanceOutput)) }, ...errors(BY_KEY) },
      },
    },
    '/reports/payments.csv': {
      get: {
        operationId: 'exportPayments',
        summary: 'Extension: payments created in [from, to) as RFC 4180 CSV, one row per transaction, streamed',
        description:
          'Columns: paymentId, invoice, status, exception, asset, network, amount, priceAmount, priceCurrency, rate, txnId, receivedAmount, confirmations, date, late, createdAt. A payment without a transaction has one row with empty transaction cells. A cell beginning with =, +, -, @, tab or carriage return is prefixed with an apostrophe.',
        ...byKey,
        parameters: queryParameters(ExportPaymentsQuery),
        responses: { 200: { description: 'The report, with a header row.', content: { 'text/csv': { schema: { type: 'string' } } } }, ...errors({ 400: 'validation-failed: from and to must be ISO times, to later than from', ...BY_KEY }) },
      },
    },
    '/webhooks': {
      post: {
        operationId: 'createWebhook',
        summary: 'Register a webhook endpoint (Standard Webhooks 1.0); the answer shows its signing secret, once',
        ...signed,
        parameters: [idempotencyKeyParameter],
        requestBody: signedBody(CreateWebhookInput),
        responses: {
          200: { description: 'The endpoint, with `secret`.', content: json(ref(CreatedWebhookOutput)) },
          ...errors({
            400: 'validation-failed (a bad URL, one that is not allowed here, or an unknown event type) or invalid-json',
            ...SIGNED,
            409: 'webhook-limit-reached (20 endpoints per merchant), or idempotency-key-in-use',
            422: IDEMPOTENT[422],
            ...JSON_BODY,
          }),
        },
      },
      get: {
        operationId: 'listWebhooks',
        summary: 'List webhook endpoints (no secrets)',
        ...byKey,
        responses: { 200: { description: 'Every endpoint of the merchant.', content: json(list(WebhookOutput)) }, ...errors(BY_KEY) },
      },
    },
    '/webhooks/{id}': {
      delete: {
        operationId: 'deleteWebhook',
        summary: 'Remove a webhook endpoint (X-HMAC over the empty body)',
        ...signed,
        parameters: [idParameter('webhook endpoint')],
        responses: { 204: { description: 'Removed; nothing more is sent to it.' }, ...errors({ ...SIGNED, 404: 'webhook-not-found', ...RAW_BODY }) },
      },
    },
    '/webhooks/{id}/deliveries': {
      get: {
        operationId: 'listWebhookDeliveries',
        summary: 'The delivery log of an endpoint: every attempt, newest first',
        ...byKey,
        parameters: [idParameter('webhook endpoint'), ...queryParameters(ListDeliveriesQuery)],
        responses: {
          200: { description: 'One page of attempts.', content: json(list(WebhookDeliveryOutput)) },
          ...errors({ 400: 'validation-failed: page or limit out of range', ...BY_KEY, 404: 'webhook-not-found' }),
        },
      },
    },
    '/webhooks/{id}/deliveries/{deliveryId}/redeliver': {
      post: {
        operationId: 'redeliverWebhook',
        summary: 'Send an attempt\'s event again now, as a new attempt with the same webhook-id (X-HMAC over the body sent, usually empty)',
        ...signed,
        parameters: [idParameter('webhook endpoint'), uuidParameter('deliveryId', 'An attempt id from the delivery log.')],
        responses: {
          200: { description: 'The new attempt; a 2xx answer enables an endpoint a 410 disabled.', content: json(ref(WebhookDeliveryOutput)) },
          ...errors({ ...SIGNED, 404: 'webhook-not-found or delivery-not-found', 409: 'invalid-state: an event is being sent to the endpoint now; redeliver again in a few seconds', ...RAW_BODY }),
        },
      },
    },
    '/checkout/{id}': {
      get: {
        operationId: 'getCheckout',
        summary: 'Extension: the payer-safe view of a payment (public, CORS open, ETag)',
        ...open,
        parameters: [idParameter('payment')],
        responses: {
          200: { description: 'The view.', content: json(ref(CheckoutOutput)) },
          304: { description: 'Not modified (If-None-Match).' },
          ...errors({ 404: 'payment-not-found', 429: 'rate-limited: over the per-minute limit of this client address', ...ALWAYS }),
        },
      },
    },
    '/checkout/{id}/events': {
      get: {
        operationId: 'streamCheckoutEvents',
        summary: 'Extension: server-sent `payment` events with the checkout view on every change; closes after COMPLETE or EXPIRED',
        ...open,
        parameters: [idParameter('payment')],
        responses: {
          200: { description: 'text/event-stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          ...errors({ 404: 'payment-not-found', 429: 'rate-limited: over the per-minute limit, or too many open streams from this address or on this instance', ...ALWAYS }),
        },
      },
    },
  };
  if (options.simulator) {
    paths['/dev/transactions'] = {
      post: {
        operationId: 'simulateTransaction',
        summary: 'Simulator: a payer sends a transaction (unauthenticated; never in production)',
        ...open,
        requestBody: { required: true, content: json(ref(SimulatedTransactionInput)) },
        responses: {
          200: { description: 'The simulated transaction, with its txnId.', content: json(ref(SimulatedTransactionOutput)) },
          ...errors({ 400: 'validation-failed, invalid-json or unsupported-asset', ...JSON_BODY, ...ALWAYS }),
        },
      },
    };
    paths['/dev/transactions/{txnId}/drop'] = {
      post: {
        operationId: 'dropSimulatedTransaction',
        summary: 'Simulator: drop an unconfirmed payer transaction from the mempool',
        ...open,
        parameters: [{ name: 'txnId', in: 'path', required: true, schema: { type: 'string' }, description: 'The simulated transaction id.' }],
        responses: {
          200: { description: 'Dropped.', content: json(ref(DroppedTransactionOutput)) },
          ...errors({ 404: 'not-found: no such transaction in a mempool', 409: 'invalid-state: only an unconfirmed payer transaction can be dropped', ...ALWAYS }),
        },
      },
    };
    paths['/dev/blocks'] = {
      post: {
        operationId: 'mineBlocks',
        summary: 'Simulator: mine blocks, adding confirmations',
        ...open,
        requestBody: { required: true, content: json(ref(MineBlocksInput)) },
        responses: {
          200: { description: 'New heights.', content: json(ref(MinedBlocksOutput)) },
          ...errors({ 400: 'validation-failed (an unknown network, a count out of range) or invalid-json', ...JSON_BODY, ...ALWAYS }),
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Crypto checkout API',
      version: '2',
      license: { name: 'Proprietary: all rights reserved', identifier: 'LicenseRef-Proprietary' },
      description:
        'Payments and withdrawals for merchants. Every merchant endpoint needs the API-KEY header; POSTs (and DELETE) also X-HMAC, the lowercase or uppercase hex HMAC-SHA256 of the exact body bytes keyed with the secret key, and POSTs may carry an Idempotency-Key. Amounts are decimal strings. Rate-limited routes answer with `RateLimit-Policy` and `RateLimit` headers (IETF httpapi draft) and, past the limit, 429 rate-limited with Retry-After; the payer event stream is also capped per client address and per instance (429 as well). A known path asked with a method it does not take answers 405 method-not-allowed with `Allow`.',
    },
    // Absolute, from PUBLIC_URL: a generated client works with no base URL set by hand.
    servers: [{ url: `${options.publicUrl}/v2`, description: 'This service (PUBLIC_URL)' }],
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
            operationId: `${type.replace(/[.-](\w)/g, (_m, c: string) => c.toUpperCase())}Event`,
            summary: `${type}: signed with webhook-id, webhook-timestamp and webhook-signature (Standard Webhooks 1.0)`,
            ...open,
            requestBody: { required: true, content: json(ref(WebhookEventOutput)) },
            responses: {
              200: { description: 'Any 2xx within 15 s acknowledges it; anything else is retried for more than three days.' },
              410: { description: 'Gone: the endpoint is disabled and receives nothing more.' },
            },
          },
        },
      ]),
    ),
  };
}
