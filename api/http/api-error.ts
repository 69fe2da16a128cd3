/**
 * @module The HTTP side of errors: `ApiError` for what only HTTP can go wrong (keys, signatures,
 * bodies, routes, rate limits), and the status each kind of use-case refusal answers with.
 */
import { Conflict, type DomainError, type ErrorCode, type FieldError, Forbidden, InvalidInput, InvalidState, NotFound, Refused, Throttled, Unauthenticated, Unavailable } from '../shared/errors.ts';

export type { ErrorCode, FieldError } from '../shared/errors.ts';

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

/** The status each kind of use-case refusal answers with. */
export function statusOf(error: DomainError): number {
  if (error instanceof NotFound) return 404;
  if (error instanceof InvalidInput) return 400;
  if (error instanceof InvalidState || error instanceof Conflict) return 409;
  if (error instanceof Refused) return 422;
  if (error instanceof Unavailable) return 503;
  if (error instanceof Unauthenticated) return 401;
  if (error instanceof Forbidden) return 403;
  if (error instanceof Throttled) return 429;
  return 400;
}

/** A use case's refusal as the API answers it. */
export function fromDomainError(error: DomainError): ApiError {
  return new ApiError(statusOf(error), error.code, error.message, error.details);
}
