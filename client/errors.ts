/** The one error class the client throws for every failed call. */
import type { CheckoutErrorCode, ErrorDetail } from './types.ts';

/**
 * A call that did not return a record: the API's error answer (`status` and its stable `code`,
 * `message` and `details`), or a failure without one, named by the client: `network-error`
 * (status 0, nothing answered), `timeout` (status 0) or `invalid-response` (an answer that is not
 * the API's JSON, with its HTTP status).
 */
export class CheckoutApiError extends Error {
  override name = 'CheckoutApiError';
  /** HTTP status of the answer; 0 when there was none. */
  readonly status: number;
  /** Stable kebab-case code, e.g. `validation-failed`, `invalid-state`, `network-error`. */
  readonly code: CheckoutErrorCode;
  /** Every invalid field of a 400 `validation-failed`; empty otherwise. */
  readonly details: readonly ErrorDetail[];
  /** The X-Request-Id of the answer, to quote when asking for support. */
  readonly requestId: string | undefined;
  /** What the answer's Retry-After said (429, 503), in seconds. */
  readonly retryAfterSeconds: number | undefined;

  constructor(init: {
    status: number;
    code: CheckoutErrorCode;
    message: string;
    details?: readonly ErrorDetail[];
    requestId?: string | undefined;
    retryAfterSeconds?: number | undefined;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}
