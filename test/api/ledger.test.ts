/**
 * The balance ledger (api/balance/ledger.ts over api/balance/ledger.store.ts) on a real migrated
 * database (SQLite, or PostgreSQL when the suite runs there) and a fixed clock.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { balanceOf, InsufficientFunds, type LedgerPosting, post } from '../../api/balance/ledger.ts';
import { BALANCE_READS, LedgerStore } from '../../api/balance/ledger.store.ts';
import { type Database, UniqueViolation } from '../../api/db/database.ts';
import { ApiError } from '../../api/http/api-error.ts';
import { createManualClock } from '../../api/shared/clock.ts';
import { Amount } from '../../api/shared/money.ts';
import type { TestDatabase } from '../helpers/test-database.ts';
import { openTestStore } from '../helpers/test-server.ts';

const NOW = Date.parse('2026-11-21T10:15:30.123Z');
const MERCHANT = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';
const amount = (value: string) => new Amount(value);
const zero = amount('0');
const clock = createManualClock(NOW);

let dataDir: string;
let db: Database;
let database: TestDatabase | undefined;
let btc: number;
let usdt: number;

beforeEach(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-ledger-'));
  ({ db, database } = await openTestStore(dataDir));
  for (const [id, hash] of [
    [MERCHANT, 'hash-1'],
    [OTHER, 'hash-2'],
  ]) {
    await db.run("INSERT INTO merchants (id, name, api_key_hash, secret_key_enc, created_at) VALUES (?, 'Shop', ?, 'sealed', 0)", [id, hash]);
  }
  const assetId = async (short: string, network: string) => (await db.get<{ id: number }>('SELECT id FROM assets WHERE short = ? AND network = ?', [short, network]))!.id;
  btc = await assetId('BTC', 'bitcoin');
  usdt = await assetId('USDT', 'tron');
});
afterEach(async () => {
  await db.close();
  await database?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Posts inside one write transaction, as the use cases do: a refused posting leaves nothing behind. */
const postInTransaction = (posting: LedgerPosting) => db.transaction((tx) => post(new LedgerStore(tx), clock, posting));
const ledger = () => new LedgerStore(db);
const balance = (merchantId: string, assetId: number) => balanceOf(ledger(), merchantId, assetId);

function credit(merchantId: string, assetId: number, value: string, decimals = 8, paymentTransactionId?: number) {
  return postInTransaction({
    merchantId,
    assetId,
    decimals,
    kind: 'payment-credit',
    availableDelta: amount(value),
    reservedDelta: zero,
    ...(paymentTransactionId !== undefined ? { paymentTransactionId } : {}),
  });
}

function reserve(value: string, withdrawalId?: string) {
  return postInTransaction({
    merchantId: MERCHANT,
    assetId: btc,
    decimals: 8,
    kind: 'withdrawal-reserve',
    availableDelta: amount(value).negated(),
    reservedDelta: amount(value),
    ...(withdrawalId ? { withdrawalId } : {}),
  });
}

const rows = () =>
  db.all('SELECT merchant_id, asset_id, kind, available_delta, reserved_delta, available_after, reserved_after, created_at FROM ledger_entries ORDER BY seq');
const show = (b: { available: Amount; reserved: Amount }) => ({ available: b.available.toFixed(8), reserved: b.reserved.toFixed(8) });
/** A unique index refused the row (SQLite and PostgreSQL word it differently). */
const uniqueViolation = (err: unknown) => {
  assert.ok(err instanceof UniqueViolation, `expected a UniqueViolation, got ${String(err)}`);
  return true;
};

describe('the ledger', () => {
  test('starts every account at zero', async () => {
    assert.deepEqual(show(await balance(MERCHANT, btc)), { available: '0.00000000', reserved: '0.00000000' });
    assert.deepEqual(await ledger().balances(MERCHANT), []);
  });

  test('writes one row per posting with its deltas, the running balance and the clock time', async () => {
    const after = await credit(MERCHANT, btc, '0.015');
    assert.deepEqual(show(after), { available: '0.01500000', reserved: '0.00000000' });
    await reserve('0.005');
    assert.deepEqual(await rows(), [
      { merchant_id: MERCHANT, asset_id: btc, kind: 'payment-credit', available_delta: '0.01500000', reserved_delta: '0.00000000', available_after: '0.01500000', reserved_after: '0.00000000', created_at: NOW },
      { merchant_id: MERCHANT, asset_id: btc, kind: 'withdrawal-reserve', available_delta: '-0.00500000', reserved_delta: '0.00500000', available_after: '0.01000000', reserved_after: '0.00500000', created_at: NOW },
    ]);
    assert.deepEqual(show(await balance(MERCHANT, btc)), { available: '0.01000000', reserved: '0.00500000' });
  });

  test('adds exactly, without binary floating point', async () => {
    for (let i = 0; i < 10; i++) await credit(MERCHANT, btc, '0.1');
    assert.equal((await balance(MERCHANT, btc)).available.toFixed(8), '1.00000000');
    await credit(MERCHANT, btc, '0.00000001');
    assert.equal((await balance(MERCHANT, btc)).available.toFixed(), '1.00000001');
  });

  test("keeps accounts apart per merchant and per asset, with the asset's decimals", async () => {
    await credit(MERCHANT, btc, '1');
    await credit(MERCHANT, usdt, '25.5', 6);
    await credit(OTHER, btc, '7');
    assert.deepEqual(
      (await ledger().balances(MERCHANT)).map((b) => [b.assetId, b.available, b.reserved]),
      [
        [btc, '1.00000000', '0.00000000'],
        [usdt, '25.500000', '0.000000'],
      ],
    );
    assert.equal((await db.get<{ available_after: string }>('SELECT available_after FROM ledger_entries WHERE asset_id = ?', [usdt]))!.available_after, '25.500000');
    assert.equal((await balance(OTHER, btc)).available.toFixed(), '7');
  });

  test('refuses a debit beyond the available balance with InsufficientFunds and writes nothing', async () => {
    await credit(MERCHANT, btc, '0.5');
    const before = await rows();
    await assert.rejects(
      () => reserve('0.50000001'),
      (err: unknown) => {
        assert.ok(err instanceof InsufficientFunds);
        assert.ok(!(err instanceof ApiError), 'the ledger knows nothing of HTTP; the withdrawal use case words the 422');
        assert.deepEqual({ available: err.available.toFixed(8), needed: err.needed.toFixed(8) }, { available: '0.50000000', needed: '0.50000001' });
        return true;
      },
    );
    assert.deepEqual(await rows(), before);
    assert.deepEqual(show(await reserve('0.5')), { available: '0.00000000', reserved: '0.50000000' }, 'exactly the balance is fine');
  });

  test('refuses to let the reserved balance go negative', async () => {
    await credit(MERCHANT, btc, '1');
    await assert.rejects(
      () => postInTransaction({ merchantId: MERCHANT, assetId: btc, decimals: 8, kind: 'withdrawal-send', availableDelta: zero, reservedDelta: amount('-0.1') }),
      /reserved balance .* would go negative/,
    );
    assert.equal((await rows()).length, 1);
  });

  test("refuses a delta finer than the asset's decimals rather than rounding it", async () => {
    await assert.rejects(() => credit(MERCHANT, usdt, '0.0000001', 6), /more than 6 fractional digits/);
    assert.equal((await rows()).length, 0);
  });

  test('credits a payment transaction once, and knows that it did', async () => {
    await db.run(
      `INSERT INTO payments (id, merchant_id, asset_id, amount, address_to, confirms_needed, timeout, expires_at, status, created_at, updated_at)
       VALUES ('p1', ?, ?, '1', 'addr', 2, 3600, 0, 'OPEN', 0, 0)`,
      [MERCHANT, btc],
    );
    const transactionId = (await db.get<{ id: number }>(
      "INSERT INTO payment_transactions (payment_id, txn_id, amount, address_from, address_to, confirmations, late, seen_at) VALUES ('p1', 't1', '1', 'a', 'b', 2, 0, 0) RETURNING id",
    ))!.id;
    assert.equal(await ledger().isCredited(transactionId), false);
    await credit(MERCHANT, btc, '1', 8, transactionId);
    assert.equal(await ledger().isCredited(transactionId), true);
    await assert.rejects(() => credit(MERCHANT, btc, '1', 8, transactionId), uniqueViolation);
    assert.equal((await balance(MERCHANT, btc)).available.toFixed(), '1');
  });

  test('posts each step of a withdrawal once', async () => {
    await credit(MERCHANT, btc, '1');
    await db.run(
      `INSERT INTO withdrawals (id, merchant_id, asset_id, amount, fee, received_amount, address_to, status, invoice, created_at, updated_at)
       VALUES ('w1', ?, ?, '0.1', '0', '0.1', 'addr', 'OPEN', 'inv', 0, 0)`,
      [MERCHANT, btc],
    );
    await reserve('0.1', 'w1');
    await assert.rejects(() => reserve('0.1', 'w1'), uniqueViolation);
    assert.deepEqual(show(await balance(MERCHANT, btc)), { available: '0.90000000', reserved: '0.10000000' });
  });

  test("reads balances off the account index, however much the merchant's other assets posted since", async () => {
    const postgres = db.dialect.name === 'postgres';
    // 20,000 BTC rows long ago, then 20,000 USDT rows: the BTC account's latest row is far back.
    const rows = (assetId: number, from: number) =>
      postgres
        ? `INSERT INTO ledger_entries (merchant_id, asset_id, kind, available_delta, reserved_delta, available_after, reserved_after, created_at)
             SELECT '${MERCHANT}', ${assetId}, 'payment-credit', '1', '0', g::text, '0', g FROM generate_series(${from}, ${from + 19_999}) g`
        : `WITH RECURSIVE g(n) AS (SELECT ${from} UNION ALL SELECT n + 1 FROM g WHERE n < ${from + 19_999})
             INSERT INTO ledger_entries (merchant_id, asset_id, kind, available_delta, reserved_delta, available_after, reserved_after, created_at)
             SELECT '${MERCHANT}', ${assetId}, 'payment-credit', '1', '0', CAST(n AS TEXT), '0', n FROM g`;
    await db.run(rows(btc, 1));
    await db.run(rows(usdt, 20_001));
    await db.run('ANALYZE ledger_entries');
    assert.deepEqual(await ledger().latest(MERCHANT, btc), { assetId: btc, available: '20000', reserved: '0' });
    assert.deepEqual(
      (await ledger().balances(MERCHANT)).map((b) => [b.assetId, b.available]),
      [
        [btc, '20000'],
        [usdt, '40000'],
      ].sort((a, b) => (a[0] as number) - (b[0] as number)),
    );
    const reads = BALANCE_READS[db.dialect.name];
    const params = { merchantId: MERCHANT, assetId: btc };
    if (postgres) {
      // Pages read: a few per account looked up (one per asset for the list), against hundreds
      // for a walk of the history (458 and 696 with the earlier statements).
      const assets = Number((await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM assets'))!.n);
      const bounds = { latest: 20, balances: 20 + 6 * assets };
      for (const [name, sql] of [
        ['latest', reads.latest],
        ['balances', reads.balances],
      ] as const) {
        const [explained] = await db.all<{ 'QUERY PLAN': [{ Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }] }>(
          `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`,
          name === 'latest' ? params : { merchantId: MERCHANT },
        );
        const plan = explained!['QUERY PLAN'][0].Plan;
        const pages = plan['Shared Hit Blocks'] + plan['Shared Read Blocks'];
        assert.ok(pages < bounds[name], `${name} read ${pages} pages: ${JSON.stringify(explained)}`);
      }
    } else {
      for (const sql of [reads.latest, reads.balances]) {
        const details = (await db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params)).map((row) => row.detail);
        assert.ok(
          details.some((detail) => /ledger_by_account \(merchant_id=\? AND asset_id=\?\)/.test(detail)),
          details.join('; '),
        );
      }
    }
  });

  test('always equals the sum of its rows', async () => {
    await credit(MERCHANT, btc, '0.3');
    await reserve('0.1');
    await credit(MERCHANT, btc, '0.05');
    await postInTransaction({ merchantId: MERCHANT, assetId: btc, decimals: 8, kind: 'withdrawal-release', availableDelta: amount('0.04'), reservedDelta: amount('-0.04') });
    await postInTransaction({ merchantId: MERCHANT, assetId: btc, decimals: 8, kind: 'withdrawal-send', availableDelta: zero, reservedDelta: amount('-0.06') });
    const deltas = await db.all<{ available_delta: string; reserved_delta: string }>('SELECT available_delta, reserved_delta FROM ledger_entries ORDER BY seq');
    assert.equal(deltas.length, 5);
    const total = (list: string[]) => list.reduce((acc, v) => acc.plus(v), zero).toFixed(8);
    const current = show(await balance(MERCHANT, btc));
    assert.deepEqual(current, { available: '0.29000000', reserved: '0.00000000' });
    assert.deepEqual({ available: total(deltas.map((d) => d.available_delta)), reserved: total(deltas.map((d) => d.reserved_delta)) }, current);
  });
});
