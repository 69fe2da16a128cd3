/**
 * Money under concurrency: two real service processes on one store (one SQLite file, or on the
 * PostgreSQL half of the suite one PostgreSQL database), hit at the same moment. Withdrawals never overdraw, and approve/cancel races have exactly one winner.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import Decimal from 'decimal.js';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { readDemoMerchant } from '../../api/merchants/demo-merchant.ts';
import { addressCodec } from '../../api/networks/address-codecs.ts';
import type { Database } from '../../api/db/database.ts';
import { auditLedger, openAuditDatabase, withdrawalSteps } from '../helpers/ledger-audit.ts';
import { type ServerProcess, startServerProcess, storeEnv } from '../helpers/server-process.ts';
import { type JsonResponse, merchantApi, postJson, type TestMerchant } from '../helpers/test-server.ts';

/** Repetitions of each race: one in `npm test`, more under `npm run test:soak`. */
const ROUNDS = Number(process.env.RACE_ROUNDS ?? 1);

let dataDir: string;
let first: ServerProcess;
let second: ServerProcess;
let keys: TestMerchant;

/** The merchant's API on one process. */
function on(process: ServerProcess) {
  return merchantApi({ api: `${process.url}/v2` }, keys);
}

function addressOf(network: string, label: string): string {
  return addressCodec(network, 'main').fromPublicKey(secp256k1.getPublicKey(createHash('sha256').update(label).digest(), true));
}

/** Credits the merchant through the simulator: a payment made on one process, paid on the other. */
async function fund(asset: { short: string; network: string }, amount: string, confirmations: number): Promise<void> {
  const payment = await on(first).post('/payment', { amount, asset });
  assert.equal(payment.status, 200);
  const paid = await postJson(`${second.url}/v2/dev/transactions`, { address: payment.body.addressTo, amount, asset, confirmations });
  assert.equal(paid.status, 200);
  assert.equal((await on(first).get(`/payment/${payment.body.id}`)).body.status, 'COMPLETE');
}

/** A connection of the test's own to the processes' store. */
async function openStore(): Promise<Database> {
  return openAuditDatabase({ dataDir, databaseUrl: (await storeEnv(dataDir)).DATABASE_URL });
}

async function assetId(short: string, network: string): Promise<number> {
  const db = await openStore();
  try {
    return (await db.get<{ id: number }>('SELECT id FROM assets WHERE short = ? AND network = ?', [short, network]))!.id;
  } finally {
    await db.close();
  }
}

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-concurrency-'));
  // One after the other: the first creates the demo merchant and the server key, the second reuses them.
  first = await startServerProcess({ DATA_DIR: dataDir, ADDRESS_POOL_SIZE: '0' });
  second = await startServerProcess({ DATA_DIR: dataDir, ADDRESS_POOL_SIZE: '0' });
  const demo = readDemoMerchant(dataDir);
  assert.ok(demo, 'the first process wrote demo-merchant.json');
  keys = { merchant: { ...demo.merchant }, apiKey: demo.apiKey, secretKey: demo.secretKey };
});

after(async () => {
  await Promise.all([first?.stop(), second?.stop()]);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('withdrawals from two processes at once', () => {
  test('accept exactly the 10 that the balance covers out of 200, refuse the rest with 422, and never overdraw', async () => {
    const asset = { short: 'ETH', network: 'ethereum' };
    const addressTo = addressOf('ethereum', 'concurrency-payee');
    const acceptedIds: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) acceptedIds.push(...(await overdraftRace(asset, addressTo, round)));
    const db = await openStore();
    try {
      const stored = await db.all<{ id: string }>('SELECT id FROM withdrawals WHERE merchant_id = ? ORDER BY id', [keys.merchant.id]);
      assert.deepEqual(
        stored.map((w) => w.id),
        acceptedIds.sort(),
        'exactly the accepted withdrawals exist',
      );
    } finally {
      await db.close();
    }
  });
});

/** One race: fund 0.1 ETH, then 200 withdrawals of 0.01 at once, split over both processes. */
async function overdraftRace(asset: { short: string; network: string }, addressTo: string, round: number): Promise<string[]> {
  await fund(asset, '0.1', 3);
  const responses = await Promise.all(
    Array.from({ length: 200 }, (_, i) => on(i % 2 === 0 ? first : second).post('/withdrawal', { amount: '0.01', asset, addressTo, invoice: `race-${round}-${i}` })),
  );
  const accepted = responses.filter((r) => r.status === 200);
  const refused = responses.filter((r) => r.status !== 200);
  assert.equal(accepted.length, 10, `accepted ${accepted.length}: ${JSON.stringify(refused.find((r) => r.status !== 422)?.body)}`);
  for (const response of refused) {
    assert.equal(response.status, 422);
    assert.deepEqual(response.body, { error: { code: 'insufficient-funds', message: `The available balance is 0.00000000 ${asset.short}, less than the 0.01000000 ${asset.short} needed.` } });
  }

  // Every earlier round left its 0.1 reserved as well.
  const reserved = new Decimal(round).div(10);
  const db = await openStore();
  try {
    const { problems, balances } = await auditLedger(db, keys.merchant.id);
    assert.deepEqual(problems, []);
    assert.deepEqual(balances.get(await assetId('ETH', 'ethereum')), { available: '0', reserved: reserved.toFixed() });
    for (const response of accepted) assert.deepEqual(await withdrawalSteps(db, response.body.id), ['withdrawal-reserve']);
  } finally {
    await db.close();
  }
  for (const process of [first, second]) {
    const balance = (await on(process).get('/balance')).body.data.find((b: { asset: { short: string } }) => b.asset.short === 'ETH');
    assert.deepEqual([balance.available, balance.reserved], ['0.00000000', reserved.toFixed(8)]);
  }
  return accepted.map((r) => r.body.id as string);
}

describe('payments created from two processes at once', () => {
  test('each get their own receiving address (or XRP destination tag)', async () => {
    const responses = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        on(i % 2 === 0 ? first : second).post('/payment', { amount: '1', asset: i % 3 === 0 ? { short: 'XRP', network: 'ripple' } : { short: 'BTC', network: 'bitcoin' } }),
      ),
    );
    assert.deepEqual(
      responses.filter((r) => r.status !== 200).map((r) => r.body),
      [],
    );
    const destinations = responses.map((r) => `${r.body.asset.network} ${r.body.addressTo} ${r.body.destTag ?? ''}`);
    assert.equal(new Set(destinations).size, destinations.length, 'no two payments share where the payer sends');
  });
});

describe('approve and cancel racing on the same withdrawal from two processes', () => {
  test('have exactly one winner each time, and the reservation is sent or released exactly once', async (t) => {
    const asset = { short: 'LTC', network: 'litecoin' };
    const rounds = 6 * ROUNDS;
    await fund(asset, String(rounds), 3);
    const addressTo = addressOf('litecoin', 'race-payee');
    const withdrawals: Array<{ id: string }> = [];
    for (let i = 0; i < rounds; i++) {
      const created = await on(i % 2 === 0 ? first : second).post('/withdrawal', { amount: '1', asset, addressTo, invoice: `approve-cancel-${i}` });
      assert.equal(created.status, 200);
      withdrawals.push(created.body);
    }

    // Every round at once: 20 approves and 20 cancels per withdrawal, alternating actions and processes.
    const races = await Promise.all(
      withdrawals.map(async (withdrawal, round) => {
        const requests: Array<Promise<JsonResponse & { action: string }>> = [];
        for (let j = 0; j < 40; j++) {
          // Odd rounds lead with a cancel, so both kinds of winner get exercised.
          const action = (j + round) % 2 === 0 ? 'approve' : 'cancel';
          const process = Math.floor(j / 2) % 2 === 0 ? first : second;
          requests.push(on(process).post(`/withdrawal/${withdrawal.id}/${action}`, {}).then((r) => ({ ...r, action })));
        }
        return { withdrawal, answers: await Promise.all(requests) };
      }),
    );

    const db = await openStore();
    let sent = 0;
    try {
      for (const { withdrawal, answers } of races) {
        const winners = answers.filter((a) => a.status === 200);
        assert.equal(winners.length, 1, `withdrawal ${withdrawal.id}: ${winners.length} winners`);
        const winner = winners[0]!;
        for (const loser of answers.filter((a) => a !== winner)) {
          assert.equal(loser.status, 409);
          assert.equal(loser.body.error.code, 'invalid-state');
        }
        const steps = await withdrawalSteps(db, withdrawal.id);
        if (winner.action === 'approve') {
          sent++;
          assert.equal(winner.body.status, 'APPROVED');
          assert.ok(winner.body.txnId, 'the approved payout was broadcast');
          assert.deepEqual(steps, ['withdrawal-reserve', 'withdrawal-send']);
        } else {
          assert.equal(winner.body.status, 'CANCELLED');
          assert.deepEqual(steps, ['withdrawal-reserve', 'withdrawal-release']);
        }
        const stored = (await on(second).get(`/withdrawal/${withdrawal.id}`)).body;
        assert.equal(stored.status, winner.body.status);
      }
      t.diagnostic(`${sent} of ${rounds} races won by an approve, ${rounds - sent} by a cancel`);
      const { problems, balances } = await auditLedger(db, keys.merchant.id);
      assert.deepEqual(problems, []);
      // Each round reserved 1 LTC; approved ones left the balance, cancelled ones came back.
      assert.deepEqual(balances.get(await assetId('LTC', 'litecoin')), { available: String(rounds - sent), reserved: '0' });
    } finally {
      await db.close();
    }
  });
});
