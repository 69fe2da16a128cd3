/**
 * @module The storage seam: one async interface over SQLite (embedded, the default) and PostgreSQL
 * (several instances). Stores speak to an `Sql` (the database itself, or one transaction); nothing
 * above the stores holds a driver connection.
 *
 * Queries are written once, in the SQL both dialects share: `?` or `@name` placeholders, `RETURNING`,
 * `ON CONFLICT`, `IS NOT DISTINCT FROM`. The few places that differ (JSON list parameters, row locks,
 * planner hints) ask `dialect` for their fragment.
 */

/** Positional (`?`) or named (`@name`) parameters. */
export type Params = readonly unknown[] | object;

/** The SQL fragments that differ between the two databases. */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /**
   * `expression` is one of the elements of a JSON array parameter (of text). On PostgreSQL this is
   * `= ANY(ARRAY(…))`: an `IN (subquery)` over json_array_elements_text is planned for 100 rows
   * whatever the list holds, and at 15,000 transactions the planner chose a sequential scan of the
   * table over an index lookup per element (6 ms instead of 0.1, growing with the table).
   */
  inJsonList(expression: string, param: string): string;
  /**
   * ` INDEXED BY <index>` on SQLite, which then walks that index or fails to prepare; empty on
   * PostgreSQL, whose planner weighs the index by the table's statistics instead.
   */
  indexedBy(index: string): string;
  /** ` FOR UPDATE` where rows can be locked (PostgreSQL), empty where writers are serialised (SQLite). */
  readonly forUpdate: string;
  /** ` FOR UPDATE SKIP LOCKED` on PostgreSQL: concurrent claimers take different rows. */
  readonly skipLocked: string;
  /**
   * ` FOR KEY SHARE` on PostgreSQL: the rows read stay until the transaction ends (a DELETE waits),
   * and other readers and updates of other columns do not wait; empty on SQLite.
   */
  readonly forKeyShare: string;
  /**
   * Whether a statement may write in its WITH clauses (PostgreSQL), so that rows of two tables are
   * written by one statement: atomic without a transaction, and one round trip instead of four.
   */
  readonly writingWith: boolean;
  /**
   * Whether a subquery may read the columns of the rows before it in FROM (`CROSS JOIN LATERAL`,
   * PostgreSQL): one statement then runs another once per row of a list, several reads in one
   * round trip.
   */
  readonly joinsLateral: boolean;
}

/** Something that runs SQL: the database (each statement on its own) or one transaction. */
export interface Sql {
  readonly dialect: Dialect;
  /** Every row. */
  all<T>(sql: string, params?: Params): Promise<T[]>;
  /** The first row, if any. */
  get<T>(sql: string, params?: Params): Promise<T | undefined>;
  /** Runs a statement; resolves to the number of rows it changed. */
  run(sql: string, params?: Params): Promise<number>;
}

/** Work done inside one transaction. */
export type TransactionWork<T> = (tx: Sql) => Promise<T>;

/** A database: SQLite or PostgreSQL behind the same calls. */
export interface Database extends Sql {
  /**
   * Runs `work` in one write transaction: all of it commits or none. Check-then-write inside it is
   * safe across processes: SQLite serialises writers (`BEGIN IMMEDIATE`); on PostgreSQL the stores
   * take row locks where they read what they are about to change.
   */
  transaction<T>(work: TransactionWork<T>): Promise<T>;
  /** Runs reads in one consistent snapshot. */
  snapshot<T>(work: TransactionWork<T>): Promise<T>;
  /**
   * Like `transaction`, but on SQLite the work may share one commit with other writes asked for in
   * the same turn of the event loop (group commit), each in its own savepoint.
   */
  grouped<T>(work: TransactionWork<T>): Promise<T>;
  /** Tells every process on this database (this one included) something happened on `channel`. */
  notify(channel: string, payload: string): Promise<void>;
  /**
   * Calls `handler` with each payload published on `channel` by any process (PostgreSQL) or this
   * one (SQLite); `'*'` after a lost connection means anything may have changed meanwhile.
   */
  listen(channel: string, handler: (payload: string) => void): Promise<void>;
  /**
   * A number that changes whenever another connection commits to this database: SQLite's
   * `PRAGMA data_version`, which costs no disk read. Undefined on PostgreSQL, where other processes'
   * changes are announced through `notify` and `listen` instead.
   */
  changeCounter(): Promise<number | undefined>;
  /**
   * A number that moves on whenever a row may have changed: this process's own writes (any
   * statement that changed a row, committed or not) and another process's commits (the CLI beside a
   * running service). Read synchronously and without reading a table, it lets a read cache skip the
   * database while nothing moved. Undefined on PostgreSQL: other instances write without
   * this process seeing it, so nothing may be cached across requests there.
   */
  changeGeneration(): number | undefined;
  /** Whether other processes can be running against the same data (PostgreSQL). */
  readonly shared: boolean;
  /** Closes every connection. */
  close(): Promise<void>;
}

/** A write refused by a unique constraint or index; `constraint` names it where the driver says. */
export class UniqueViolation extends Error {
  override name = 'UniqueViolation';
  constructor(
    message: string,
    readonly constraint: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The database cannot be reached or refused to work: PostgreSQL down or restarting
 * (`database-unavailable`), or the SQLite file unwritable: a full disk, a read-only or vanished
 * file, an I/O error (`storage-unavailable`). The service answers 503 and recovers by itself.
 */
export class DatabaseUnavailable extends Error {
  override name = 'DatabaseUnavailable';
  constructor(
    message: string,
    options?: { cause?: unknown },
    readonly code: 'database-unavailable' | 'storage-unavailable' = 'database-unavailable',
  ) {
    super(message, options);
  }
}

/**
 * Whether a statement lost to another writer (PostgreSQL: a deadlock, `40P01`, or a serialisation
 * failure, `40001`): nothing of it was stored, and the same work may succeed if run again.
 */
export function lostToAnotherWriter(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code ?? (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return code === '40P01' || code === '40001';
}

/**
 * A list of text values as the one JSON parameter `Dialect.inJsonList` expands. A value holding NUL
 * can be in no stored row (PostgreSQL text cannot hold it at all, and refuses it in a parameter), so
 * it is left out: it matches nothing, as on SQLite, and an emptied list matches no row.
 */
export function jsonTextList(values: readonly string[]): string {
  return JSON.stringify(values.some((v) => v.includes('\u0000')) ? values.filter((v) => !v.includes('\u0000')) : values);
}
