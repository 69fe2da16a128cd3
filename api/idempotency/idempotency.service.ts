/**
 * @module Idempotent POSTs: the first answer to a request carrying an Idempotency-Key is kept for
 * 24 hours per merchant and key, and a repeat with the same bytes gets it again instead of acting
 * twice. Records live in the database, so every instance on it honours them.
 */
import { createHash } from 'node:crypto';
import { Conflict, InvalidInput, Refused } from '../shared/errors.ts';
import type { Clock } from '../shared/clock.ts';
import type { UnitOfWork } from '../unit-of-work.ts';

/** How long an answer is replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * How long a first attempt may hold its key unanswered. Requests finish in milliseconds; one whose
 * process died leaves its record behind, and the key is free again once this has passed.
 */
export const IDEMPOTENCY_LOCK_MS = 60_000;

const KEY_PATTERN = /^[\x20-\x7E]{1,255}$/;

/** What to do with a request that carries a key. */
export type IdempotencyOutcome =
  | { kind: 'first'; requestHash: string }
  | { kind: 'replay'; statusCode: number; body: string };

/** Creates the idempotency use cases. */
export function createIdempotencyService(deps: { uow: UnitOfWork; clock: Clock }) {
  const { uow, clock } = deps;
  const store = uow.stores.idempotency;

  return {
    /**
     * Takes the key for a first attempt, or returns the answer to replay. Throws 400 for a malformed
     * key, 422 when the key was used with other bytes, 409 while its first attempt still runs.
     */
    async begin(merchantId: string, key: string, method: string, path: string, body: Buffer): Promise<IdempotencyOutcome> {
      if (!KEY_PATTERN.test(key)) {
        throw new InvalidInput('validation-failed', 'The request has invalid fields: Idempotency-Key.', [
          { path: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' },
        ]);
      }
      const requestHash = createHash('sha256').update(`${method} ${path}\n`).update(body).digest('hex');
      const now = clock();
      if (await store.claim(merchantId, key, requestHash, now, now + IDEMPOTENCY_LOCK_MS, now + IDEMPOTENCY_TTL_MS)) return { kind: 'first', requestHash };
      const record = await store.find(merchantId, key);
      if (record && record.requestHash !== requestHash) {
        throw new Refused('idempotency-key-reused', 'This Idempotency-Key was already used with a different request (method, path or body bytes). Use a new key for a new request.');
      }
      if (!record || record.statusCode === null || record.responseBody === null) {
        throw new Conflict('idempotency-key-in-use', 'A request with this Idempotency-Key is still being processed. Retry in a moment to get its answer.');
      }
      return { kind: 'replay', statusCode: record.statusCode, body: record.responseBody };
    },

    /** Keeps a first attempt's answer for replay. */
    async complete(merchantId: string, key: string, requestHash: string, statusCode: number, body: string): Promise<void> {
      await store.complete(merchantId, key, requestHash, statusCode, body);
    },

    /** Frees a key whose first attempt failed on our side (5xx), so a retry runs again. */
    async release(merchantId: string, key: string, requestHash: string): Promise<void> {
      await store.release(merchantId, key, requestHash);
    },

    /** Deletes expired records (background housekeeping). */
    purgeExpired: () => store.purgeExpired(clock()),
  };
}

/** The idempotency use cases. */
export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
