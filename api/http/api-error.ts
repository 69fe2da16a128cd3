/** One field that failed validation, named by its dotted path in the request. */
export interface FieldError {
  path: string;
  message: string;
}

/** Every stable error code the API answers with. */
export type ErrorCode =
  | 'validation-failed'
  | 'invalid-json'
  | 'unsupported-media-type'
  | 'payload-too-large'
  | 'unsupported-asset'
  | 'missing-api-key'
  | 'invalid-api-key'
  | 'missing-signature'
  | 'invalid-signature'
  | 'payment-not-found'
  | 'withdrawal-not-found'
  | 'webhook-not-found'
  | 'delivery-not-found'
  | 'webhook-limit-reached'
  | 'payouts-disabled'
  | 'not-found'
  | 'method-not-allowed'
  | 'insufficient-funds'
  | 'invalid-state'
  | 'duplicate-invoice'
  | 'database-unavailable'
  | 'storage-unavailable'
  | 'idempotency-key-in-use'
  | 'idempotency-key-reused'
  | 'rate-limited'
  | 'internal-error';

/** An error meant for the client: its status, stable code and message reach the response as-is. */
export class ApiError extends Error {
  override name = 'ApiError';

  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: FieldError[],
  ) {
    super(message);
  }

  /** The response body of the error contract. */
  toBody(): { error: { code: ErrorCode; message: string; details?: FieldError[] } } {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

/** The most problems one validation-failed answer lists; the message says how many more there were. */
export const MAX_DETAILS = 50;
const MAX_PATH = 200;

/**
 * A 400 listing every bad field at once, each with its first problem, up to MAX_DETAILS of them
 * (a body of thousands of unknown keys must not cost an answer thousands of entries long). Linear
 * in the number of problems.
 */
export function validationFailed(details: FieldError[]): ApiError {
  // Checks that keep running after a field already failed ("abc" fails both the pattern and the
  // range) would otherwise name the same field twice.
  const seen = new Set<string>();
  const firstPerField = details.filter((d) => !seen.has(d.path) && seen.add(d.path) !== undefined);
  // A field name is the client's text: a 60 KB key must not make a 120 KB answer.
  const shown = firstPerField.slice(0, MAX_DETAILS).map((d) => (d.path.length > MAX_PATH ? { ...d, path: `${d.path.slice(0, MAX_PATH)}…` } : d));
  const more = firstPerField.length - shown.length;
  const fields = shown.map((d) => d.path || '(body)').join(', ');
  return new ApiError(400, 'validation-failed', `The request has invalid fields: ${fields}${more > 0 ? `, and ${more} more not listed` : ''}.`, shown);
}
