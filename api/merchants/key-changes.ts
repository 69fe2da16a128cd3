/**
 * @module Noticing key rotations wherever they are made: in this process, in another instance or in
 * the CLI. A rotation is announced on the database's `merchant_keys` channel (PostgreSQL NOTIFY
 * reaches every instance at once; a lost notification connection says `'*'` when it is back). On
 * SQLite, where other processes cannot notify, the database's change counter is read at most once a
 * second instead. Either way the generation moves on, and remembered keys are looked up again.
 */
import type { Database } from '../db/database.ts';
import type { Clock } from '../shared/clock.ts';

const CHANNEL = 'merchant_keys';
/** The change counter (SQLite) is read at most this often. */
export const COUNTER_READ_MS = 1_000;

/** Creates the watch; it subscribes on first use, so a process that only rotates (the CLI) never listens. */
export function createKeyChanges(db: Pick<Database, 'notify' | 'listen' | 'changeCounter'>, clock: Clock) {
  let generation = 0;
  let waiting: Array<() => void> = [];
  const moveOn = () => {
    generation += 1;
    const woken = waiting;
    waiting = [];
    for (const wake of woken) wake();
  };
  let subscribed: Promise<void> | undefined;
  let listening = false;
  let counter: number | undefined;
  let counterReadAt = Number.NEGATIVE_INFINITY;

  return {
    /** A number that moves on whenever any merchant's keys may have changed, here or elsewhere. */
    async generation(): Promise<number> {
      await (subscribed ??= db.listen(CHANNEL, moveOn).then(() => {
        listening = true;
      }));
      const now = clock();
      if (now - counterReadAt >= COUNTER_READ_MS || now < counterReadAt) {
        counterReadAt = now;
        const read = await db.changeCounter();
        if (counter !== undefined && read !== counter) moveOn();
        counter = read;
      }
      return generation;
    },

    /**
     * The generation when `generation()` would read nothing first (listening, and the counter read
     * within COUNTER_READ_MS): the same answer without awaiting. Undefined when it must be awaited.
     */
    current(): number | undefined {
      const now = clock();
      return listening && now - counterReadAt < COUNTER_READ_MS && now >= counterReadAt ? generation : undefined;
    },

    /** The generation as last seen, without reading anything. */
    seen: () => generation,

    /** Tells every process that a merchant's keys changed; call it once the change is committed. */
    announce(merchantId: string): Promise<void> {
      return db.notify(CHANNEL, merchantId);
    },

    /** Resolves when the generation next moves on (what a test waits for instead of a clock). */
    next(): Promise<void> {
      return new Promise((resolve) => waiting.push(resolve));
    },
  };
}

/** The key-change watch. */
export type KeyChanges = ReturnType<typeof createKeyChanges>;
