/**
 * A database schema as both dialects can describe it, read back from a migrated database (not from
 * the migration files), so the two can be compared. Types and expressions are as each database
 * reports them; `test/api/schema-parity.test.ts` maps them to one vocabulary.
 */

/** One column. `type` is the declared type as the database reports it (`INTEGER`, `bigint`). */
export interface ColumnDescription {
  readonly name: string;
  readonly type: string;
  readonly notNull: boolean;
  /** The default expression, as written in the dialect; undefined for none. */
  readonly default: string | undefined;
  /** Whether the database numbers new rows itself (SQLite's INTEGER PRIMARY KEY, PostgreSQL's identity). */
  readonly generated: boolean;
}

/** An index made by CREATE INDEX (not one backing a PRIMARY KEY or UNIQUE constraint). */
export interface IndexDescription {
  readonly name: string;
  /** Key columns in order, `column DESC` where descending. */
  readonly columns: readonly string[];
  readonly unique: boolean;
  /** The WHERE of a partial index, as written in the dialect. */
  readonly where: string | undefined;
}

/** A FOREIGN KEY: `columns` reference `references` of `table`. */
export interface ForeignKeyDescription {
  readonly columns: readonly string[];
  readonly table: string;
  readonly references: readonly string[];
  /** `NO ACTION`, `CASCADE`, `SET NULL`, `SET DEFAULT` or `RESTRICT`. */
  readonly onDelete: string;
  readonly onUpdate: string;
}

/** One table and everything declared on it. */
export interface TableDescription {
  readonly name: string;
  readonly columns: readonly ColumnDescription[];
  readonly primaryKey: readonly string[];
  /** The column lists of its UNIQUE constraints (their names are generated, and differ). */
  readonly uniques: ReadonlyArray<readonly string[]>;
  readonly indexes: readonly IndexDescription[];
  readonly foreignKeys: readonly ForeignKeyDescription[];
  /** The expressions of its CHECK constraints, as written in the dialect. */
  readonly checks: readonly string[];
  /** The statements (INSERT, UPDATE, DELETE) that fire a trigger on it. */
  readonly triggerEvents: readonly string[];
}

/** Every table of an application's schema (the database's own bookkeeping tables left out). */
export interface SchemaDescription {
  readonly tables: readonly TableDescription[];
}
