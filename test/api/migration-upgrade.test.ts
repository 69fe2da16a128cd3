/**
 * Upgrading a PostgreSQL database that already holds payments. Migration 0103 moved the per-minute
 * counts of OPEN payments (what a status-filtered list subtracts for payments past their expiry
 * that the sweep has not marked) to new slots, read off each payment's id. Its recount must put
 * every payment where the new trigger looks for it: else an expired payment's -1 misses its row,
 * the row never empties, and list totals stay wrong for good. Runs in the PostgreSQL half of the
 * suite only; SQLite has no slots.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { migrationFiles } from '../../api/db/migrations.ts';
import { openPostgresDatabase } from '../../api/db/postgres-database.ts';
import { openSqliteDatabase } from '../../api/db/sqlite-database.ts';
import { silentLogger } from '../../api/shared/logger.ts';
import { testClusterUrl } from '../helpers/test-database.ts';
import { merchantApi, startTestServer, type TestServer } from '../helpers/test-server.ts';

const onPostgres = testClusterUrl() !== undefined;
const BTC = { short: 'BTC', network: 'bitcoin' };
const PAYMENTS = 96;
// Timeouts of one to four minutes, created 5 s apart: expiries spread over a dozen minutes.
const timeoutOf = (i: number) => 60 * (1 + (i % 4));

/** A statement of a migration file, found by how it starts (up to its terminating line). */
function statementOf(version: string, startsWith: string): string {
  const migration = migrationFiles('postgres').find((m) => m.version.startsWith(version));
  assert.ok(migration, `no migration ${version}`);
  const start = migration.sql.indexOf(startsWith);
  assert.ok(start >= 0, `${version} has no "${startsWith}"`);
  const end = migration.sql.indexOf(startsWith.startsWith('CREATE FUNCTION') ? 'END $$;' : ';', start);
  return migration.sql.slice(start, end + (startsWith.startsWith('CREATE FUNCTION') ? 'END $$;'.length : 1));
}

describe('migration 0103 on a database that holds OPEN payments', { skip: onPostgres ? false : 'runs in the PostgreSQL half of the suite (TEST_DATABASE_URL)' }, () => {
  let server: TestServer;
  let sql: pg.Client;
  let shop: ReturnType<typeof merchantApi>;
  let merchantId: string;
  const expiries: number[] = [];

  /** The per-minute counts as stored, and as the payments say they should be under 0103's slots. */
  async function counts(): Promise<{ stored: unknown[]; expected: unknown[] }> {
    const stored = await sql.query('SELECT minute::text, slot, n::int FROM open_payment_expiries WHERE merchant_id = $1 AND n <> 0 ORDER BY 1, 2', [merchantId]);
    const expected = await sql.query(
      "SELECT (expires_at / 60000)::text AS minute, payment_counter_slot(id) AS slot, COUNT(*)::int AS n FROM payments WHERE merchant_id = $1 AND status = 'OPEN' GROUP BY 1, 2 ORDER BY 1, 2",
      [merchantId],
    );
    return { stored: stored.rows, expected: expected.rows };
  }

  before(async () => {
    server = await startTestServer();
    const merchant = await server.createMerchant('Upgrade Shop');
    shop = merchantApi(server, merchant);
    for (let i = 0; i < PAYMENTS; i++) {
      server.clock.advance(5_000);
      const created = await shop.post('/payment', { amount: '0.001', asset: BTC, timeout: timeoutOf(i), invoice: `upgrade-${i}` });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      expiries.push(server.clock() + timeoutOf(i) * 1000);
    }
    sql = new pg.Client({ connectionString: server.services.config.databaseUrl });
    await sql.connect();
    merchantId = (await sql.query('SELECT merchant_id FROM payments LIMIT 1')).rows[0].merchant_id;

    // Put the database back as migration 0102 left it: its trigger, its eight slots (the last
    // character of the id), its own count, and no record of 0103.
    const version0103 = migrationFiles('postgres').find((m) => m.version.startsWith('0103'))!.version;
    await sql.query('BEGIN');
    await sql.query(statementOf('0102', 'CREATE FUNCTION payments_count_open_expiry()').replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION'));
    await sql.query('DROP FUNCTION payment_counter_slot(TEXT)');
    await sql.query('DELETE FROM open_payment_expiries');
    await sql.query(statementOf('0102', 'INSERT INTO open_payment_expiries'));
    await sql.query('DELETE FROM schema_migrations WHERE version = $1', [version0103]);
    await sql.query('COMMIT');
    const oldSlots = await sql.query<{ n: number }>('SELECT COUNT(DISTINCT slot)::int AS n FROM open_payment_expiries WHERE slot >= 8');
    assert.equal(oldSlots.rows[0]!.n, 0, 'the counts are in 0102\'s eight slots');

    // The upgrade: an instance of this version starts and applies what is missing.
    const upgraded = await openPostgresDatabase(server.services.config.databaseUrl!, silentLogger(), { poolSize: 1 });
    await upgraded.close();
  });

  after(async () => {
    await sql?.end();
    await server?.close();
  });

  test('counts every OPEN payment again in the slot its id gives it', async () => {
    const applied = await sql.query("SELECT COUNT(*)::int AS n FROM schema_migrations WHERE version LIKE '0103%'");
    assert.equal(applied.rows[0].n, 1);
    const { stored, expected } = await counts();
    assert.ok(expected.length > 8, `payments spread over ${expected.length} minute and slot pairs`);
    assert.deepEqual(stored, expected);
  });

  test('as the payments expire, each -1 meets its +1: the counts empty and the totals stay right', async () => {
    // Past every expiry, before the sweep: the list reads them all as EXPIRED from the counts.
    server.clock.set(Math.max(...expiries) + 61_000);
    const unswept = await shop.get('/payment?statuses=EXPIRED&limit=1');
    assert.equal(unswept.status, 200);
    assert.equal(unswept.body.total, PAYMENTS);
    assert.equal((await shop.get('/payment?statuses=OPEN&limit=1')).body.total, 0);

    assert.equal(await server.services.expirySweep.run(), PAYMENTS);
    const left = await sql.query('SELECT minute::text, slot, n::int FROM open_payment_expiries WHERE merchant_id = $1', [merchantId]);
    assert.deepEqual(left.rows, [], 'no row keeps a count its payments no longer have');
    assert.equal((await shop.get('/payment?statuses=EXPIRED&limit=1')).body.total, PAYMENTS);
    assert.equal((await shop.get('/payment?statuses=OPEN&limit=1')).body.total, 0);

    // And payments made after the upgrade are counted and emptied the same way.
    const fresh = await shop.post('/payment', { amount: '0.001', asset: BTC, timeout: 60, invoice: 'after-upgrade' });
    assert.equal(fresh.status, 200);
    const { stored, expected } = await counts();
    assert.deepEqual(stored, expected);
    assert.equal(stored.length, 1);
  });
});

describe('migration 0105 on a SQLite database that holds addresses', { skip: onPostgres ? 'runs in the SQLite half of the suite' : false }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-upgrade-'));
  const file = path.join(dir, 'checkout.db');
  type Row = { id: number; network: string; address: string; dest_tag: string | null; derivation_index: number | null; payment_id: string | null };
  const before0105: Row[] = [
    { id: 1, network: 'bitcoin', address: 'bc1qpooled0', dest_tag: null, derivation_index: 0, payment_id: null },
    { id: 2, network: 'bitcoin', address: 'bc1qclaimed1', dest_tag: null, derivation_index: 1, payment_id: 'a1b2c3d4-0000-4000-8000-000000000001' },
    { id: 5, network: 'ripple', address: 'rShared', dest_tag: null, derivation_index: null, payment_id: null },
    { id: 6, network: 'ripple', address: 'rShared', dest_tag: '7', derivation_index: null, payment_id: 'a1b2c3d4-0000-4000-8000-000000000002' },
    { id: 9, network: 'litecoin', address: 'ltc1qpooled9', dest_tag: null, derivation_index: 9, payment_id: null },
  ];
  let db: ReturnType<typeof openSqliteDatabase>;

  before(async () => {
    // A database as the previous version left it: every migration before 0105, and its addresses.
    const old = new BetterSqlite3(file);
    old.exec('CREATE TABLE schema_migrations (version TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)');
    for (const { version, sql } of migrationFiles('sqlite').filter((m) => m.version < '0105')) {
      old.exec(sql);
      old.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(version, Date.now());
    }
    assert.ok(old.prepare("SELECT 1 FROM sqlite_master WHERE name = 'payments_by_receiving_address'").get(), 'the old schema');
    const insert = old.prepare('INSERT INTO addresses (id, network, address, dest_tag, derivation_index, payment_id) VALUES (@id, @network, @address, @dest_tag, @derivation_index, @payment_id)');
    for (const row of before0105) insert.run(row);
    old.close();
    db = openSqliteDatabase(file);
  });

  after(async () => {
    await db?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('keeps every address as it was, and the guards that keep an address to one payment', async () => {
    assert.deepEqual(await db.all<Row>('SELECT id, network, address, dest_tag, derivation_index, payment_id FROM addresses ORDER BY id'), before0105);
    const indexes = await db.all<{ name: string; unique: number; partial: number }>("SELECT name, \"unique\", partial FROM pragma_index_list('addresses') ORDER BY name");
    assert.deepEqual(
      indexes.map((i) => [i.name, i.unique, i.partial]),
      [
        ['addresses_pool', 0, 1],
        ['addresses_untagged', 1, 1],
        ['sqlite_autoindex_addresses_1', 1, 0],
      ],
    );
    const columns = await db.all<{ name: string }>("SELECT name FROM pragma_index_info('sqlite_autoindex_addresses_1')");
    assert.deepEqual(columns.map((c) => c.name), ['network', 'address', 'dest_tag']);
    await assert.rejects(db.run("INSERT INTO addresses (network, address, dest_tag) VALUES ('bitcoin', 'bc1qclaimed1', NULL)"), /UNIQUE/);
    await assert.rejects(db.run("INSERT INTO addresses (network, address, dest_tag) VALUES ('ripple', 'rShared', '7')"), /UNIQUE/);
    assert.equal(await db.get("SELECT 1 AS found FROM sqlite_master WHERE name = 'payments_by_receiving_address'"), undefined);
    // The pool is read as before: the oldest unclaimed address of the network.
    assert.deepEqual(await db.all("SELECT id FROM addresses INDEXED BY addresses_pool WHERE network = 'bitcoin' AND payment_id IS NULL ORDER BY id"), [{ id: 1 }]);
  });
});
