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
  | 'not-found'
  | 'insufficient-funds'
  | 'invalid-state'
  | 'duplicate-invoice'
  | 'database-unavailable'
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

/** A 400 listing every bad field at once, each with its first problem. */
export function validationFailed(details: FieldError[]): ApiError {
  // Checks that keep running after a field already failed ("abc" fails both the pattern and the
  // range) would otherwise name the same field twice.
  const firstPerField = details.filter((d, i) => details.findIndex((other) => other.path === d.path) === i);
  const fields = firstPerField.map((d) => d.path || '(body)').join(', ');
  return new ApiError(400, 'validation-failed', `The request has invalid fields: ${fields}.`, firstPerField);
}
