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

type Waiting<T> = { resolve(value: T): void; reject(error: unknown): void };
type StampRead = Waiting<OwnedStamp | undefined> & { id: string };

/**
 * Reads stamps from the database for every caller of one turn of the event loop in one query, of
 * at most `perRead` reads. A poll answered from one query instead of several costs both processes
 * one round trip. A failed query fails every read it carried.
 */
function sharedStampReads(store: Pick<PaymentStore, 'ownedStampsOf'>, perRead: number) {
  const gather = perTurn<StampRead>((reads) => {
    let query: Promise<Map<string, OwnedStamp>>;
    try {
      query = store.ownedStampsOf([...new Set(reads.map((read) => read.id))]);
    } catch (error) {
      query = Promise.reject(error);
    }
    // A settled promise ignores a second settlement, so the catch-all fails only reads left unanswered.
    query
      .then((found) => {
        for (const read of reads) read.resolve(found.get(read.id));
      })
      .catch((error: unknown) => {
        for (const read of reads) read.reject(error);
      });
  }, perRead);
  return (id: string): Promise<OwnedStamp | undefined> => new Promise((resolve, reject) => gather({ id, resolve, reject }));
}

type StampStore = Pick<PaymentStore, 'ownedStampsOf'>;
const sharedReads = new WeakMap<StampStore, (id: string) => Promise<OwnedStamp | undefined>>();

/** The shared stamp reads over a store: every stamp reader over it (records, payer's views) joins the same query. */
function sharedStampReadsOf(store: StampStore): (id: string) => Promise<OwnedStamp | undefined> {
  let shared = sharedReads.get(store);
  if (!shared) {
    shared = sharedStampReads(store, STAMPS_PER_READ);
    sharedReads.set(store, shared);
  }
  return shared;
}

type Generation = Pick<Database, 'changeGeneration'>;
const turnGenerations = new WeakMap<Generation, () => Promise<number | undefined>>();

/**
 * The change generation, asked of the database once for every read of one turn of the event loop
 * (on SQLite each ask is a system call). It is asked after every read waiting for it began, so none
 * misses a change made before it arrived. Shared by every stamp reader over the same database.
 */
function generationOfTheTurn(db: Generation): () => Promise<number | undefined> {
  let shared = turnGenerations.get(db);
  if (!shared) {
    const gather = perTurn<Waiting<number | undefined>>((reads) => {
      // A database that cannot answer (closed, unavailable) fails every read that waited.
      let generation: number | undefined;
      try {
        generation = db.changeGeneration();
      } catch (error) {
        for (const read of reads) read.reject(error);
        return;
      }
      for (const read of reads) read.resolve(generation);
    });
    shared = () => new Promise((resolve, reject) => gather({ resolve, reject }));
    turnGenerations.set(db, shared);
  }
  return shared;
}

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
    const generation = await generationNow();
    if (generation === undefined) return readShared(id);
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
