/**
 * Describes a migrated PostgreSQL database (see `schema-description.ts`) from its catalogue
 * (`pg_class`, `pg_attribute`, `pg_index`, `pg_constraint`, `pg_trigger`), and writes any SQL
 * expression the way PostgreSQL itself prints it, so expressions from both dialects compare equal
 * when they mean the same.
 */
import type pg from 'pg';
import type { SchemaDescription, TableDescription } from './schema-description.ts';

const ACTIONS: Record<string, string> = { a: 'NO ACTION', r: 'RESTRICT', c: 'CASCADE', n: 'SET NULL', d: 'SET DEFAULT' };
// pg_trigger.tgtype bits of the statements that fire a trigger.
const TRIGGER_EVENTS: ReadonlyArray<[number, string]> = [
  [4, 'INSERT'],
  [8, 'DELETE'],
  [16, 'UPDATE'],
];

// The names of `columns` (an int2[] of attribute numbers) of relation `relation`, in order.
const columnNames = (relation: string, columns: string) =>
  `array(SELECT a.attname::text FROM unnest(${columns}) WITH ORDINALITY k(attnum, ord) JOIN pg_attribute a ON a.attrelid = ${relation} AND a.attnum = k.attnum ORDER BY k.ord)`;

/** Reads every table of the `public` schema. */
export async function describePostgres(client: pg.Client): Promise<SchemaDescription> {
  const tables = await client.query<{ oid: number; name: string }>(
    `SELECT c.oid, c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY c.relname`,
  );
  const described: TableDescription[] = [];
  for (const { oid, name } of tables.rows) described.push(await describeTable(client, oid, name));
  return { tables: described };
}

async function describeTable(client: pg.Client, oid: number, name: string): Promise<TableDescription> {
  const columns = await client.query<{ name: string; type: string; not_null: boolean; default: string | null; identity: boolean }>(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null,
            pg_get_expr(d.adbin, d.adrelid) AS default, a.attidentity <> '' AS identity
       FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
    [oid],
  );
  const constraints = await client.query<{ type: string; columns: string[]; expression: string | null; foreign_table: string | null; references: string[] | null; on_delete: string; on_update: string }>(
    `SELECT con.contype AS type, ${columnNames('con.conrelid', 'con.conkey')} AS columns, pg_get_expr(con.conbin, con.conrelid) AS expression,
            f.relname AS foreign_table, ${columnNames('con.confrelid', 'con.confkey')} AS references, con.confdeltype AS on_delete, con.confupdtype AS on_update
       FROM pg_constraint con LEFT JOIN pg_class f ON f.oid = con.confrelid
      WHERE con.conrelid = $1 ORDER BY con.conname`,
    [oid],
  );
  // Indexes made by CREATE INDEX: not those backing a PRIMARY KEY, UNIQUE or EXCLUDE constraint.
  const indexes = await client.query<{ name: string; columns: string[]; unique: boolean; where: string | null }>(
    `SELECT i.relname AS name, ix.indisunique AS unique, pg_get_expr(ix.indpred, ix.indrelid) AS where,
            array(SELECT pg_get_indexdef(ix.indexrelid, k, true) || CASE WHEN ix.indoption[k - 1] & 1 = 1 THEN ' DESC' ELSE '' END
                    FROM generate_series(1, ix.indnkeyatts) k ORDER BY k) AS columns
       FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid
      WHERE ix.indrelid = $1 AND NOT EXISTS (SELECT 1 FROM pg_constraint con WHERE con.conindid = ix.indexrelid AND con.contype IN ('p', 'u', 'x'))
      ORDER BY i.relname`,
    [oid],
  );
  const triggers = await client.query<{ type: number }>('SELECT tgtype AS type FROM pg_trigger WHERE tgrelid = $1 AND NOT tgisinternal', [oid]);

  const of = (type: string) => constraints.rows.filter((c) => c.type === type);
  const triggerEvents = new Set<string>();
  for (const { type } of triggers.rows) for (const [bit, event] of TRIGGER_EVENTS) if (type & bit) triggerEvents.add(event);
  return {
    name,
    columns: columns.rows.map((c) => ({
      name: c.name,
      type: c.type,
      notNull: c.not_null,
      default: c.default?.startsWith('nextval(') ? undefined : (c.default ?? undefined),
      generated: c.identity || (c.default?.startsWith('nextval(') ?? false),
    })),
    primaryKey: of('p')[0]?.columns ?? [],
    uniques: of('u').map((c) => c.columns),
    indexes: indexes.rows.map((i) => ({ name: i.name, columns: i.columns, unique: i.unique, where: i.where ?? undefined })),
    foreignKeys: of('f').map((c) => ({ columns: c.columns, table: c.foreign_table ?? '', references: c.references ?? [], onDelete: ACTIONS[c.on_delete] ?? c.on_delete, onUpdate: ACTIONS[c.on_update] ?? c.on_update })),
    checks: of('c').map((c) => c.expression ?? ''),
    triggerEvents: [...triggerEvents],
  };
}

/** Writes expressions over a table's columns the way PostgreSQL prints them. */
export interface ExpressionPrinter {
  /** A boolean expression (a CHECK, the WHERE of a partial index) over `table`'s columns. */
  condition(table: string, expression: string): Promise<string>;
  /** A default value for `column` of `table`. */
  columnDefault(table: string, column: string, expression: string): Promise<string>;
}

/**
 * Prints each expression by declaring it on an empty scratch copy of the table (`LIKE table`, so
 * with PostgreSQL's column types) and reading it back. An expression PostgreSQL cannot parse, or
 * a table it does not have, comes back as `not printable by PostgreSQL: <expression>`: it matches nothing.
 */
export function expressionPrinter(client: pg.Client): ExpressionPrinter {
  const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
  async function onScratchCopy(table: string, declare: string, read: string, expression: string): Promise<string> {
    try {
      await client.query('DROP TABLE IF EXISTS pg_temp.expression_scratch');
      await client.query(`CREATE TEMP TABLE expression_scratch (LIKE ${quoted(table)})`);
      await client.query(declare);
      const { rows } = await client.query<{ printed: string }>(read);
      return rows[0]?.printed ?? `not printable by PostgreSQL: ${expression}`;
    } catch {
      return `not printable by PostgreSQL: ${expression}`;
    }
  }
  return {
    condition: (table, expression) =>
      onScratchCopy(
        table,
        `ALTER TABLE expression_scratch ADD CONSTRAINT printed CHECK (${expression})`,
        `SELECT pg_get_expr(conbin, conrelid) AS printed FROM pg_constraint WHERE conrelid = 'pg_temp.expression_scratch'::regclass AND conname = 'printed'`,
        expression,
      ),
    columnDefault: (table, column, expression) =>
      onScratchCopy(
        table,
        `ALTER TABLE expression_scratch ALTER COLUMN ${quoted(column)} SET DEFAULT ${expression}`,
        `SELECT pg_get_expr(d.adbin, d.adrelid) AS printed FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
          WHERE d.adrelid = 'pg_temp.expression_scratch'::regclass AND a.attname = '${column.replaceAll("'", "''")}'`,
        expression,
      ),
  };
}
