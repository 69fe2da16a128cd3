/** Waits, read-only, until the running service's address pool is full, so creates never derive keys. */
import Database from 'better-sqlite3';
import path from 'node:path';
import pg from 'pg';

/** Unclaimed addresses per network, read from the SQLite file. */
export function pooledCounts(dataDir: string): Record<string, number> {
  const db = new Database(path.join(dataDir, 'checkout.db'), { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare<[], { network: string; n: number }>('SELECT network, COUNT(*) AS n FROM addresses WHERE payment_id IS NULL GROUP BY network')
      .all();
    return Object.fromEntries(rows.map((row) => [row.network, row.n]));
  } finally {
    db.close();
  }
}

/** Unclaimed addresses per network, read from a PostgreSQL database. */
export async function pooledCountsIn(databaseUrl: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ network: string; n: string }>('SELECT network, COUNT(*) AS n FROM addresses WHERE payment_id IS NULL GROUP BY network');
    return Object.fromEntries(rows.map((row) => [row.network, Number(row.n)]));
  } finally {
    await client.end();
  }
}

/**
 * Polls until every pooled network holds `size` unclaimed addresses; returns the seconds waited.
 * Reads the SQLite file in `dataDir`, or the PostgreSQL database at `databaseUrl`.
 */
export async function waitForFullPool(dataDir: string, networks: readonly string[], size: number, timeoutMs: number, databaseUrl?: string): Promise<number> {
  const started = Date.now();
  for (;;) {
    const counts = databaseUrl ? await pooledCountsIn(databaseUrl) : pooledCounts(dataDir);
    if (networks.every((network) => (counts[network] ?? 0) >= size)) return (Date.now() - started) / 1000;
    if (Date.now() - started > timeoutMs) {
      throw new Error(`the address pool did not fill to ${size} within ${timeoutMs / 1000} s: ${JSON.stringify(counts)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
