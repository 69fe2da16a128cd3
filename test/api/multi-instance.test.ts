/**
 * Several instances on one PostgreSQL: three real service processes (the compiled build) started
 * with one DATABASE_URL and SERVER_KEY, used as one service. Runs in the PostgreSQL half of the
 * suite only (it is about PostgreSQL); on SQLite it is skipped and says so.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { readDemoMerchant } from '../../api/merchants/demo-merchant.ts';
import { TAG_BLOCK } from '../../api/networks/address-pool.ts';
import { type ServerProcess, startServerProcess, storeEnv } from '../helpers/server-process.ts';
import { partOf, type SmtpReceiver, startSmtpReceiver } from '../helpers/smtp-receiver.ts';
import { socketUrlOf, testClusterUrl } from '../helpers/test-database.ts';
import { type JsonResponse, merchantApi, postJson, type TestMerchant } from '../helpers/test-server.ts';
import { until } from '../helpers/until.ts';

const onPostgres = testClusterUrl() !== undefined;
const BTC = { short: 'BTC', network: 'bitcoin' };
const XRP = { short: 'XRP', network: 'ripple' };
const PAYOUT_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

describe('three instances on one PostgreSQL', { skip: onPostgres ? false : 'runs in the PostgreSQL half of the suite (TEST_DATABASE_URL)' }, () => {
  let dataDir: string;
  const instances: ServerProcess[] = [];
  let keys: TestMerchant;
  let sql: pg.Client;
  let socketUrl: string | undefined;

  const on = (i: number) => merchantApi({ api: `${instances[i]!.url}/v2` }, keys);

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-multi-'));
    // The first creates the schema, the HD accounts and the demo merchant; the others join it.
    // Blocks are mined every second by whichever instance holds the job's lease.
    const env = { DATA_DIR: dataDir, ADDRESS_POOL_SIZE: '50', SIMULATOR_BLOCK_SECONDS: '1' };
    instances.push(await startServerProcess(env));
    // Behind one load balancer every instance has the same public address. The third reaches the
    // database through its Unix socket, as one on the database's machine would.
    const shared = { ...env, PUBLIC_URL: instances[0]!.url };
    const store = await storeEnv(dataDir);
    socketUrl = await socketUrlOf(store.DATABASE_URL!);
    const throughSocket = { ...shared, ...store, DATABASE_URL: socketUrl ?? store.DATABASE_URL! };
    instances.push(...(await Promise.all([startServerProcess(shared), startServerProcess(throughSocket)])));
    keys = readDemoMerchant(dataDir)!;
    sql = new pg.Client({ connectionString: store.DATABASE_URL });
    await sql.connect();
  });

  after(async () => {
    await sql?.end();
    await Promise.all(instances.map((instance) => instance.stop('SIGKILL')));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('an instance may reach the database through its Unix socket, the others over TCP', async (t) => {
    if (!socketUrl) return t.skip("the database's Unix socket is not on this machine");
    // A backend serving a Unix-socket client has no client address.
    const { rows } = await sql.query<{ socket: number; tcp: number }>(
      "SELECT COUNT(*) FILTER (WHERE client_addr IS NULL)::int AS socket, COUNT(*) FILTER (WHERE client_addr IS NOT NULL)::int AS tcp FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'",
    );
    assert.ok(rows[0]!.socket > 0, `no connection through the socket: ${JSON.stringify(rows)}`);
    assert.ok(rows[0]!.tcp > 1, `only this test's own connection over TCP: ${JSON.stringify(rows)}`);
  });

  test('a payment created on one instance reads and lists the same on the others', async () => {
    const created = await on(0).post('/payment', { amount: '0.001', asset: BTC, invoice: 'multi-read' });
    assert.equal(created.status, 200);
    const read = await on(1).get(`/payment/${created.body.id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, created.body);
    const listed = await on(2).get('/payment?invoices=multi-read');
    assert.deepEqual(listed.body.data.map((p: { id: string }) => p.id), [created.body.id]);
  });

  test("a payer's live view on one instance follows a payment paid through another", async () => {
    const created = await on(0).post('/payment', { amount: '5', asset: XRP });
    const controller = new AbortController();
    const stream = await fetch(`${instances[0]!.url}/v2/checkout/${created.body.id}/events`, { signal: controller.signal });
    const reader = stream.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const statuses = async (until: string): Promise<string[]> => {
      const deadline = Date.now() + 15_000;
      while (!text.includes(`"status":"${until}"`)) {
        if (Date.now() > deadline) throw new Error(`no ${until} on the stream:\n${text}`);
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
      return [...text.matchAll(/"status":"([A-Z]+)"/g)].map((m) => m[1]!);
    };
    await statuses('OPEN');
    const paid = await postJson(`${instances[2]!.url}/v2/dev/transactions`, { address: created.body.addressTo, destTag: created.body.destTag, amount: '5', asset: XRP });
    assert.equal(paid.status, 200);
    // Paid on the third instance, seen on the first's stream well before its 5-second resync.
    const started = Date.now();
    const seen = await statuses('CONFIRMING');
    assert.ok(Date.now() - started < 4_000, `the change arrived after ${Date.now() - started} ms`);
    assert.deepEqual(seen.slice(0, 2), ['OPEN', 'CONFIRMING']);
    controller.abort();
  });

  test('100 concurrent withdrawals spread over the instances against a balance for 10 accept exactly 10', async () => {
    const funding = await on(1).post('/payment', { amount: '0.01', asset: BTC });
    const paid = await postJson(`${instances[2]!.url}/v2/dev/transactions`, { address: funding.body.addressTo, amount: '0.01', asset: BTC, confirmations: 2 });
    assert.equal(paid.status, 200);
    assert.equal((await on(0).get(`/payment/${funding.body.id}`)).body.status, 'COMPLETE');
    const answers: JsonResponse[] = await Promise.all(
      Array.from({ length: 100 }, (_, i) => on(i % 3).post('/withdrawal', { amount: '0.001', asset: BTC, addressTo: PAYOUT_ADDRESS, invoice: `race-${i}` })),
    );
    const statuses = answers.map((a) => a.status);
    assert.equal(statuses.filter((s) => s === 200).length, 10, `statuses: ${JSON.stringify(statuses)}`);
    assert.equal(statuses.filter((s) => s === 422).length, 90);
    for (const refused of answers.filter((a) => a.status === 422)) assert.equal(refused.body.error.code, 'insufficient-funds');
    const balance = await on(2).get('/balance');
    const btc = balance.body.data.find((b: { asset: { short: string } }) => b.asset.short === 'BTC');
    assert.deepEqual([btc.available, btc.reserved], ['0.00000000', '0.01000000']);
    // The ledger's running balance equals the sum of its deltas, row by row.
    const rows = (await sql.query("SELECT available_delta, available_after FROM ledger_entries l JOIN assets a ON a.id = l.asset_id WHERE a.short = 'BTC' ORDER BY seq")).rows;
    let available = 0;
    for (const row of rows) {
      available = Math.round((available + Number(row.available_delta)) * 1e8) / 1e8;
      assert.equal(available, Number(row.available_after));
    }
  });

  test('addresses and destination tags created at once on three instances are never handed out twice', async () => {
    const answers = await Promise.all(
      Array.from({ length: 90 }, (_, i) => on(i % 3).post('/payment', { amount: '1', asset: i % 2 === 0 ? XRP : { short: 'LTC', network: 'litecoin' } })),
    );
    assert.ok(answers.every((a) => a.status === 200), JSON.stringify(answers.find((a) => a.status !== 200)?.body));
    const destinations = answers.map((a) => `${a.body.addressTo}|${a.body.destTag}`);
    assert.equal(new Set(destinations).size, destinations.length);
    const duplicates = await sql.query('SELECT network, address, dest_tag FROM addresses WHERE payment_id IS NOT NULL GROUP BY network, address, dest_tag HAVING COUNT(*) > 1');
    assert.deepEqual(duplicates.rows, []);
  });

  test("a tagged create does not wait for the network's tag counter, which other creates hold until their commit", async () => {
    // An instance's first XRP create reserves a block of tags ahead, in its own transaction (the
    // earlier tests made some already); wait until no reservation is under way.
    assert.equal((await on(1).post('/payment', { amount: '1', asset: XRP })).status, 200);
    const tagCounter = async () => Number((await sql.query("SELECT next_index FROM hd_accounts WHERE network = 'ripple'")).rows[0].next_index);
    assert.ok((await tagCounter()) >= TAG_BLOCK, 'tags are reserved a block at a time');
    const deadline = Date.now() + 10_000;
    for (let last = -1, now = await tagCounter(); now !== last; last = now, now = await tagCounter()) {
      if (Date.now() > deadline) throw new Error('tags kept being reserved for 10 s');
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    // Another transaction holds the counter's row, as a create that reserved its tag there would
    // until its commit reached the disk: creates must not queue behind it.
    const holder = new pg.Client({ connectionString: (await storeEnv(dataDir)).DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query("SELECT next_index FROM hd_accounts WHERE network = 'ripple' FOR UPDATE");
      const created = on(1).post('/payment', { amount: '2', asset: XRP });
      const waited = await Promise.race([created.then(() => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 5_000))]);
      assert.equal(waited, false, 'the create waited for the locked tag counter');
      const answer = await created;
      assert.equal(answer.status, 200);
      const rows = (await sql.query("SELECT payment_id FROM addresses WHERE network = 'ripple' AND dest_tag = $1", [answer.body.destTag])).rows;
      assert.deepEqual(rows, [{ payment_id: answer.body.id }]);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
  });

  test('a create whose pool another instance emptied still gets an address, derived on the spot', async () => {
    const LTC = { short: 'LTC', network: 'litecoin' };
    // Warm: the instance counted its pool and believes it holds addresses.
    assert.equal((await on(0).post('/payment', { amount: '1', asset: LTC })).status, 200);
    await sql.query("DELETE FROM addresses WHERE network = 'litecoin' AND payment_id IS NULL");
    const created = await on(0).post('/payment', { amount: '1', asset: LTC, invoice: 'pool-emptied' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.match(created.body.addressTo, /^(rltc1|ltc1|tltc1)/);
    const rows = (await sql.query('SELECT payment_id, derivation_index FROM addresses WHERE address = $1', [created.body.addressTo])).rows;
    assert.equal(rows.length, 1);
    assert.equal(rows[0].payment_id, created.body.id);
    assert.equal((await on(2).get(`/payment/${created.body.id}`)).body.addressTo, created.body.addressTo);
    // Having found it empty, the instance fills the pool again rather than trusting its own count.
    const pooled = async () => Number((await sql.query("SELECT COUNT(*) AS n FROM addresses WHERE network = 'litecoin' AND payment_id IS NULL")).rows[0].n);
    const deadline = Date.now() + 20_000;
    while ((await pooled()) === 0) {
      if (Date.now() > deadline) throw new Error('the emptied pool was not filled again within 20 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  test('simulated blocks are mined once, not once per instance', async () => {
    const height = async () => Number((await sql.query("SELECT height FROM sim_chains WHERE network = 'bitcoin'")).rows[0].height);
    // Four blocks after a start: one miner a second (the lease holder) needs at least three seconds
    // for them, whatever the machine's speed; three miners (one per instance) would take about one.
    const start = await height();
    const startedAt = performance.now();
    const deadline = startedAt + 30_000;
    while ((await height()) < start + 4) {
      if (performance.now() > deadline) throw new Error('no four blocks within 30 s: nothing mines');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const took = performance.now() - startedAt;
    assert.ok(took >= 2_900, `four blocks took ${Math.round(took)} ms: more than one instance is mining`);
    const holders = await sql.query("SELECT holder FROM job_leases WHERE name = 'simulated-blocks'");
    assert.equal(holders.rows.length, 1, 'one lease row names the one miner');
  });

  test('an approved payout is broadcast once', async () => {
    const created = await on(0).post('/withdrawal', { amount: '0.001', asset: BTC, addressTo: PAYOUT_ADDRESS, invoice: 'once-0' });
    // The race test reserved the whole balance: cancel one reservation to make room.
    if (created.status === 422) {
      const open = (await on(0).get('/withdrawal?statuses=OPEN&limit=1')).body.data[0];
      await on(0).post(`/withdrawal/${open.id}/cancel`, {});
    }
    const withdrawal = created.status === 200 ? created.body : (await on(0).post('/withdrawal', { amount: '0.001', asset: BTC, addressTo: PAYOUT_ADDRESS, invoice: 'once-1' })).body;
    const approved = await Promise.all([0, 1, 2].map((i) => on(i).post(`/withdrawal/${withdrawal.id}/approve`, {})));
    assert.deepEqual(approved.map((a) => a.status).sort(), [200, 409, 409]);
    const sent = await sql.query('SELECT COUNT(*) AS n FROM sim_transactions WHERE reference = $1', [withdrawal.id]);
    assert.equal(Number(sent.rows[0].n), 1);
  });

  test('six refunds of 0.3 of a 1.0 payment sent at once over the instances: three are accepted, the ledger reserves just those', async () => {
    const ETH = { short: 'ETH', network: 'ethereum' };
    // The merchant's balance holds more than the payment received, so only the payment's own limit
    // (not insufficient-funds) can refuse a refund.
    const funding = await on(0).post('/payment', { amount: '5', asset: ETH, timeout: 600 });
    assert.equal((await postJson(`${instances[2]!.url}/v2/dev/transactions`, { address: funding.body.addressTo, amount: '5', asset: ETH, confirmations: 50 })).status, 200);
    const created = await on(0).post('/payment', { amount: '0.8', asset: ETH, timeout: 600 });
    assert.equal(created.status, 200);
    const paid = await postJson(`${instances[1]!.url}/v2/dev/transactions`, { address: created.body.addressTo, amount: '1', asset: ETH, confirmations: 50 });
    assert.equal(paid.status, 200);
    const payment = (await on(2).get(`/payment/${created.body.id}`)).body;
    assert.deepEqual({ status: payment.status, exception: payment.exception, refundableAmount: payment.refundableAmount }, { status: 'COMPLETE', exception: 'OVERPAID', refundableAmount: '1.00000000' });
    const answers: JsonResponse[] = await Promise.all(Array.from({ length: 6 }, (_, i) => on(i % 3).post(`/payment/${payment.id}/refund`, { amount: '0.3', reason: `race-${i}` })));
    const statuses = answers.map((a) => a.status);
    assert.deepEqual([...statuses].sort(), [200, 200, 200, 422, 422, 422], `statuses: ${JSON.stringify(statuses)}`);
    for (const refused of answers.filter((a) => a.status === 422)) {
      assert.deepEqual(refused.body, {
        error: {
          code: 'refund-exceeds-payment',
          message: 'The refund of 0.30000000 ETH is more than the 0.10000000 ETH of this payment that is not refunded yet (what it received, less every refund not cancelled).',
        },
      });
    }
    const accepted = answers.filter((a) => a.status === 200).map((a) => a.body.id as string);
    const listed = (await on(0).get(`/refund?paymentIds=${payment.id}`)).body.data.map((r: { id: string; amount: string; status: string }) => ({ id: r.id, amount: r.amount, status: r.status }));
    assert.deepEqual(
      listed.sort((a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id)),
      [...accepted].sort().map((id) => ({ id, amount: '0.30000000', status: 'AWAITING_ADDRESS' })),
    );
    const reserved = await sql.query(
      "SELECT l.kind, SUM(l.reserved_delta::numeric)::text AS reserved, COUNT(*)::int AS n FROM ledger_entries l JOIN refunds r ON r.id = l.refund_id WHERE r.payment_id = $1 GROUP BY l.kind",
      [payment.id],
    );
    assert.deepEqual(reserved.rows.map((r) => ({ kind: r.kind, reserved: Number(r.reserved), n: r.n })), [{ kind: 'refund-reserve', reserved: 0.9, n: 3 }]);
    assert.equal((await on(1).get(`/payment/${payment.id}`)).body.refundableAmount, '0.10000000');
  });

  test('kill -9 of one instance mid-burst: every create it answered reads back from the others, which keep serving', async () => {
    const victim = instances[2]!;
    const acknowledged: string[] = [];
    let unanswered = 0;
    // The kill lands once a few creates were answered, while the rest are still in flight: a kill
    // after every answer (or before any) would prove nothing about a crash.
    const KILL_AFTER_ANSWERS = 3;
    const burst = Array.from({ length: 120 }, async (_, i) => {
      try {
        const answer = await on(2).post('/payment', { amount: '0.002', asset: BTC, invoice: `burst-${i}` });
        if (answer.status === 200) acknowledged.push(answer.body.id);
        if (acknowledged.length === KILL_AFTER_ANSWERS) victim.child.kill('SIGKILL');
      } catch {
        // the connection died with the process
        unanswered++;
      }
    });
    await Promise.all(burst);
    await victim.stop();
    assert.ok(acknowledged.length >= KILL_AFTER_ANSWERS, `only ${acknowledged.length} creates were answered before the kill`);
    assert.ok(unanswered > 0, 'the kill landed while creates were in flight');
    for (const id of acknowledged) {
      const read = await on(acknowledged.indexOf(id) % 2).get(`/payment/${id}`);
      assert.equal(read.status, 200, `payment ${id} acknowledged by the killed instance`);
    }
    const after = await on(1).post('/payment', { amount: '0.003', asset: BTC });
    assert.equal(after.status, 200);
    assert.equal((await on(0).get(`/payment/${after.body.id}`)).status, 200);
  });
});

describe('two instances on one PostgreSQL share one rate limit and one idempotency record', { skip: onPostgres ? false : 'runs in the PostgreSQL half of the suite (TEST_DATABASE_URL)' }, () => {
  let dataDir: string;
  const pair: ServerProcess[] = [];
  let keys: TestMerchant;
  const on = (i: number) => merchantApi({ api: `${pair[i]!.url}/v2` }, keys);

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-pair-'));
    const env = { DATA_DIR: dataDir, RATE_LIMIT_PUBLIC: '60' };
    pair.push(await startServerProcess(env));
    pair.push(await startServerProcess({ ...env, PUBLIC_URL: pair[0]!.url }));
    keys = readDemoMerchant(dataDir)!;
  });

  after(async () => {
    await Promise.all(pair.map((instance) => instance.stop('SIGKILL')));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test("each says where it runs: the shared PUBLIC_URL, and its own port where that differs", async () => {
    const port = (i: number) => new URL(pair[i]!.url).port;
    // The line may reach this process just after /health answered.
    const said = (i: number) => until(async () => pair[i]!.output(), (text) => text.includes('Crypto checkout is running at'), `instance ${i} says where it runs`);
    assert.match(await said(0), new RegExp(`^Crypto checkout is running at ${pair[0]!.url} \\(demo store: `, 'm'));
    assert.match(await said(1), new RegExp(`^Crypto checkout is running at ${pair[0]!.url} \\(this instance listens on port ${port(1)}\\) \\(demo store: `, 'm'));
  });

  test('a key used on one instance replays on the other', async () => {
    const { sign } = await import('../helpers/test-server.ts');
    const raw = JSON.stringify({ amount: '0.004', asset: BTC, invoice: 'pair-idem' });
    const post = (i: number) =>
      fetch(`${pair[i]!.url}/v2/payment`, {
        method: 'POST',
        headers: { 'API-KEY': keys.apiKey, 'X-HMAC': sign(raw, keys.secretKey), 'Content-Type': 'application/json', 'Idempotency-Key': 'pair-1' },
        body: raw,
      });
    const first = await post(0);
    const second = await post(1);
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal(((await second.json()) as { id: string }).id, ((await first.json()) as { id: string }).id);
  });

  test('hammered through both at once, a limit of 60 admits 60 to 66 between them, then 429 on both', async () => {
    const created = await on(0).post('/payment', { amount: '0.005', asset: BTC });
    assert.equal(created.status, 200);
    // All in one window: start a fresh one if this one ends within 10 s.
    const now = Date.now();
    if (60_000 - (now % 60_000) < 10_000) await new Promise((r) => setTimeout(r, 60_000 - (now % 60_000) + 50));
    const admitted = [0, 0];
    let lastWave: { instance: number; status: number; rateLimit: string | null }[] = [];
    for (let wave = 0; wave < 6; wave++) {
      lastWave = await Promise.all(
        pair.flatMap((instance, i) =>
          Array.from({ length: 20 }, async () => {
            const answer = await fetch(`${instance.url}/v2/checkout/${created.body.id}`);
            await answer.arrayBuffer();
            if (answer.status === 200) admitted[i]!++;
            else assert.equal(answer.status, 429);
            return { instance: i, status: answer.status, rateLimit: answer.headers.get('ratelimit') };
          }),
        ),
      );
    }
    const total = admitted[0]! + admitted[1]!;
    assert.ok(total >= 60 && total <= 66, `admitted ${admitted.join(' + ')} = ${total} for a limit of 60`);
    assert.ok(admitted[0]! > 0 && admitted[1]! > 0, `both admitted some: ${admitted.join(', ')}`);
    assert.deepEqual(new Set(lastWave.map((a) => a.status)), new Set([429]), 'the last wave is refused on both');
    for (const answer of lastWave) assert.match(answer.rateLimit ?? '', /^"public";r=0;t=\d+$/);
  });
});

describe('two instances on one PostgreSQL with one SMTP server send each mail once', { skip: onPostgres ? false : 'runs in the PostgreSQL half of the suite (TEST_DATABASE_URL)' }, () => {
  let dataDir: string;
  const pair: ServerProcess[] = [];
  let keys: TestMerchant;
  let smtp: SmtpReceiver;
  let sql: pg.Client;
  const on = (i: number) => merchantApi({ api: `${pair[i]!.url}/v2` }, keys);

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-mail-'));
    smtp = await startSmtpReceiver();
    const env = { DATA_DIR: dataDir, SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, SMTP_FROM: 'Checkout <checkout@pay.example>' };
    pair.push(await startServerProcess(env));
    pair.push(await startServerProcess({ ...env, PUBLIC_URL: pair[0]!.url }));
    keys = readDemoMerchant(dataDir)!;
    sql = new pg.Client({ connectionString: (await storeEnv(dataDir)).DATABASE_URL });
    await sql.connect();
  });

  after(async () => {
    await sql?.end();
    await Promise.all(pair.map((instance) => instance.stop('SIGKILL')));
    await smtp?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('a completed payment sends its payer one receipt, not one per instance', async () => {
    const ETH = { short: 'ETH', network: 'ethereum' };
    const created = await on(0).post('/payment', { amount: '1', asset: ETH, timeout: 600, customer: { email: 'once@example.com' } });
    assert.equal(created.status, 200);
    const paid = await postJson(`${pair[1]!.url}/v2/dev/transactions`, { address: created.body.addressTo, amount: '1', asset: ETH, confirmations: 50 });
    assert.equal(paid.status, 200);
    assert.equal((await on(1).get(`/payment/${created.body.id}`)).body.status, 'COMPLETE');
    // The outbox is drained once the receipt is marked sent: the receiver got it before that.
    const deadline = Date.now() + 20_000;
    const outbox = () => sql.query('SELECT kind, recipient, attempts::int AS attempts, sent_at IS NOT NULL AS sent FROM mail_outbox ORDER BY id');
    while ((await outbox()).rows.some((row) => !row.sent)) {
      if (Date.now() > deadline) throw new Error(`the outbox was not drained within 20 s: ${JSON.stringify((await outbox()).rows)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.deepEqual((await outbox()).rows, [{ kind: 'receipt', recipient: 'once@example.com', attempts: 1, sent: true }]);
    const receipts = smtp.received.filter((m) => m.to.includes('once@example.com'));
    assert.equal(receipts.length, 1, `receipts: ${receipts.length}`);
    assert.match(partOf(receipts[0]!.raw, 'text/plain')!, new RegExp(`^Thank you for your payment to Demo Store\\.\r\n\r\nYour receipt: ${pair[0]!.url}/receipt\\?id=${created.body.id}\r\n\r\nAmount: 1 ETH\r\nDate: [A-Z][a-z]{2} \\d{1,2}, \\d{4}, \\d{1,2}:\\d{2} [AP]M UTC\r\n$`));
  });
});
