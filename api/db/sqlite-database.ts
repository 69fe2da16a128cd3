/**
 * @module The embedded store: one better-sqlite3 connection behind the async `Database` calls.
 *
 * better-sqlite3 is synchronous, so each call runs at once and hands back a settled promise. A
 * transaction holds the connection until it ends: another transaction asked for meanwhile waits its
 * turn, and so does a bare statement (one outside any transaction), but never for itself: one that
 * comes from inside the holder's own work would wait forever, and is refused as soon as the
 * connection has stood still for two turns of the event loop. Write
 * transactions begin IMMEDIATE, which serialises writers across processes sharing the file.
 *
 * Group commit: write units asked for during one turn of the event loop share one transaction, each
 * inside its own savepoint. Every commit writes each page it changed to the WAL (two system calls a
 * page) and takes and drops the file locks; payments created together change the same table and
 * index pages, so one commit for several of them writes far fewer pages per payment. A unit that
 * throws is rolled back alone; if the transaction itself fails (the commit, or an error after which
 * SQLite abandoned the transaction) every unit in it fails and none is stored. Callers hear back
 * only after the commit.
 */
import BetterSqlite3 from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { type Database, DatabaseUnavailable, type Dialect, type Params, type Sql, type TransactionWork, UniqueViolation } from './database.ts';
import { Lru } from '../shared/lru.ts';
import { migrationFiles } from './migrations.ts';

/** The most units one grouped transaction holds, so the write lock is never held for long. */
export const MAX_GROUP = 64;
/**
 * A group of fewer units waits one more turn of the event loop, whose poll for I/O does not block
 * (an immediate is pending): requests already received join it. A commit writes every page its
 * units touched once, so larger groups write fewer pages a unit.
 */
export const FULL_ENOUGH_GROUP = 8;
// Statements prepared and kept, by SQL text; list pages make a text per filter set and limit.
const STATEMENTS_KEPT = 500;

const dialect: Dialect = {
  name: 'sqlite',
  inJsonList: (expression, param) => `${expression} IN (SELECT value FROM json_each(${param}))`,
  indexedBy: (index: string) => ` INDEXED BY ${index}`,
  forUpdate: '',
  skipLocked: '',
  forKeyShare: '',
  writingWith: false,
  joinsLateral: false,
};

type Statement = BetterSqlite3.Statement<unknown[], unknown>;

interface GroupUnit {
  work: TransactionWork<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

// The file cannot be written or read right now: a full disk, a read-only or vanished file, an I/O
// error, another process holding the lock past the busy timeout. Not a bug of the request.
const UNAVAILABLE = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|BUSY|NOMEM|PROTOCOL)/;

function mapError(error: unknown): unknown {
  if (error instanceof UniqueViolation || error instanceof DatabaseUnavailable) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    const message = (error as Error).message;
    return new UniqueViolation(message, message.replace(/^UNIQUE constraint failed: /, ''), { cause: error });
  }
  if (typeof code === 'string' && UNAVAILABLE.test(code)) return new DatabaseUnavailable(`the SQLite database cannot be written: ${(error as Error).message} (${code})`, { cause: error }, 'storage-unavailable');
  return error;
}

/**
 * A statement on the database itself was asked for while a transaction holds the connection, and
 * the connection stood still for two turns of the event loop: a bug (a bare store reached from inside
 * a transaction's work, waiting for the very transaction it is part of), refused instead of
 * deadlocking.
 */
export class BareStatementInTransaction extends Error {
  override name = 'BareStatementInTransaction';
  constructor() {
    super("a statement outside the transaction was run while a transaction holds SQLite's only connection; use the transaction's stores");
  }
}

/**
 * Opens (creating if needed) the database file, switches it to WAL and runs pending migrations.
 * Safe to call from two processes at once: migrations run under an immediate write lock.
 */
export function openSqliteDatabase(file: string): Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const connection = new BetterSqlite3(file, { timeout: 10_000 });
  // A database created by an older version (or under a looser umask) is made the owner's alone.
  if (file !== ':memory:') for (const part of [file, `${file}-wal`, `${file}-shm`]) if (fs.existsSync(part)) fs.chmodSync(part, 0o600);
  connection.pragma('journal_mode = WAL');
  // NORMAL in WAL mode survives a process crash (kill -9); only a power loss can lose the last commits.
  connection.pragma('synchronous = NORMAL');
  // A checkpoint (WAL pages copied into the file, then fsync) runs inside the commit that crosses
  // the mark, on the event loop. Every 10,000 pages (about 40 MB of WAL) rather than SQLite's 1,000,
  // it runs a tenth as often and copies each hot page once for many commits: signed creates
  // measured 0.47 of the reference against 0.41 (four runs each, bench/run.ts's create row).
  connection.pragma('wal_autocheckpoint = 10000');
  connection.pragma('foreign_keys = ON');
  // Temporary data in memory, the statement journal first: a group commit keeps one savepoint per
  // unit, and SQLite keeps the pages those change in a statement journal that spills to a temporary
  // file past 64 KiB (a group of six creates: an open, an unlink and 31 writes per create). In
  // memory it costs the group's changed pages (a few hundred KiB), and a create half the SQLite time
  // (measured: 71 -> 31 µs per claim and insert in groups of six; the service's write system calls
  // 52 -> 21 per create). It applies to every temporary structure: a sort or GROUP BY no index serves
  // and an index built by a migration use memory too (the stores' lists and totals are index-bound).
  connection.pragma('temp_store = MEMORY');
  migrate(connection);

  const statements = new Lru<string, Statement>(STATEMENTS_KEPT);
  // Statements run on this connection that may write (committed or not): part of changeGeneration.
  let writesRun = 0;
  // Moves with every statement and every hand-over of the connection: how a waiting bare statement
  // tells a transaction that is getting on from one that waits for it.
  let moves = 0;
  function statement(sql: string): Statement {
    let prepared = statements.get(sql);
    if (!prepared) {
      prepared = connection.prepare(sql);
      statements.set(sql, prepared);
    }
    if (!prepared.readonly) writesRun += 1;
    moves += 1;
    return prepared;
  }
  const bind = (params: Params | undefined): unknown[] => (params === undefined ? [] : Array.isArray(params) ? params : [params]);

  function all<T>(sql: string, params?: Params): T[] {
    try {
      return statement(sql).all(...bind(params)) as T[];
    } catch (error) {
      throw mapError(error);
    }
  }
  function get<T>(sql: string, params?: Params): T | undefined {
    try {
      return statement(sql).get(...bind(params)) as T | undefined;
    } catch (error) {
      throw mapError(error);
    }
  }
  function run(sql: string, params?: Params): number {
    try {
      return statement(sql).run(...bind(params)).changes;
    } catch (error) {
      throw mapError(error);
    }
  }

  // Transaction control, prepared once.
  const control = Object.fromEntries(
    ['BEGIN IMMEDIATE', 'BEGIN', 'COMMIT', 'ROLLBACK', 'SAVEPOINT unit', 'RELEASE unit', 'ROLLBACK TO unit'].map((sql) => [sql, connection.prepare(sql)]),
  );
  const exec = (sql: string) => {
    moves += 1;
    return control[sql]!.run();
  };

  // The connection's owner: undefined when free; otherwise later callers queue.
  let held = false;
  const waiting: Array<() => void> = [];
  function acquire(): Promise<void> | undefined {
    if (!held) {
      held = true;
      return undefined;
    }
    return new Promise((resolve) => waiting.push(resolve));
  }
  function release(): void {
    moves += 1;
    const next = waiting.shift();
    if (next) next();
    else held = false;
  }

  /**
   * The connection for a bare statement while a transaction holds it. better-sqlite3 runs each
   * statement synchronously, so a transaction holds the connection only while its own work awaits,
   * and most such work awaits nothing but other statements: it gets on within the turn. Two kinds of
   * caller meet a held connection:
   * - another request, resumed in the same turn as the holder (the reads of one turn are answered
   *   together, and so are the creates of one commit): it waits its turn, like a transaction;
   * - the holder's own work, through a bare store (a bug): waiting would wait for itself, forever,
   *   and so would everything after it. The connection then stands still (the holder is waiting for
   *   this very statement), so a statement still waiting after two turns of the event loop in which
   *   no statement ran and no transaction ended is refused with BareStatementInTransaction. A
   *   transaction whose work awaits something slower (a timer, the network) is refused the same way,
   *   as every bare statement used to be.
   */
  function acquireForBare(): Promise<void> {
    return new Promise((resolve, reject) => {
      let granted = false;
      const grant = () => {
        granted = true;
        resolve();
      };
      waiting.push(grant);
      let seen = moves;
      let stillTurns = 0;
      const check = () => {
        if (granted) return;
        if (moves !== seen) {
          seen = moves;
          stillTurns = 0;
        } else if (++stillTurns >= 2) {
          waiting.splice(waiting.indexOf(grant), 1);
          reject(new BareStatementInTransaction());
          return;
        }
        setImmediate(check);
      };
      setImmediate(check);
    });
  }

  /**
   * A statement outside any transaction: at once when the connection is free, else once the
   * transactions ahead of it have ended (see acquireForBare).
   */
  function bare<T>(execute: () => T): Promise<T> {
    if (held) {
      return acquireForBare().then(() => {
        try {
          return execute();
        } finally {
          release();
        }
      });
    }
    try {
      return Promise.resolve(execute());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** An `Sql` for one transaction; it refuses to run once that transaction has ended. */
  function transactionSql(): Sql & { end(): void } {
    let open = true;
    const check = () => {
      if (!open) throw new Error('a statement was run on a transaction that has already ended');
    };
    return {
      dialect,
      all: async (sql, params) => (check(), all(sql, params)),
      get: async (sql, params) => (check(), get(sql, params)),
      run: async (sql, params) => (check(), run(sql, params)),
      end: () => {
        open = false;
      },
    };
  }

  async function inTransaction<T>(begin: string, work: TransactionWork<T>): Promise<T> {
    await acquire();
    const tx = transactionSql();
    try {
      exec(begin);
      try {
        const value = await work(tx);
        exec('COMMIT');
        return value;
      } catch (error) {
        if (connection.inTransaction) exec('ROLLBACK');
        throw mapError(error);
      }
    } finally {
      tx.end();
      release();
    }
  }

  let queue: GroupUnit[] = [];
  let scheduled = false;

  async function runGroup(group: GroupUnit[]): Promise<void> {
    await acquire();
    const tx = transactionSql();
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      exec('BEGIN IMMEDIATE');
      for (const unit of group) {
        exec('SAVEPOINT unit');
        try {
          const value = await unit.work(tx);
          exec('RELEASE unit');
          outcomes.push({ ok: true, value });
        } catch (error) {
          // Some errors (a full disk, an I/O error) end the whole transaction: the units before
          // this one are gone too, and the ones after it must not run outside any transaction.
          if (!connection.inTransaction) throw error;
          exec('ROLLBACK TO unit');
          exec('RELEASE unit');
          outcomes.push({ ok: false, error: mapError(error) });
        }
      }
      exec('COMMIT');
    } catch (error) {
      if (connection.inTransaction) exec('ROLLBACK');
      for (const unit of group) unit.reject(mapError(error));
      return;
    } finally {
      tx.end();
      release();
    }
    group.forEach((unit, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) unit.resolve(outcome.value);
      else unit.reject(outcome.error);
    });
  }

  let waitedATurn = false;
  function flush(): void {
    if (!waitedATurn && queue.length < FULL_ENOUGH_GROUP) {
      waitedATurn = true;
      setImmediate(flush);
      return;
    }
    waitedATurn = false;
    scheduled = false;
    const group = queue.slice(0, MAX_GROUP);
    queue = queue.slice(group.length);
    if (queue.length > 0) schedule();
    void runGroup(group);
  }
  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  }

  // This connection's statements that may write (counted as they run) and other connections'
  // commits (data_version, which reads no table). Reading the WAL-index header from the -shm file
  // directly instead (one pread) measured the same: on this kind of machine the system call is
  // most of either.
  const dataVersion = connection.prepare('PRAGMA data_version').pluck();
  let generation = 0;
  let writesSeen = -1;
  let externalSeen = -1;
  function changeGeneration(): number {
    let external: number;
    try {
      external = dataVersion.get() as number;
    } catch (error) {
      throw mapError(error);
    }
    if (writesRun !== writesSeen || external !== externalSeen) {
      writesSeen = writesRun;
      externalSeen = external;
      generation += 1;
    }
    return generation;
  }

  const channels = new EventEmitter();
  channels.setMaxListeners(0);

  return {
    dialect,
    shared: false,
    all: (sql, params) => bare(() => all(sql, params)),
    get: (sql, params) => bare(() => get(sql, params)),
    run: (sql, params) => bare(() => run(sql, params)),
    transaction: (work) => inTransaction('BEGIN IMMEDIATE', work),
    snapshot: (work) => inTransaction('BEGIN', work),
    grouped<T>(work: TransactionWork<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
        schedule();
      });
    },
    async notify(channel, payload) {
      channels.emit(channel, payload);
    },
    // A connection-level counter: read between another unit's statements, it never waits for the connection.
    changeCounter: async () => connection.pragma('data_version', { simple: true }) as number,
    changeGeneration,
    async listen(channel, handler) {
      channels.on(channel, handler);
    },
    async close() {
      await acquire();
      connection.close();
    },
  };
}

/** Applies every migration file not yet recorded, in file-name order, each in one transaction. */
function migrate(connection: BetterSqlite3.Database): void {
  connection.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)');
  const applied = connection.prepare<[string], { version: string }>('SELECT version FROM schema_migrations WHERE version = ?');
  const record = connection.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)');
  const applyPending = connection.transaction(() => {
    for (const { version, sql } of migrationFiles('sqlite')) {
      if (applied.get(version)) continue;
      connection.exec(sql);
      record.run(version, Date.now());
    }
  });
  applyPending.immediate();
}
