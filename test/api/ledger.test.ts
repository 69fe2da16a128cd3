/** The balance ledger (api/balance/ledger.store.ts) over a real migrated SQLite database and a fixed clock. */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { createLedger, type Ledger } from '../../api/balance/ledger.store.ts';
import { openDatabase, type Db } from '../../api/db/open-database.ts';
import { ApiError } from '../../api/http/api-error.ts';
import { createManualClock } from '../../api/shared/clock.ts';
import { Amount } from '../../api/shared/money.ts';

const NOW = Date.parse('2026-11-21T10:15:30.123Z');
const MERCHANT = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';
const amount = (value: string) => new Amount(value);
const zero = amount('0');

let db: Db;
let ledger: Ledger;
let btc: number;
let usdt: number;

beforeEach(() => {
  db = openDatabase(':memory:');
  const insertMerchant = db.prepare("INSERT INTO merchants (id, name, api_key_hash, secret_key_enc, created_at) VALUES (?, 'Shop', ?, 'sealed', 0)");
  insertMerchant.run(MERCHANT, 'hash-1');
  insertMerchant.run(OTHER, 'hash-2');
  const assetId = db.prepare<[string, string], { id: number }>('SELECT id FROM assets WHERE short = ? AND network = ?');
  btc = assetId.get('BTC', 'bitcoin')!.id;
  usdt = assetId.get('USDT', 'tron')!.id;
  ledger = createLedger(db, createManualClock(NOW));
});
afterEach(() => db.close());

function credit(merchantId: string, assetId: number, value: string, decimals = 8, paymentTransactionId?: number) {
  return ledger.post({
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
  return ledger.post({
    merchantId: MERCHANT,
    assetId: btc,
    decimals: 8,
    kind: 'withdrawal-reserve',
    availableDelta: amount(value).negated(),
    reservedDelta: amount(value),
    ...(withdrawalId ? { withdrawalId } : {}),
  });
}

const rows = () => db.prepare('SELECT merchant_id, asset_id, kind, available_delta, reserved_delta, available_after, reserved_after, created_at FROM ledger_entries ORDER BY seq').all();
const show = (b: { available: Amount; reserved: Amount }) => ({ available: b.available.toFixed(8), reserved: b.reserved.toFixed(8) });

describe('the ledger', () => {
  test('starts every account at zero', () => {
    assert.deepEqual(show(ledger.balanceOf(MERCHANT, btc)), { available: '0.00000000', reserved: '0.00000000' });
    assert.deepEqual(ledger.balances(MERCHANT), []);
  });

  test('writes one row per posting with its deltas, the running balance and the clock time', () => {
    const after = credit(MERCHANT, btc, '0.015');
    assert.deepEqual(show(after), { available: '0.01500000', reserved: '0.00000000' });
    reserve('0.005');
    assert.deepEqual(rows(), [
      { merchant_id: MERCHANT, asset_id: btc, kind: 'payment-credit', available_delta: '0.01500000', reserved_delta: '0.00000000', available_after: '0.01500000', reserved_after: '0.00000000', created_at: NOW },
      { merchant_id: MERCHANT, asset_id: btc, kind: 'withdrawal-reserve', available_delta: '-0.00500000', reserved_delta: '0.00500000', available_after: '0.01000000', reserved_after: '0.00500000', created_at: NOW },
    ]);
    assert.deepEqual(show(ledger.balanceOf(MERCHANT, btc)), { available: '0.01000000', reserved: '0.00500000' });
  });

  test('adds exactly, without binary floating point', () => {
    for (let i = 0; i < 10; i++) credit(MERCHANT, btc, '0.1');
    assert.equal(ledger.balanceOf(MERCHANT, btc).available.toFixed(8), '1.00000000');
    credit(MERCHANT, btc, '0.00000001');
    assert.equal(ledger.balanceOf(MERCHANT, btc).available.toFixed(), '1.00000001');
  });

  test('keeps accounts apart per merchant and per asset, with the asset\'s decimals', () => {
    credit(MERCHANT, btc, '1');
    credit(MERCHANT, usdt, '25.5', 6);
    credit(OTHER, btc, '7');
    assert.deepEqual(
      ledger.balances(MERCHANT).map((b) => [b.assetId, b.available.toFixed(), b.reserved.toFixed()]),
      [
        [btc, '1', '0'],
        [usdt, '25.5', '0'],
      ],
    );
    assert.equal((db.prepare('SELECT available_after FROM ledger_entries WHERE asset_id = ?').get(usdt) as { available_after: string }).available_after, '25.500000');
    assert.equal(ledger.balanceOf(OTHER, btc).available.toFixed(), '7');
  });

  test('refuses a debit beyond the available balance with 422 insufficient-funds and writes nothing', () => {
    credit(MERCHANT, btc, '0.5');
    const before = rows();
    assert.throws(
      () => reserve('0.50000001'),
      (err: unknown) => {
        assert.ok(err instanceof ApiError);
        assert.deepEqual(
          { status: err.status, body: err.toBody() },
          { status: 422, body: { error: { code: 'insufficient-funds', message: 'The available balance is 0.50000000, less than the 0.50000001 needed.' } } },
        );
        return true;
      },
    );
    assert.deepEqual(rows(), before);
    assert.deepEqual(show(reserve('0.5')), { available: '0.00000000', reserved: '0.50000000' }, 'exactly the balance is fine');
  });

  test('refuses to let the reserved balance go negative', () => {
    credit(MERCHANT, btc, '1');
    assert.throws(
      () => ledger.post({ merchantId: MERCHANT, assetId: btc, decimals: 8, kind: 'withdrawal-send', availableDelta: zero, reservedDelta: amount('-0.1') }),
      /reserved balance .* would go negative/,
    );
    assert.equal(rows().length, 1);
  });

  test('refuses a delta finer than the asset\'s decimals rather than rounding it', () => {
    assert.throws(() => credit(MERCHANT, usdt, '0.0000001', 6), /more than 6 fractional digits/);
    assert.equal(rows().length, 0);
  });

  test('credits a payment transaction once, and knows that it did', () => {
    db.prepare(
      `INSERT INTO payments (id, merchant_id, asset_id, amount, address_to, confirms_needed, timeout, expires_at, status, created_at, updated_at)
       VALUES ('p1', ?, ?, '1', 'addr', 2, 3600, 0, 'OPEN', 0, 0)`,
    ).run(MERCHANT, btc);
    const { lastInsertRowid } = db
      .prepare("INSERT INTO payment_transactions (payment_id, txn_id, amount, address_from, address_to, confirmations, late, seen_at) VALUES ('p1', 't1', '1', 'a', 'b', 2, 0, 0)")
      .run();
    const transactionId = Number(lastInsertRowid);
    assert.equal(ledger.isCredited(transactionId), false);
    credit(MERCHANT, btc, '1', 8, transactionId);
    assert.equal(ledger.isCredited(transactionId), true);
    assert.throws(() => credit(MERCHANT, btc, '1', 8, transactionId), /UNIQUE constraint failed/);
    assert.equal(ledger.balanceOf(MERCHANT, btc).available.toFixed(), '1');
  });

  test('posts each step of a withdrawal once', () => {
    credit(MERCHANT, btc, '1');
    db.prepare(
      `INSERT INTO withdrawals (id, merchant_id, asset_id, amount, fee, received_amount, address_to, status, invoice, created_at, updated_at)
       VALUES ('w1', ?, ?, '0.1', '0', '0.1', 'addr', 'OPEN', 'inv', 0, 0)`,
    ).run(MERCHANT, btc);
    reserve('0.1', 'w1');
    assert.throws(() => reserve('0.1', 'w1'), /UNIQUE constraint failed/);
    assert.deepEqual(show(ledger.balanceOf(MERCHANT, btc)), { available: '0.90000000', reserved: '0.10000000' });
  });

  test('always equals the sum of its rows', () => {
    credit(MERCHANT, btc, '0.3');
    reserve('0.1');
    credit(MERCHANT, btc, '0.05');
    ledger.post({ merchantId: MERCHANT, assetId: btc, decimals: 8, kind: 'withdrawal-release', availableDelta: amount('0.04'), reservedDelta: amount('-0.04') });
    ledger.post({ merchantId: MERCHANT, assetId: btc, decimals: 8, kind: 'withdrawal-send', availableDelta: zero, reservedDelta: amount('-0.06') });
    const sums = db
      .prepare<[], { available_deltas: string; reserved_deltas: string }>(
        "SELECT group_concat(available_delta, ' ') AS available_deltas, group_concat(reserved_delta, ' ') AS reserved_deltas FROM ledger_entries",
      )
      .get()!;
    const total = (list: string) => list.split(' ').reduce((acc, v) => acc.plus(v), zero).toFixed(8);
    const balance = show(ledger.balanceOf(MERCHANT, btc));
    assert.deepEqual(balance, { available: '0.29000000', reserved: '0.00000000' });
    assert.deepEqual({ available: total(sums.available_deltas), reserved: total(sums.reserved_deltas) }, balance);
  });
});
