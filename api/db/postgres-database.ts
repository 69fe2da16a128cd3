/**
 * @module PostgreSQL behind the async `Database` calls, for several instances on one database.
 *
 * A pool of connections (node-postgres). Statements are the shared SQL of the stores with their
 * `?` and `@name` placeholders rewritten to `$n` once per text, and prepared by name on each
 * connection. Transactions run at READ COMMITTED; the stores lock the rows they read to change
 * (`FOR UPDATE`, `SKIP LOCKED` for claims) and unique constraints catch the rest. A transaction
 * that loses a deadlock or a serialisation check is run again, whole.
 *
 * Live updates across instances: `notify` is `pg_notify`, and one dedicated connection LISTENs,
 * reconnecting by itself after the server restarts.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Logger } from '../shared/logger.ts';
import { type Database, DatabaseUnavailable, type Dialect, lostToAnotherWriter, type Params, type Sql, type TransactionWork, UniqueViolation } from './database.ts';
import { migrationFiles } from './migrations.ts';

/** PostgreSQL's fragments of the shared SQL. */
export const postgresDialect: Dialect = {
  name: 'postgres',
  inJsonList: (expression, param) => `${expression} = ANY(ARRAY(SELECT json_array_elements_text(CAST(${param} AS json))))`,
  indexedBy: () => '',
  forUpdate: ' FOR UPDATE',
  skipLocked: ' FOR UPDATE SKIP LOCKED',
  forKeyShare: ' FOR KEY SHARE',
  writingWith: true,
  joinsLateral: true,
};

// Any number that fits in a double is read as a number: epoch milliseconds, counts, ids.
const INT8 = 20;
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

/** The advisory lock held while migrations run, so instances started together do not race. */
const MIGRATION_LOCK = 72_616_001;
const RETRIES = 5;
// Connection failures, the server shutting down or starting, or refusing to write.
const UNAVAILABLE = /^(08|53|57P|58)/;

interface Translated {
  name: string;
  text: string;
  names: string[] | undefined;
}

let statementCounter = 0;
const translations = new Map<string, Translated>();

/** `?` and `@name` placeholders to `$n`, once per SQL text. */
function translate(sql: string): Translated {
  let translated = translations.get(sql);
  if (translated) return translated;
  const names: string[] = [];
  let positional = 0;
  const text = sql.replace(/\?|@([A-Za-z_][A-Za-z0-9_]*)/g, (_match, name: string | undefined) => {
    if (name === undefined) return `$${++positional}`;
    let index = names.indexOf(name);
    if (index < 0) index = names.push(name) - 1;
    return `$${index + 1}`;
  });
  translated = { name: `s${++statementCounter}`, text, names: names.length > 0 ? names : undefined };
  translations.set(sql, translated);
  return translated;
}

function values(translated: Translated, params: Params | undefined): unknown[] {
  if (params === undefined) return [];
  if (Array.isArray(params)) return params as unknown[];
  const named = params as Record<string, unknown>;
  return (translated.names ?? []).map((name) => {
    const value = named[name];
    if (value === undefined) throw new Error(`SQL parameter @${name} is missing`);
    return value;
  });
}

/** Whether an error means the database could not be reached or used, rather than a bad statement. */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseUnavailable) return true;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (UNAVAILABLE.test(code) || ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN'].includes(code))) return true;
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect|Client was closed/i.test(message);
}

function mapError(error: unknown): unknown {
  if (error instanceof UniqueViolation || error instanceof DatabaseUnavailable) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === '23505') return new UniqueViolation((error as Error).message, (error as { constraint?: string }).constraint, { cause: error });
  if (isUnavailable(error)) return new DatabaseUnavailable(`the database is unavailable: ${(error as Error).message}`, { cause: error });
  return error;
}

type Queryable = pg.Pool | pg.PoolClient;

async function query<T>(on: Queryable, sql: string, params: Params | undefined): Promise<pg.QueryResult<T & pg.QueryResultRow>> {
  const translated = translate(sql);
  try {
    return await on.query<T & pg.QueryResultRow>({ name: translated.name, text: translated.text, values: values(translated, params) });
  } catch (error) {
    throw mapError(error);
  }
}

function sqlOn(on: Queryable): Sql {
  return {
    dialect: postgresDialect,
    all: async <T>(sql: string, params?: Params) => (await query<T>(on, sql, params)).rows,
    get: async <T>(sql: string, params?: Params) => (await query<T>(on, sql, params)).rows[0],
    run: async (sql, params) => (await query(on, sql, params)).rowCount ?? 0,
  };
}

/** Opens a pool on `url`, checks the server answers and runs pending migrations under a lock. */
export async function openPostgresDatabase(url: string, logger: Logger, options: { poolSize?: number } = {}): Promise<Database> {
  // JIT compilation is off in the service's sessions: its statements are short and bounded by
  // design, but a generic plan's estimate can pass jit_above_cost (a LIMIT or a list the planner
  // cannot see), and PostgreSQL then spends milliseconds compiling a statement that runs in a tenth
  // of one (5 ms against 0.1, measured on list pages read together). Set by a statement on each new
  // connection, before the pool hands it out: a startup option would replace PGOPTIONS and is
  // refused by connection poolers (PgBouncer). A server that refuses it (no JIT) runs as before.
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10, connectionTimeoutMillis: 5_000, idleTimeoutMillis: 30_000, types, onConnect: withoutJit });
  // An idle connection the server drops (a restart) is reported here; the next checkout makes a new
  // one. One short line: pg-pool hangs the whole client object on the error it emits.
  pool.on('error', (err) => logger.warn(lostConnection(err), 'a pooled PostgreSQL connection failed; it will be replaced'));
  // The pool listens for a connection's 'error' only while the connection is idle. One lost while
  // checked out (terminated, a failover, a restart) would emit with no listener and end the
  // process, and `pool.connect()` resolves a turn after the pool stopped listening, so a loss in
  // that gap would too. Every connection keeps this listener for its life: the query in flight
  // fails with the cause (`DatabaseUnavailable`), the next with "not queryable", and the
  // transaction gives the connection back broken.
  pool.on('connect', (client) => client.on('error', ignoreLoss));
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }

  async function inTransaction<T>(begin: string, work: TransactionWork<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw mapError(error);
      }
      let broken = false;
      let begun = false;
      try {
        await client.query(begin);
        begun = true;
        const value = await work(sqlOn(client));
        await client.query('COMMIT');
        return value;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
        const mapped = mapError(error);
        // A pooled connection the server already closed (a restart, a terminated backend) fails at
        // BEGIN, before any of the work ran: the work is tried again on a fresh connection.
        if (!begun && mapped instanceof DatabaseUnavailable && attempt < RETRIES) {
          broken = true;
          continue;
        }
        if (attempt < RETRIES && lostToAnotherWriter(error)) continue;
        if (mapped instanceof DatabaseUnavailable) broken = true;
        throw mapped;
      } finally {
        client.release(broken);
      }
    }
  }

  const instanceId = randomUUID();
  const channels = new EventEmitter();
  channels.setMaxListeners(0);
  const listened = new Set<string>();
  let listener: pg.Client | undefined;
  let closed = false;
  let reconnectTimer: NodeJS.Timeout | undefined;

  // One connection LISTENs for every channel; after the server restarts it comes back by itself.
  async function connectListener(): Promise<void> {
    if (closed || listener) return;
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, types });
    const reconnect = () => {
      if (listener === client) listener = undefined;
      client.removeAllListeners('notification');
      client.end().catch(() => {});
      if (!closed && !reconnectTimer) {
        reconnectTimer = setTimeout(() => {
          reconnectTimer = undefined;
          void connectListener();
        }, 1_000);
        reconnectTimer.unref();
      }
    };
    client.on('error', (err) => {
      logger.warn(lostConnection(err), 'the PostgreSQL notification connection failed; reconnecting');
      reconnect();
    });
    client.on('end', reconnect);
    client.on('notification', (message) => {
      const payload = message.payload ?? '';
      const separator = payload.indexOf(':');
      // Our own notifications were already delivered in this process.
      if (payload.slice(0, separator) === instanceId) return;
      channels.emit(message.channel, payload.slice(separator + 1));
    });
    try {
      await client.connect();
      for (const channel of listened) await client.query(`LISTEN "${channel}"`);
      listener = client;
      // Whatever was notified while we were away is lost: '*' tells listeners anything may have changed.
      for (const channel of listened) channels.emit(channel, '*');
    } catch (err) {
      logger.warn(lostConnection(err as Error), 'cannot LISTEN on PostgreSQL yet; retrying');
      reconnect();
    }
  }

  return {
    ...sqlOn(pool),
    shared: true,
    transaction: (work) => inTransaction('BEGIN', work),
    snapshot: (work) => inTransaction('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', work),
    grouped: (work) => inTransaction('BEGIN', work),
    async notify(channel, payload) {
      channels.emit(channel, payload);
      await query(pool, 'SELECT pg_notify(?, ?)', [channel, `${instanceId}:${payload}`]);
    },
    changeCounter: async () => undefined,
    changeGeneration: () => undefined,
    async listen(channel, handler) {
      if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel name ${channel}`);
      channels.on(channel, handler);
      if (listened.has(channel)) return;
      listened.add(channel);
      if (listener) await listener.query(`LISTEN "${channel}"`);
      else await connectListener();
    },
    async close() {
      closed = true;
      clearTimeout(reconnectTimer);
      await listener?.end().catch(() => {});
      await pool.end();
    },
  };
}

/** What is logged of a lost connection: its code and reason, on one line. */
function lostConnection(err: Error): { code: unknown; reason: string } {
  return { code: (err as { code?: unknown }).code, reason: err.message };
}

/** A checked-out connection's loss is reported by its queries, not by its `'error'` event. */
function ignoreLoss(): void {}

async function withoutJit(client: pg.ClientBase): Promise<void> {
  await client.query('SET jit = off').catch(ignoreLoss);
}

/** Runs every pending migration in one transaction, holding an advisory lock for its length. */
async function migrate(pool: pg.Pool): Promise<void> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw mapError(error);
  }
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)');
    const applied = new Set((await client.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    for (const { version, sql } of migrationFiles('postgres')) {
      if (applied.has(version)) continue;
      await client.query(sql);
      await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [version, Date.now()]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw mapError(error);
  } finally {
    client.release();
  }
}
