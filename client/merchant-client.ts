/**
 * @module The merchant API client: one method per endpoint, each POST body serialised once and
 * signed over exactly the bytes sent, typed records back, lists as pages or as async iterators,
 * and every failure as a CheckoutApiError.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { CheckoutApiError } from './errors.ts';
import type {
  AssetBalance,
  AssetInfo,
  CreatedWebhook,
  CreatePaymentRequest,
  CreateWebhookRequest,
  CreateWithdrawalRequest,
  ListPaymentsQuery,
  ListWithdrawalsQuery,
  Page,
  Payment,
  PaymentFilters,
  Rates,
  Webhook,
  WebhookDelivery,
  Withdrawal,
  WithdrawalFilters,
} from './types.ts';

/** How the client reaches the service and who it is. */
export interface MerchantClientOptions {
  /** The service's URL, like "https://pay.example.com" (a trailing "/v2" is accepted too). */
  baseUrl: string;
  /** Your API key, sent as API-KEY on every call. */
  apiKey: string;
  /** Your secret key; it signs POST bodies and is never sent. */
  secretKey: string;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof globalThis.fetch;
  /** Milliseconds to wait for a whole answer before giving up with `timeout` (default 30000). */
  timeout?: number;
  /**
   * How many times to retry a call that got no answer (`network-error`, `timeout`), a `503`, a
   * `429 rate-limited` or a `409 idempotency-key-in-use` (default 0: off). Waits 0.5 s, 1 s, 2 s, …
   * (at most 30 s), or what `Retry-After` says. Safe for POSTs: a retry reuses the call's
   * Idempotency-Key, so the service acts at most once.
   */
  retries?: number;
}

/** Per-call options of the POST methods. */
export interface PostOptions {
  /**
   * The Idempotency-Key to send (1–255 printable ASCII characters). Default: a fresh random key per
   * call, reused by the client's own retries. Pass your own (an order number, say) to make a call
   * safe to repeat across process restarts too.
   */
  idempotencyKey?: string;
}

/** The hex HMAC-SHA256 of a body, keyed with the secret key: the X-HMAC header of a POST. */
export function signBody(body: string | Uint8Array, secretKey: string): string {
  return createHmac('sha256', secretKey).update(body).digest('hex');
}

const DEFAULT_TIMEOUT_MS = 30_000;
const RETRY_BASE_MS = 500;
const RETRY_MAX_MS = 30_000;
const RETRYABLE = new Set(['network-error', 'timeout', 'database-unavailable', 'storage-unavailable', 'rate-limited', 'idempotency-key-in-use']);
const USER_AGENT = 'crypto-checkout-client/0.1';
type Method = 'GET' | 'POST' | 'DELETE';
// A POST that sends no body (a redelivery): signed over the empty body.
const EMPTY_BODY = Object.freeze({});

/** A client for one merchant's backend; keep the secret key on the server, never in a browser. */
export class MerchantClient {
  readonly #apiBase: string;
  readonly #apiKey: string;
  readonly #secretKey: string;
  readonly #fetch: typeof globalThis.fetch;
  readonly #timeout: number;
  readonly #retries: number;

  /** Checks the options; a missing key or a URL that is not http(s) throws a TypeError here. */
  constructor(options: MerchantClientOptions) {
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw new TypeError(`baseUrl must be an absolute http(s) URL, got ${JSON.stringify(options.baseUrl)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`baseUrl must start with http:// or https://, got ${JSON.stringify(options.baseUrl)}`);
    if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new TypeError('apiKey is required');
    if (typeof options.secretKey !== 'string' || options.secretKey === '') throw new TypeError('secretKey is required');
    const timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isInteger(timeout) || timeout <= 0) throw new TypeError(`timeout must be a positive whole number of milliseconds, got ${timeout}`);
    const retries = options.retries ?? 0;
    if (!Number.isInteger(retries) || retries < 0 || retries > 10) throw new TypeError(`retries must be a whole number from 0 to 10, got ${retries}`);
    this.#retries = retries;
    const root = `${url.origin}${url.pathname}`.replace(/\/+$/, '');
    this.#apiBase = root.endsWith('/v2') ? root : `${root}/v2`;
    this.#apiKey = options.apiKey;
    this.#secretKey = options.secretKey;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#timeout = timeout;
  }

  /** POST /v2/payment: creates a payment for the payer to pay. */
  async createPayment(request: CreatePaymentRequest, options: PostOptions = {}): Promise<Payment> {
    return this.#send<Payment>('POST', '/payment', request, 'merchant', options);
  }

  /** GET /v2/payment/:id: the payment's current record; the source of truth for fulfilling an order. */
  async getPayment(id: string): Promise<Payment> {
    return this.#send<Payment>('GET', `/payment/${recordId(id, 'payment-not-found', 'payment')}`);
  }

  /** GET /v2/payment: one page of payments, newest first; `page` starts at 1. */
  async listPayments(query: ListPaymentsQuery = {}): Promise<Page<Payment>> {
    return this.#send<Page<Payment>>('GET', `/payment${queryString(query)}`);
  }

  /** Every payment matching the filters, newest first, fetching page after page (from page 1) as you iterate. */
  payments(filters: PaymentFilters = {}): AsyncGenerator<Payment, void, undefined> {
    return this.#everyRecord((page) => this.listPayments({ ...filters, page }), 1);
  }

  /** POST /v2/withdrawal: reserves the amount from the balance and opens a withdrawal. */
  async createWithdrawal(request: CreateWithdrawalRequest, options: PostOptions = {}): Promise<Withdrawal> {
    return this.#send<Withdrawal>('POST', '/withdrawal', request, 'merchant', options);
  }

  /** GET /v2/withdrawal/:id. */
  async getWithdrawal(id: string): Promise<Withdrawal> {
    return this.#send<Withdrawal>('GET', `/withdrawal/${recordId(id, 'withdrawal-not-found', 'withdrawal')}`);
  }

  /** GET /v2/withdrawal: one page of withdrawals, newest first; `page` starts at 0. */
  async listWithdrawals(query: ListWithdrawalsQuery = {}): Promise<Page<Withdrawal>> {
    return this.#send<Page<Withdrawal>>('GET', `/withdrawal${queryString(query)}`);
  }

  /** Every withdrawal matching the filters, newest first, fetching page after page (from page 0) as you iterate. */
  withdrawals(filters: WithdrawalFilters = {}): AsyncGenerator<Withdrawal, void, undefined> {
    return this.#everyRecord((page) => this.listWithdrawals({ ...filters, page }), 0);
  }

  /** POST /v2/withdrawal/:id/approve: sends an OPEN withdrawal through its network. */
  async approveWithdrawal(id: string, options: PostOptions = {}): Promise<Withdrawal> {
    return this.#send<Withdrawal>('POST', `/withdrawal/${recordId(id, 'withdrawal-not-found', 'withdrawal')}/approve`, {}, 'merchant', options);
  }

  /** POST /v2/withdrawal/:id/cancel: cancels an OPEN withdrawal and releases its reservation. */
  async cancelWithdrawal(id: string, options: PostOptions = {}): Promise<Withdrawal> {
    return this.#send<Withdrawal>('POST', `/withdrawal/${recordId(id, 'withdrawal-not-found', 'withdrawal')}/cancel`, {}, 'merchant', options);
  }

  /** GET /v2/balance: available and reserved amounts, one row per asset ever credited. */
  async getBalance(): Promise<AssetBalance[]> {
    return (await this.#send<{ data: AssetBalance[] }>('GET', '/balance')).data;
  }

  /** GET /v2/assets (public): the assets the service accepts, to offer payers a choice. */
  async assets(): Promise<AssetInfo[]> {
    return (await this.#send<{ data: AssetInfo[] }>('GET', '/assets', undefined, 'public')).data;
  }

  /** GET /v2/rates: the current rate of every served asset in a currency (default USD), as fiat-priced payments are converted (before any spread). */
  async rates(currency = 'USD'): Promise<Rates> {
    return this.#send<Rates>('GET', `/rates?${new URLSearchParams({ currency })}`);
  }

  /** POST /v2/webhooks: registers an endpoint; keep the returned `secret` (shown only now) to verify events. */
  async createWebhook(request: CreateWebhookRequest, options: PostOptions = {}): Promise<CreatedWebhook> {
    return this.#send<CreatedWebhook>('POST', '/webhooks', request, 'merchant', options);
  }

  /** GET /v2/webhooks: the registered endpoints (no secrets), with whether a 410 disabled them. */
  async listWebhooks(): Promise<Webhook[]> {
    return (await this.#send<Page<Webhook>>('GET', '/webhooks')).data;
  }

  /** DELETE /v2/webhooks/:id: removes an endpoint; nothing more is sent to it. */
  async deleteWebhook(id: string): Promise<void> {
    await this.#send<undefined>('DELETE', `/webhooks/${recordId(id, 'webhook-not-found', 'webhook endpoint')}`);
  }

  /** GET /v2/webhooks/:id/deliveries: one page of the endpoint's delivery attempts, newest first; `page` starts at 0. */
  async listDeliveries(id: string, query: { page?: number; limit?: number } = {}): Promise<Page<WebhookDelivery>> {
    return this.#send<Page<WebhookDelivery>>('GET', `/webhooks/${recordId(id, 'webhook-not-found', 'webhook endpoint')}/deliveries${queryString(query)}`);
  }

  /** POST /v2/webhooks/:id/deliveries/:deliveryId/redeliver: sends that attempt's event again now; resolves to the new attempt. */
  async redeliver(id: string, deliveryId: string): Promise<WebhookDelivery> {
    const path = `/webhooks/${recordId(id, 'webhook-not-found', 'webhook endpoint')}/deliveries/${recordId(deliveryId, 'delivery-not-found', 'delivery')}/redeliver`;
    return this.#send<WebhookDelivery>('POST', path, EMPTY_BODY);
  }

  async *#everyRecord<T extends { id: string }>(fetchPage: (page: number) => Promise<Page<T>>, firstPage: number): AsyncGenerator<T, void, undefined> {
    // Lists are newest first, so a record created while paging pushes older ones onto the next
    // page, where they would be seen twice.
    const seen = new Set<string>();
    for (let page = firstPage; ; page++) {
      const result = await fetchPage(page);
      for (const record of result.data) {
        if (seen.has(record.id)) continue;
        seen.add(record.id);
        yield record;
      }
      if (result.data.length === 0 || (page - firstPage + 1) * result.limit >= result.total) return;
    }
  }

  async #send<T>(method: Method, path: string, body?: object, access: 'merchant' | 'public' = 'merchant', options: PostOptions = {}): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': USER_AGENT };
    if (access === 'merchant') headers['API-KEY'] = this.#apiKey;
    let bytes: Uint8Array | undefined;
    if (method === 'DELETE' || body === EMPTY_BODY) {
      // Signed like a POST, over the empty body it sends.
      headers['X-HMAC'] = signBody('', this.#secretKey);
    } else if (body !== undefined) {
      // Serialised once: the signature covers exactly the bytes that go on the wire.
      bytes = new TextEncoder().encode(JSON.stringify(body));
      headers['Content-Type'] = 'application/json';
      headers['X-HMAC'] = signBody(bytes, this.#secretKey);
      // One key per logical call, the same on every retry of it.
      headers['Idempotency-Key'] = options.idempotencyKey ?? randomUUID();
    }
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#attempt<T>(method, path, headers, bytes);
      } catch (err) {
        if (!(err instanceof CheckoutApiError) || attempt >= this.#retries || !RETRYABLE.has(err.code)) throw err;
        const backoff = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** attempt);
        const wait = err.retryAfterSeconds === undefined ? backoff : Math.min(RETRY_MAX_MS, err.retryAfterSeconds * 1000);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  async #attempt<T>(method: Method, path: string, headers: Record<string, string>, bytes: Uint8Array | undefined): Promise<T> {
    const url = this.#apiBase + path;
    const what = `${method} ${url}`;
    let response: Response;
    let text: string;
    try {
      response = await this.#fetch(url, { method, headers, body: bytes, redirect: 'manual', signal: AbortSignal.timeout(this.#timeout) });
      text = await response.text();
    } catch (err) {
      if (isTimeout(err)) {
        throw new CheckoutApiError({ status: 0, code: 'timeout', message: `${what} got no complete answer within ${this.#timeout} ms.`, cause: err });
      }
      const reason = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      throw new CheckoutApiError({ status: 0, code: 'network-error', message: `${what} failed before an answer arrived: ${reason}.`, cause: err });
    }
    return parseAnswer<T>(method, what, response, text);
  }
}

// Every answer of this API but a DELETE's is a record (with its id) or a list (with its data).
const isRecordOrList = (value: object) => typeof (value as { id?: unknown }).id === 'string' || Array.isArray((value as { data?: unknown }).data);

function parseAnswer<T>(method: Method, what: string, response: Response, text: string): T {
  const requestId = response.headers.get('X-Request-Id') ?? undefined;
  const retryAfter = Number(response.headers.get('Retry-After') ?? NaN);
  const retryAfterSeconds = Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined;
  const invalid = (reason: string) =>
    new CheckoutApiError({ status: response.status, code: 'invalid-response', message: `${what} answered ${response.status} ${reason}.`, requestId });
  if (response.status >= 300 && response.status < 400) {
    throw invalid(`with a redirect to ${response.headers.get('Location') ?? '(no location)'}; set baseUrl to the service's final URL`);
  }
  if (method === 'DELETE' && response.ok) return undefined as T;
  if (response.status === 204) throw invalid('with no body, where a record or a list was expected');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const type = response.headers.get('Content-Type') ?? 'no content type';
    throw invalid(`with a body that is not JSON (${type}): ${JSON.stringify(text.slice(0, 120))}`);
  }
  if (typeof parsed !== 'object' || parsed === null) throw invalid('with JSON that is not an object');
  if (response.ok) {
    if (!isRecordOrList(parsed)) throw invalid(`with JSON that is not a record or list of this API: ${JSON.stringify(text.slice(0, 120))}`);
    return parsed as T;
  }
  const error = (parsed as { error?: unknown }).error;
  if (!isErrorBody(error)) throw invalid('with JSON that is not an error of this API');
  throw new CheckoutApiError({ status: response.status, code: error.code as CheckoutApiError['code'], message: error.message, details: error.details ?? [], requestId, retryAfterSeconds });
}

interface ErrorBody {
  code: string;
  message: string;
  details?: Array<{ path: string; message: string }>;
}

function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const { code, message, details } = value as Record<string, unknown>;
  return typeof code === 'string' && typeof message === 'string' && (details === undefined || Array.isArray(details));
}

function isTimeout(err: unknown): boolean {
  return err instanceof Error && err.name === 'TimeoutError';
}

// The server answers 404 for any id it does not know, malformed ones included; an empty id would
// instead address the list endpoint, so it gets the same 404 here.
function recordId(id: string, code: 'payment-not-found' | 'withdrawal-not-found' | 'webhook-not-found' | 'delivery-not-found', noun: string): string {
  if (typeof id !== 'string' || id.trim() === '') {
    throw new CheckoutApiError({ status: 404, code, message: `There is no ${noun} with an empty id.` });
  }
  return encodeURIComponent(id);
}

function queryString(query: ListPaymentsQuery | ListWithdrawalsQuery | { page?: number; limit?: number }): string {
  const params = new URLSearchParams();
  for (const key of ['ids', 'invoices', 'txnIds', 'statuses'] as const) {
    for (const value of (query as ListPaymentsQuery)[key] ?? []) params.append(key, String(value));
  }
  if (query.page !== undefined) params.set('page', String(query.page));
  if (query.limit !== undefined) params.set('limit', String(query.limit));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}
