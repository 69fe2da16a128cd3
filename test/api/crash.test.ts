/**
 * Crash: the real service is killed with SIGKILL in the middle of a burst of creates. After a
 * restart on the same DATA_DIR every create it answered 200 reads back the same, nothing is half
 * written, the ledger still balances and (on SQLite) the file is intact. On the PostgreSQL half of
 * the suite the same holds of the process's PostgreSQL database.
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
import { auditLedger, openAuditDatabase, openReadOnly, withdrawalSteps } from '../helpers/ledger-audit.ts';
import { type ServerProcess, startServerProcess, storeEnv } from '../helpers/server-process.ts';
import { merchantApi, postJson, type TestMerchant } from '../helpers/test-server.ts';

const WORKERS = 16;
const KILL_AFTER_ANSWERS = 80;
/** Kill-and-restart cycles: one in `npm test`, more under `npm run test:soak`. */
const CYCLES = Number(process.env.CRASH_CYCLES ?? 1);
const FUNDING = '1000';
const PAYMENT_FIELDS = ['id', 'amount', 'asset', 'addressTo', 'destTag', 'paymentUri', 'confirmsNeeded', 'timeout', 'checkoutUrl', 'customer', 'merchant', 'invoice', 'paymentRedirectUrl', 'createdAt', 'expiresAt', 'status'];
const WITHDRAWAL_FIELDS = ['id', 'amount', 'fee', 'receivedAmount', 'asset', 'addressTo', 'destTag', 'customer', 'merchant', 'invoice', 'createdAt', 'status'];
const ASSETS = [
  { short: 'BTC', network: 'bitcoin' },
  { short: 'LTC', network: 'litecoin' },
  { short: 'ETH', network: 'ethereum' },
  { short: 'USDT', network: 'tron' },
  { short: 'XRP', network: 'ripple' },
];

let dataDir: string;
let service: ServerProcess;
let keys: TestMerchant;

before(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-crash-'));
});
after(async () => {
  await service?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function pick(record: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((f) => [f, record[f]]));
}

describe('a SIGKILL in the middle of a burst of creates', () => {
  test(`loses no answered create, half-writes nothing, and leaves an intact database (${CYCLES} kill${CYCLES === 1 ? '' : 's'})`, async (t) => {
    service = await startServerProcess({ DATA_DIR: dataDir });
    const demo = readDemoMerchant(dataDir)!;
    keys = { merchant: { ...demo.merchant }, apiKey: demo.apiKey, secretKey: demo.secretKey };
    const port = String(service.port);
    const api = () => merchantApi({ api: `${service.url}/v2` }, keys);

    const funding = await api().post('/payment', { amount: FUNDING, asset: { short: 'ETH', network: 'ethereum' } });
    await postJson(`${service.url}/v2/dev/transactions`, { address: funding.body.addressTo, amount: FUNDING, asset: { short: 'ETH', network: 'ethereum' }, confirmations: 3 });
    const payee = addressCodec('ethereum', 'main').fromPublicKey(secp256k1.getPublicKey(createHash('sha256').update('crash-payee').digest(), true));

    const answered: Array<{ kind: 'payment' | 'withdrawal'; body: Record<string, unknown> }> = [];
    let sequence = 0;
    // A kill that lands after every in-flight request was answered proves nothing about a crash
    // mid-request (it happens on a loaded machine); such a cycle is run again, a few times at most.
    let landed = 0;
    for (let cycle = 1; landed < CYCLES && cycle <= CYCLES + 3; cycle++) {
      let unanswered = 0;
      let killed = false;
      const answeredBefore = answered.length;
      const worker = async () => {
        while (!killed) {
          const n = sequence++;
          const kind = n % 3 === 2 ? 'withdrawal' : 'payment';
          const body =
            kind === 'payment'
              ? { amount: `${1 + (n % 7)}.5`, asset: ASSETS[n % ASSETS.length], invoice: `crash-${n}`, customer: { id: n, name: `Payer ${n}` }, checkoutUrl: `https://shop.example/orders/${n}` }
              : { amount: '0.01', asset: { short: 'ETH', network: 'ethereum' }, addressTo: payee, invoice: `crash-w-${n}` };
          try {
            const response = await api().post(`/${kind}`, body);
            assert.equal(response.status, 200, JSON.stringify(response.body));
            answered.push({ kind, body: response.body });
            if (answered.length - answeredBefore >= KILL_AFTER_ANSWERS && !killed) {
              killed = true;
              service.child.kill('SIGKILL');
            }
          } catch (err) {
            if (!killed) throw err;
            unanswered++;
          }
        }
      };
      await Promise.all(Array.from({ length: WORKERS }, worker));
      assert.equal(await service.stop(), null, 'the process died of the signal, not an exit');
      assert.equal(service.child.signalCode, 'SIGKILL');
      t.diagnostic(`kill ${cycle}: ${answered.length - answeredBefore} creates answered 200, ${unanswered} in flight when SIGKILL arrived`);
      if (unanswered > 0) landed++;

      service = await startServerProcess({ DATA_DIR: dataDir, PORT: port });
      await assertIntact(api, answered);
    }

    assert.equal(landed, CYCLES, 'the kills landed while requests were in flight');

    // The restarted service carries on, and never hands out an address it gave before a crash.
    const after = await api().post('/payment', { amount: '1', asset: { short: 'BTC', network: 'bitcoin' } });
    assert.equal(after.status, 200);
    assert.ok(!answered.some((a) => a.body.addressTo === after.body.addressTo && a.body.destTag === after.body.destTag));
  });
});

/** Every answered create reads back the same, nothing is half-written, the ledger balances, the file is intact. */
async function assertIntact(
  api: () => ReturnType<typeof merchantApi>,
  answered: Array<{ kind: 'payment' | 'withdrawal'; body: Record<string, unknown> }>,
): Promise<void> {
  for (const { kind, body } of answered) {
    const stored = await api().get(`/${kind}/${String(body.id)}`);
    assert.equal(stored.status, 200, `${kind} ${String(body.id)} answered 200 before the crash`);
    const fields = kind === 'payment' ? PAYMENT_FIELDS : WITHDRAWAL_FIELDS;
    assert.deepEqual(pick(stored.body, fields), pick(body, fields));
  }
  const databaseUrl = (await storeEnv(dataDir)).DATABASE_URL;
  if (!databaseUrl) {
    const file = openReadOnly(dataDir);
    try {
      assert.deepEqual(file.pragma('integrity_check'), [{ integrity_check: 'ok' }]);
      assert.deepEqual(file.pragma('foreign_key_check'), []);
    } finally {
      file.close();
    }
  }
  const db = await openAuditDatabase({ dataDir, databaseUrl });
  try {
    // Every stored payment has its one address; no address is claimed by a payment that is not there.
    const orphans = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM addresses a WHERE payment_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.id = a.payment_id)');
    assert.equal(Number(orphans!.n), 0);
    const addressless = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM payments p WHERE (SELECT COUNT(*) FROM addresses a WHERE a.payment_id = p.id) <> 1');
    assert.equal(Number(addressless!.n), 0);
    // Every stored withdrawal reserved its amount exactly once, answered or not.
    const withdrawals = await db.all<{ id: string; amount: string }>('SELECT id, amount FROM withdrawals WHERE merchant_id = ?', [keys.merchant.id]);
    for (const withdrawal of withdrawals) assert.deepEqual(await withdrawalSteps(db, withdrawal.id), ['withdrawal-reserve'], withdrawal.id);
    assert.ok(withdrawals.length >= answered.filter((a) => a.kind === 'withdrawal').length);
    const { problems, balances } = await auditLedger(db, keys.merchant.id);
    assert.deepEqual(problems, []);
    const eth = (await db.get<{ id: number }>("SELECT id FROM assets WHERE short = 'ETH' AND network = 'ethereum'"))!.id;
    const reserved = withdrawals.reduce((sum, w) => sum.plus(w.amount), new Decimal(0));
    assert.deepEqual(balances.get(eth), { available: new Decimal(FUNDING).minus(reserved).toFixed(), reserved: reserved.toFixed() });
  } finally {
    await db.close();
  }
}
