/**
 * @module Payment stamps (version, status, expiry: what decides whether a rendered view still holds)
 * remembered between requests while the database says nothing changed. Merchants and payers poll
 * payments that mostly stand still; on SQLite a remembered stamp spares a read of the row per poll.
 * Every write, of this process or another (the CLI), moves the database's change generation; on
 * PostgreSQL, where other instances write unseen, every stamp is read from the database: the reads
 * that arrive in one turn of the event loop share one query.
 */
import type { Database } from '../db/database.ts';
import { Lru } from '../shared/lru.ts';
import { perTurn } from '../shared/per-turn.ts';
import type { OwnedStamp, PaymentStore } from './payment.store.ts';

/** Stamps remembered at most (about 150 bytes each). */
export const STAMPS_KEPT = 10_000;
/** Ids one shared read asks for at most. */
export const STAMPS_PER_READ = 100;

/** `make` once per key object: later calls with the same key get what the first made. */
function oncePer<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const made = new WeakMap<K, V>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined) {
      value = make(key);
      made.set(key, value);
    }
    return value;
  };
}

/**
 * Reads stamps from the database for every caller of one turn of the event loop in one query, of
 * at most STAMPS_PER_READ reads. A poll answered from one query instead of several costs both
 * processes one round trip. A failed query fails every read it carried. One per store: every stamp
 * reader over it (records, payer's views) joins the same query.
 */
const sharedStampReadsOf = oncePer((store: Pick<PaymentStore, 'ownedStampsOf'>) =>
  perTurn<string, OwnedStamp | undefined>(async (reads) => {
    const found = await store.ownedStampsOf([...new Set(reads.map((read) => read.item))]);
    for (const read of reads) read.resolve(found.get(read.item));
  }, STAMPS_PER_READ),
);

/**
 * The change generation, asked of the database once for every read of one turn of the event loop
 * (on SQLite each ask is a system call). It is asked after every read waiting for it began, so none
 * misses a change made before it arrived; a database that cannot answer (closed, unavailable) fails
 * every read that waited. One per database: every stamp reader over it shares the ask.
 */
const generationOfTheTurn = oncePer((db: Pick<Database, 'changeGeneration'>) =>
  perTurn<void, number | undefined>((reads) => {
    const generation = db.changeGeneration();
    for (const read of reads) read.resolve(generation);
  }),
);

/** Creates the stamp reader over the bare payment store. */
export function createPaymentStamps(store: Pick<PaymentStore, 'ownedStampOf' | 'ownedStampsOf'>, db: Pick<Database, 'changeGeneration'>, capacity = STAMPS_KEPT) {
  const kept = new Lru<string, OwnedStamp>(capacity);
  let keptAt: number | undefined;
  const readShared = sharedStampReadsOf(store);
  // PostgreSQL has no generation: nothing is kept, every stamp is read.
  const keeps = db.changeGeneration() !== undefined;
  const generationNow = generationOfTheTurn(db);

  async function read(id: string): Promise<OwnedStamp | undefined> {
    if (!keeps) return readShared(id);
    // A database that told a generation at start tells one on every ask; were it ever to answer
    // none, NaN equals nothing, so nothing would be kept and every stamp read from the database.
    const generation = (await generationNow()) ?? Number.NaN;
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
