/**
 * @module Payment stamps (version, status, expiry: what decides whether a rendered view still holds)
 * remembered between requests while the database says nothing changed. Merchants and payers poll
 * payments that mostly stand still; on SQLite a remembered stamp spares a read of the row per poll.
 * Every write, of this process or another (the CLI), moves the database's change generation; on
 * PostgreSQL, where other instances write unseen, every stamp is read from the database.
 */
import type { Database } from '../db/database.ts';
import { Lru } from '../shared/lru.ts';
import type { OwnedStamp, PaymentStore } from './payment.store.ts';

/** Stamps remembered at most (about 150 bytes each). */
export const STAMPS_KEPT = 10_000;

/** Creates the stamp reader over the bare payment store. */
export function createPaymentStamps(store: Pick<PaymentStore, 'ownedStampOf'>, db: Pick<Database, 'changeGeneration'>, capacity = STAMPS_KEPT) {
  const kept = new Lru<string, OwnedStamp>(capacity);
  let keptAt: number | undefined;

  async function read(id: string): Promise<OwnedStamp | undefined> {
    const generation = db.changeGeneration();
    if (generation === undefined) return store.ownedStampOf(id);
    if (generation !== keptAt) {
      kept.clear();
      keptAt = generation;
    }
    const known = kept.get(id);
    if (known) return known;
    const stamp = await store.ownedStampOf(id);
    // Kept only if nothing moved while it was read (an unknown id is not kept: guesses cost no memory).
    if (stamp && db.changeGeneration() === generation) kept.set(id, stamp);
    return stamp;
  }

  return {
    /** A payment's stamp by id (stored form), whoever owns it. */
    of: read,
    /** A payment's stamp by id, only if this merchant owns it. */
    async forMerchant(merchantId: string, id: string): Promise<OwnedStamp | undefined> {
      const stamp = await read(id);
      return stamp?.merchantId === merchantId ? stamp : undefined;
    },
  };
}

/** The stamp reader. */
export type PaymentStamps = ReturnType<typeof createPaymentStamps>;
