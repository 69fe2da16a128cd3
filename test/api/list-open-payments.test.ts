/**
 * Lists filtered by status over a history where OPEN payments are most of it: hundreds past their
 * expiry that the sweep has not marked (read as EXPIRED) beside hundreds still running. Totals and
 * pages must be what the rule says, on each of the ways a page is read (the OPEN payments of one
 * side few or many), across minutes of expiry and after the sweep; and the SQL of those lists must
 * not walk the OPEN payments (SQLite's query plans: the partial expiry index, ranges bounded on
 * both sides, and the rows a selective filter names).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openSqliteDatabase } from '../../api/db/sqlite-database.ts';
import { type PaymentFilters, planCount, planPage } from '../../api/payments/payment-list.store.ts';
import type { PaymentStatus } from '../../api/payments/payment-status.ts';
import { merchantApi, postJson, startTestServer, type TestServer } from '../helpers/test-server.ts';

const START = Date.parse('2026-11-21T10:00:20.000Z');
const BTC = { short: 'BTC', network: 'bitcoin' };
// More than a page's probe (offset + limit + 200) on each side, so both ways of reading each are used.
const PAST_EXPIRY = 320;
const RUNNING = 330;

type Api = ReturnType<typeof merchantApi>;
let server: TestServer;
let shop: Api;
/** Ids by the status a list reports, oldest first. */
const expected: Record<'OPEN' | 'EXPIRED' | 'CONFIRMING' | 'COMPLETE', string[]> = { OPEN: [], EXPIRED: [], CONFIRMING: [], COMPLETE: [] };
/** Invoice → id of every payment. */
const byInvoice = new Map<string, string>();

async function create(body: Record<string, unknown>): Promise<{ id: string; addressTo: string }> {
  server.clock.advance(150);
  const created = await shop.post('/payment', body);
  assert.equal(created.status, 200, JSON.stringify(created.body));
  byInvoice.set(body.invoice as string, created.body.id);
  return created.body;
}

before(async () => {
  server = await startTestServer();
  server.clock.set(START);
  shop = merchantApi(server, await server.createMerchant('Burst Shop'));
  // Swept: stored EXPIRED.
  for (let i = 0; i < 3; i++) expected.EXPIRED.push((await create({ amount: '0.001', asset: BTC, timeout: 60, invoice: `swept-${i}` })).id);
  server.clock.advance(61_000);
  assert.equal(await server.services.expirySweep.run(), 3);
  // A burst 150 ms apart: 48 s of expiries, which cross a minute boundary.
  for (let i = 0; i < PAST_EXPIRY; i++) expected.EXPIRED.push((await create({ amount: '0.001', asset: BTC, timeout: 60, invoice: `burst-${i}` })).id);
  const paid = await create({ amount: '0.5', asset: BTC, invoice: 'paid' });
  await postJson(`${server.api}/dev/transactions`, { address: paid.addressTo, amount: '0.5', asset: BTC, confirmations: 2 });
  expected.COMPLETE.push(paid.id);
  const paying = await create({ amount: '0.5', asset: BTC, invoice: 'paying' });
  await postJson(`${server.api}/dev/transactions`, { address: paying.addressTo, amount: '0.5', asset: BTC, confirmations: 0 });
  expected.CONFIRMING.push(paying.id);
  // The burst has run out, its last minute now the current one (counted on the index, the
  // earlier minutes from the counts kept per minute); the running payments follow.
  server.clock.advance(60_000);
  for (let i = 0; i < RUNNING; i++) expected.OPEN.push((await create({ amount: '0.001', asset: BTC, invoice: `running-${i}` })).id);
});

after(async () => {
  await server?.close();
});

/** Every payment's place in the order of creation (150 ms apart, so the list's order, reversed). */
const created = new Map<string, number>();

async function assertList(statuses: Array<keyof typeof expected>, page: number, limit: number, extra: Record<string, string[]> = {}, only?: Set<string>) {
  const matching = statuses
    .flatMap((s) => expected[s])
    .sort((a, b) => created.get(b)! - created.get(a)!)
    .filter((id) => only === undefined || only.has(id));
  const query = new URLSearchParams({ statuses: statuses.join(','), page: String(page), limit: String(limit) });
  for (const [name, values] of Object.entries(extra)) for (const value of values) query.append(name, value);
  const list = await shop.get(`/payment?${query}`);
  assert.equal(list.status, 200);
  const what = `statuses=${statuses.join(',')} page ${page} limit ${limit} ${JSON.stringify(extra)}`;
  assert.equal(list.body.total, matching.length, `total of ${what}`);
  assert.deepEqual(
    list.body.data.map((r: { id: string }) => r.id),
    matching.slice((page - 1) * limit, page * limit),
    `page of ${what}`,
  );
  for (const record of list.body.data as Array<{ id: string; status: string }>) assert.ok(expected[record.status as keyof typeof expected].includes(record.id), `${record.id} reads ${record.status}`);
}

const SHAPES: Array<[Array<keyof typeof expected>, number, number]> = [
  [['OPEN'], 1, 50],
  [['OPEN'], 3, 100],
  [['OPEN'], 7, 50],
  [['EXPIRED'], 1, 50],
  [['EXPIRED'], 4, 100],
  [['OPEN', 'EXPIRED'], 2, 100],
  [['OPEN', 'CONFIRMING'], 1, 20],
  [['COMPLETE', 'EXPIRED'], 1, 100],
  [['CONFIRMING', 'COMPLETE'], 1, 1],
  [['OPEN', 'CONFIRMING', 'COMPLETE'], 4, 100],
];

describe('a list filtered by status where most payments are OPEN', () => {
  before(() => {
    for (const id of byInvoice.values()) created.set(id, created.size);
  });

  test('counts and pages OPEN payments past their expiry as EXPIRED, and running ones as OPEN', async () => {
    for (const [statuses, page, limit] of SHAPES) await assertList(statuses, page, limit);
  });

  test('reads only the payments that ids or invoices name, and applies the status rule to them', async () => {
    const named = ['burst-0', 'burst-319', 'running-0', 'running-329', 'paid', 'swept-1'].map((i) => byInvoice.get(i)!);
    const only = new Set(named);
    const invoices = ['burst-0', 'burst-319', 'running-0', 'running-329', 'paid', 'swept-1'];
    for (const statuses of [['OPEN'], ['EXPIRED'], ['OPEN', 'COMPLETE']] as Array<Array<keyof typeof expected>>) {
      await assertList(statuses, 1, 20, { invoices }, only);
      await assertList(statuses, 1, 20, { ids: named }, only);
    }
  });

  test('keeps the same totals and pages once the sweep stores EXPIRED, and as the running ones run out', async () => {
    assert.equal(await server.services.expirySweep.run(), PAST_EXPIRY);
    for (const [statuses, page, limit] of SHAPES) await assertList(statuses, page, limit);
    // The running payments expire over 50 s of the next hour; halfway, unswept, half read EXPIRED.
    const firstRunning = await shop.get(`/payment/${expected.OPEN[0]}`);
    server.clock.set(Date.parse(firstRunning.body.expiresAt) + (RUNNING / 2) * 150 - 1);
    const runOut = expected.OPEN.splice(0, RUNNING / 2);
    expected.EXPIRED.push(...runOut);
    for (const [statuses, page, limit] of SHAPES) await assertList(statuses, page, limit);
  });
});

describe('the SQL of a list filtered by status', { skip: process.env.TEST_DATABASE_URL ? 'SQLite query plans (the PostgreSQL half runs the lists above)' : false }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-list-plan-'));
  const db = openSqliteDatabase(path.join(dir, 'checkout.db'));
  after(async () => {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const NOW = Date.parse('2026-11-21T10:00:00.000Z');
  // The lines of a plan that read the payments table itself.
  const paymentsLines = async (query: { text: string; params: Record<string, unknown> }) =>
    (await db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${query.text}`, query.params)).map((r) => r.detail).filter((d) => /^(SCAN|SEARCH) payments\b/.test(d));
  const statusSets: PaymentStatus[][] = [['OPEN'], ['EXPIRED'], ['OPEN', 'CONFIRMING'], ['COMPLETE', 'EXPIRED'], ['OPEN', 'CONFIRMING', 'COMPLETE']];

  test('counts the unswept OPEN payments of the current minute only, on the partial expiry index', async () => {
    for (const statuses of statusSets) {
      const lines = await paymentsLines(planCount(db.dialect, 'm', { statuses }, NOW));
      assert.deepEqual(lines, ['SEARCH payments USING COVERING INDEX payments_open_by_expiry (merchant_id=? AND expires_at>? AND expires_at<?)'], `count of ${statuses}`);
    }
  });

  test('reads a page of OPEN payments on the expiry index or in order of the status index, never a scan', async () => {
    for (const statuses of statusSets) {
      const lines = await paymentsLines(planPage(db.dialect, 'm', { statuses }, NOW, 40, 20));
      assert.ok(lines.length > 0 && lines.every((l) => l.startsWith('SEARCH payments USING ')), `page of ${statuses}: ${lines.join('; ')}`);
      const running = statuses.includes('OPEN') ? 'payments_open_by_expiry (merchant_id=? AND expires_at>?)' : undefined;
      const pastExpiry = statuses.includes('EXPIRED') ? 'payments_open_by_expiry (merchant_id=? AND expires_at<?)' : undefined;
      for (const range of [running, pastExpiry]) if (range) assert.ok(lines.includes(`SEARCH payments USING INDEX ${range}`), `page of ${statuses} reads ${range}: ${lines.join('; ')}`);
    }
  });

  test('beside ids, invoices or transaction ids, reads only the rows those name', async () => {
    const selective: Array<[PaymentFilters, RegExp]> = [
      [{ invoices: ['a', 'b'] }, /^SEARCH payments USING INDEX payments_by_invoice \(merchant_id=\? AND invoice=\?\)$/],
      [{ ids: ['x'] }, /^SEARCH payments USING INDEX sqlite_autoindex_payments_1 \(id=\?\)$|^SEARCH payments USING (INTEGER )?PRIMARY KEY/],
      [{ txnIds: ['t'] }, /^SEARCH payments USING INDEX sqlite_autoindex_payments_1 \(id=\?\)$/],
    ];
    for (const statuses of statusSets) {
      for (const [filters, expectedLine] of selective) {
        for (const kind of ['page', 'count'] as const) {
          const query = kind === 'page' ? planPage(db.dialect, 'm', { ...filters, statuses }, NOW, 0, 20) : planCount(db.dialect, 'm', { ...filters, statuses }, NOW);
          const lines = await paymentsLines(query);
          assert.ok(lines.length === 1 && expectedLine.test(lines[0]!), `${kind} of ${statuses} + ${JSON.stringify(filters)}: ${lines.join('; ')}`);
        }
      }
    }
  });

  test('a search reads the payments its term names (by id, invoice, receiving address, transaction id), never the history', async () => {
    const named = ['SEARCH payments USING INDEX sqlite_autoindex_payments_1 (id=?)', 'SEARCH payments USING INDEX payments_by_invoice (merchant_id=? AND invoice=?)'];
    for (const statuses of [undefined, ...statusSets]) {
      for (const kind of ['page', 'count'] as const) {
        const filters = { ...(statuses ? { statuses } : {}), search: 'order-1' };
        const query = kind === 'page' ? planPage(db.dialect, 'm', filters, NOW, 20, 20) : planCount(db.dialect, 'm', filters, NOW);
        const lines = await paymentsLines(query);
        assert.deepEqual([...new Set(lines)].sort(), [...named].sort(), `${kind} of a search + ${statuses ?? 'no status'}: ${lines.join('; ')}`);
        const all = (await db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${query.text}`, query.params)).map((r) => r.detail);
        assert.ok(all.includes('SEARCH addresses USING INDEX sqlite_autoindex_addresses_1 (network=? AND address=?)'), `${kind}: ${all.join('; ')}`);
      }
    }
  });
});
