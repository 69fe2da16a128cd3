/**
 * @module Group commit: units of write work asked for during one turn of the event loop share one
 * SQLite transaction, each inside its own savepoint.
 *
 * Every commit writes each page it changed to the WAL (two system calls a page) and takes and
 * drops the file locks. Payments created together change the same table and index pages, so one
 * commit for several of them writes far fewer pages per payment than a commit each. A unit that
 * throws is rolled back alone and its caller gets the error; if the transaction itself fails (the
 * commit, or an error after which SQLite has already abandoned the transaction), every unit in it
 * fails and none of them is stored. Callers hear the outcome only after the commit, so nothing is
 * answered that a crash could take back.
 */
import type { Db } from './open-database.ts';

interface Pending {
  work: () => unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** The most units one transaction holds, so the write lock is never held for long. */
export const MAX_GROUP = 64;

/** Creates a group committer over a connection. */
export function createGroupCommit(db: Db) {
  let queue: Pending[] = [];
  let scheduled = false;
  // Called inside the group's transaction, better-sqlite3 runs this in a savepoint. Work that
  // returns a promise would go on after the savepoint (and maybe the commit): refused, rolled back.
  const inSavepoint = db.transaction((work: () => unknown) => {
    const value = work();
    if (typeof (value as { then?: unknown } | null)?.then === 'function') throw new TypeError('group commit work must be synchronous; it returned a promise');
    return value;
  });
  const runGroup = db.transaction((group: Pending[]): Outcome[] =>
    group.map((unit): Outcome => {
      try {
        return { ok: true, value: inSavepoint(unit.work) };
      } catch (error) {
        // Some errors (a full disk, an I/O error) end the whole transaction: the units before
        // this one are gone too, and the ones after it must not run outside any transaction.
        if (!db.inTransaction) throw error;
        return { ok: false, error };
      }
    }),
  );

  function flush(): void {
    scheduled = false;
    const group = queue.slice(0, MAX_GROUP);
    queue = queue.slice(group.length);
    if (queue.length > 0) schedule();
    let outcomes: Outcome[];
    try {
      outcomes = runGroup.immediate(group);
    } catch (error) {
      for (const unit of group) unit.reject(error);
      return;
    }
    group.forEach((unit, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) unit.resolve(outcome.value);
      else unit.reject(outcome.error);
    });
  }

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  }

  return {
    /**
     * Runs `work` (synchronous database writes, all or nothing) in the next group's transaction;
     * settles once that transaction has committed or failed.
     */
    run<T>(work: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
        schedule();
      });
    },
  };
}

/** A group committer. */
export type GroupCommit = ReturnType<typeof createGroupCommit>;
