/**
 * Describes a migrated SQLite database (see `schema-description.ts`) from its catalogue: the
 * `pragma_*` table functions, and for what they do not report (CHECK constraints, the WHERE of a
 * partial index, trigger events) the CREATE statements SQLite keeps in `sqlite_master`.
 */
import type { Database } from '../../api/db/database.ts';
import type { ColumnDescription, ForeignKeyDescription, IndexDescription, SchemaDescription, TableDescription } from './schema-description.ts';

interface ColumnRow {
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
}
interface IndexRow {
  name: string;
  unique: number;
  origin: 'c' | 'u' | 'pk';
}
interface IndexColumnRow {
  name: string | null;
  desc: number;
}
interface ForeignKeyRow {
  id: number;
  table: string;
  from: string;
  to: string | null;
  on_update: string;
  on_delete: string;
}

/** Reads every table of `db` that is not SQLite's own (`sqlite_*`). */
export async function describeSqlite(db: Database): Promise<SchemaDescription> {
  const tables = await db.all<{ name: string; sql: string }>(`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`);
  const triggers = await db.all<{ tbl_name: string; sql: string }>(`SELECT tbl_name, sql FROM sqlite_master WHERE type = 'trigger'`);
  const described: TableDescription[] = [];
  for (const { name, sql } of tables) described.push(await describeTable(db, name, sql, triggers));
  return { tables: described };
}

async function describeTable(db: Database, table: string, sql: string, triggers: ReadonlyArray<{ tbl_name: string; sql: string }>): Promise<TableDescription> {
  const columnRows = await db.all<ColumnRow>('SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?) ORDER BY cid', [table]);
  const primaryKey = columnRows.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
  // A lone INTEGER PRIMARY KEY is the rowid: SQLite numbers new rows itself.
  const rowidColumn = primaryKey.length === 1 && columnRows.find((c) => c.name === primaryKey[0])?.type.toUpperCase() === 'INTEGER' ? primaryKey[0] : undefined;
  const columns: ColumnDescription[] = columnRows.map((c) => ({
    name: c.name,
    type: c.type,
    notNull: c.notnull === 1,
    default: c.dflt_value ?? undefined,
    generated: c.name === rowidColumn,
  }));

  const uniques: string[][] = [];
  const indexes: IndexDescription[] = [];
  for (const index of await db.all<IndexRow>('SELECT name, "unique", origin FROM pragma_index_list(?) ORDER BY name', [table])) {
    const keys = await db.all<IndexColumnRow>('SELECT name, "desc" FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno', [index.name]);
    const names = keys.map((k) => `${k.name ?? '<expression>'}${k.desc ? ' DESC' : ''}`);
    if (index.origin === 'u') uniques.push(names);
    if (index.origin !== 'c') continue;
    const created = await db.get<{ sql: string }>(`SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`, [index.name]);
    indexes.push({ name: index.name, columns: names, unique: index.unique === 1, where: /\bWHERE\b([\s\S]*)$/i.exec(created?.sql ?? '')?.[1]?.trim() });
  }

  const foreignKeys = new Map<number, { table: string; columns: string[]; references: Array<string | null>; onDelete: string; onUpdate: string }>();
  for (const fk of await db.all<ForeignKeyRow>('SELECT id, "table", "from", "to", on_update, on_delete FROM pragma_foreign_key_list(?) ORDER BY id, seq', [table])) {
    const key = foreignKeys.get(fk.id) ?? { table: fk.table, columns: [], references: [], onDelete: fk.on_delete, onUpdate: fk.on_update };
    key.columns.push(fk.from);
    key.references.push(fk.to);
    foreignKeys.set(fk.id, key);
  }
  const described: ForeignKeyDescription[] = [];
  for (const fk of foreignKeys.values()) {
    // REFERENCES t without columns names t's primary key.
    const references = fk.references.every((r) => r !== null)
      ? (fk.references as string[])
      : (await db.all<ColumnRow>('SELECT name, pk FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk', [fk.table])).map((c) => c.name);
    described.push({ columns: fk.columns, table: fk.table, references, onDelete: fk.onDelete, onUpdate: fk.onUpdate });
  }

  const triggerEvents = triggers
    .filter((t) => t.tbl_name === table)
    .map((t) => /^CREATE\s+(?:TEMP\w*\s+)?TRIGGER\s+(?:IF\s+NOT\s+EXISTS\s+)?\S+\s+(?:BEFORE\s+|AFTER\s+|INSTEAD\s+OF\s+)?(INSERT|UPDATE|DELETE)\b/i.exec(t.sql)?.[1]?.toUpperCase() ?? `<unread: ${t.sql}>`);

  return { name: table, columns, primaryKey, uniques, indexes, foreignKeys: described, checks: checkExpressions(sql), triggerEvents: [...new Set(triggerEvents)] };
}

/** The expression inside each CHECK (…) of a CREATE TABLE statement, comments and quoted text skipped. */
export function checkExpressions(createTable: string): string[] {
  const checks: string[] = [];
  let i = 0;
  const skipQuoted = (at: number): number => {
    const quote = createTable[at]!;
    let end = at + 1;
    while (end < createTable.length && !(createTable[end] === quote && createTable[end + 1] !== quote)) end += createTable[end] === quote ? 2 : 1;
    return end + 1;
  };
  while (i < createTable.length) {
    const ch = createTable[i]!;
    if (ch === "'" || ch === '"') {
      i = skipQuoted(i);
    } else if (createTable.startsWith('--', i)) {
      const newline = createTable.indexOf('\n', i);
      i = newline === -1 ? createTable.length : newline;
    } else if (/^CHECK\s*\(/i.test(createTable.slice(i, i + 12)) && !/\w/.test(createTable[i - 1] ?? '')) {
      const open = createTable.indexOf('(', i);
      let depth = 0;
      let end = open;
      for (; end < createTable.length; end++) {
        const c = createTable[end]!;
        if (c === "'" || c === '"') end = skipQuoted(end) - 1;
        else if (c === '(') depth++;
        else if (c === ')' && --depth === 0) break;
      }
      checks.push(createTable.slice(open + 1, end).trim());
      i = end + 1;
    } else {
      i++;
    }
  }
  return checks;
}
