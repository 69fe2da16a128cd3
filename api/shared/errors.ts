/**
 * @module What a use case says when it cannot do what was asked: a kind of refusal, the contract's
 * stable code and a message for whoever asked. Use cases know nothing of HTTP: the one error handler
 * (`http/error-handler.ts`) gives each kind its status, and the CLI words them for an operator.
 */

/** One field that failed validation, named by its dotted path in the request. */
export interface FieldError {
  path: string;
  message: string;
}

/** Every stable error code of the contract. */
export type ErrorCode =
  | 'validation-failed'
  | 'invalid-json'
  | 'unsupported-media-type'
  | 'payload-too-large'
  | 'unsupported-asset'
  | 'unsupported-currency'
  | 'rates-unavailable'
  | 'missing-api-key'
  | 'invalid-api-key'
  | 'missing-signature'
  | 'invalid-signature'
  | 'payment-not-found'
  | 'withdrawal-not-found'
  | 'refund-not-found'
  | 'refund-exceeds-payment'
  | 'refund-already-requested'
  // The payer's refund request page only: the shop refunds the payment already (its claim link still
  // waiting for the payer's address, or paid out).
  | 'refund-awaiting-address'
  | 'refund-made'
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
  | 'invalid-credentials'
  | 'not-signed-in'
  | 'csrf-refused'
  | 'forbidden'
  | 'user-not-found'
  | 'duplicate-email'
  | 'merchant-not-found'
  | 'internal-error';

/** A use case's refusal, with the contract's code and a message meant for the caller. */
export abstract class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Each bad field with its first problem (validation-failed). */
    readonly details?: FieldError[],
  ) {
    super(message);
  }
}

/** The thing asked for does not exist, or belongs to someone else (which must not be told apart). */
export class NotFound extends DomainError {
  override name = 'NotFound';
}

/** The input breaks a rule: a field, or fields together (`details` names each). */
export class InvalidInput extends DomainError {
  override name = 'InvalidInput';
}

/** The thing is not in a state that allows this now (a cancelled withdrawal approved, payouts disabled). */
export class InvalidState extends DomainError {
  override name = 'InvalidState';
}

/** Not possible yet, but will be once something under way ends (funds still confirming): early, not wrong. Answered as `invalid-state`. */
export class NotYet extends InvalidState {
  override name = 'NotYet';
}

/** Something else already holds what this asks for: an invoice, an idempotency key in use, a limit's last place. */
export class Conflict extends DomainError {
  override name = 'Conflict';
}

/** Well-formed and allowed, but refused by what is already there: funds that do not cover it, a key reused for another request. */
export class Refused extends DomainError {
  override name = 'Refused';
}

/** Something outside this process cannot serve the request now; asking again after `retryAfterSeconds` may succeed. */
export class Unavailable extends DomainError {
  override name = 'Unavailable';
  constructor(
    code: ErrorCode,
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(code, message);
  }
}

/** Who asks is not known: a wrong e-mail or password, or no session (the same answer whichever it was). */
export class Unauthenticated extends DomainError {
  override name = 'Unauthenticated';
}

/** Who asks is known, but may not do this (a viewer asking for a change). */
export class Forbidden extends DomainError {
  override name = 'Forbidden';
}

/** Too many attempts in a window; asking again after `retryAfterSeconds` may succeed. */
export class Throttled extends DomainError {
  override name = 'Throttled';
  constructor(
    code: ErrorCode,
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(code, message);
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
export function invalidFields(details: FieldError[]): InvalidInput {
  // Checks that keep running after a field already failed ("abc" fails both the pattern and the
  // range) would otherwise name the same field twice.
  const seen = new Set<string>();
  const firstPerField = details.filter((d) => !seen.has(d.path) && seen.add(d.path) !== undefined);
  // A field name is the client's text: a 60 KB key must not make a 120 KB answer.
  const shown = firstPerField.slice(0, MAX_DETAILS).map((d) => (d.path.length > MAX_PATH ? { ...d, path: `${d.path.slice(0, MAX_PATH)}…` } : d));
  const more = firstPerField.length - shown.length;
  const fields = shown.map((d) => d.path || '(body)').join(', ');
  return new InvalidInput('validation-failed', `The request has invalid fields: ${fields}${more > 0 ? `, and ${more} more not listed` : ''}.`, shown);
}
