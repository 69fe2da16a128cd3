/**
 * Receiving litecoin through a real Litecoin Core node in regtest (no node wallet for the service:
 * its own block and mempool following), driven through the public HTTP API: a payment to complete,
 * partial then complete, a reorganisation, a fee-bumped (RBF) replacement, late funds, the
 * network's health, a mainnet address refused for a withdrawal, start-up checks, a restart that
 * catches up with what happened while the service was down, and a stall on a block the node will
 * not serve (through a relay) that /health and the log name.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { readDemoMerchant } from '../../api/merchants/demo-merchant.ts';
import { type Litecoind, litecoindPath, startLitecoind } from '../helpers/litecoind.ts';
import { startRpcProxy } from '../helpers/rpc-proxy.ts';
import { startServerProcess } from '../helpers/server-process.ts';
import { getJson, merchantApi, postJson, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { until } from '../helpers/until.ts';

const LTC = { short: 'LTC', network: 'litecoin' };
const installed = litecoindPath() !== undefined;
// CI installs litecoind; elsewhere the suite says why it skips.
const skip = installed ? false : process.env.CI ? false : 'litecoind is not installed (apt-get install litecoind); CI runs this';

describe('litecoin through Litecoin Core (regtest)', { skip }, () => {
  let node: Litecoind;
  let server: TestServer;
  let api: ReturnType<typeof merchantApi>;
  let invoice = 0;

  before(async () => {
    node = await startLitecoind();
    server = await startTestServer({ env: { LITECOIN_RPC_URL: node.rpcUrl, LITECOIN_CHAIN: 'regtest' } });
    api = merchantApi(server, await server.createMerchant('Litecoin Shop'));
  });
  after(async () => {
    await server?.close();
    await node?.stop();
  });

  /** Lets the follower read the node now (it also polls by itself every second). */
  const follow = () => server.services.followers.get('litecoin')!.pollFresh();

  async function newPayment(amount: string) {
    const response = await api.post('/payment', { amount, asset: LTC, invoice: `ltc-${++invoice}` });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    return response.body as { id: string; addressTo: string; confirmsNeeded: number; paymentUri: string };
  }

  const read = async (id: string) => (await api.get(`/payment/${id}`)).body;

  test('a payment address is a regtest address of this installation; other networks stay simulated', async () => {
    const payment = await newPayment('0.5');
    assert.match(payment.addressTo, /^rltc1q[02-9ac-hj-np-z]{38}$/);
    assert.equal(payment.paymentUri, `litecoin:${payment.addressTo}?amount=0.5`);
    const info = await node.rpc<{ isvalid: boolean }>('validateaddress', payment.addressTo);
    assert.equal(info.isvalid, true);
    const btc = await api.post('/payment', { amount: '0.01', asset: { short: 'BTC', network: 'bitcoin' } });
    assert.match(btc.body.addressTo, /^bc1q/);
    const simulated = await postJson(`${server.api}/dev/transactions`, { address: payment.addressTo, amount: '0.5', asset: LTC });
    assert.equal(simulated.status, 400, 'litecoin is not simulated any more');
  });

  test('paid from a wallet: seen unconfirmed, then CONFIRMING → COMPLETE as blocks come, and credited', async () => {
    const payment = await newPayment('1.25');
    const txid = await node.rpc<string>('sendtoaddress', payment.addressTo, 1.25);
    await follow();
    let record = await read(payment.id);
    assert.equal(record.status, 'CONFIRMING');
    assert.deepEqual(record.transactions.map((t: any) => [t.txnId, t.receivedAmount, t.confirmations]), [[txid, '1.25000000', 0]]);
    // The payer's address: the output the transaction's first input spent, one of the paying wallet's.
    assert.match(record.transactions[0].addressFrom, /^rltc1/);
    assert.equal((await node.rpc<{ ismine: boolean }>('getaddressinfo', record.transactions[0].addressFrom)).ismine, true);
    await node.mine(1);
    await follow();
    record = await read(payment.id);
    assert.equal(record.transactions[0].confirmations, 1);
    assert.equal(record.status, 'CONFIRMING');
    await node.mine(payment.confirmsNeeded - 1);
    await follow();
    record = await read(payment.id);
    assert.equal(record.status, 'COMPLETE');
    assert.equal(record.transactions[0].confirmations, payment.confirmsNeeded);
    const balance = (await api.get('/balance')).body.data.find((b: any) => b.asset.short === 'LTC');
    assert.equal(balance.available, '1.25000000');
  });

  test('partial, then the rest: OPEN with the amount due, then complete', async () => {
    const payment = await newPayment('0.3');
    await node.rpc('sendtoaddress', payment.addressTo, 0.1);
    await follow();
    let record = await read(payment.id);
    assert.equal(record.status, 'OPEN');
    assert.equal(record.amountDue, '0.20000000');
    await node.rpc('sendtoaddress', payment.addressTo, 0.2);
    await node.mine(payment.confirmsNeeded);
    await follow();
    record = await read(payment.id);
    assert.equal(record.status, 'COMPLETE');
    assert.equal(record.totalReceivedAmount, '0.30000000');
    assert.equal(record.transactions.length, 2);
  });

  test('a reorganisation that takes the block away counts the transaction unconfirmed again, then anew', async () => {
    const payment = await newPayment('0.4');
    const txid = await node.rpc<string>('sendtoaddress', payment.addressTo, 0.4);
    const [block] = await node.mine(1);
    await follow();
    assert.equal((await read(payment.id)).transactions[0].confirmations, 1);
    await node.rpc('invalidateblock', block);
    await follow();
    let record = await read(payment.id);
    assert.deepEqual(record.transactions.map((t: any) => [t.txnId, t.confirmations]), [[txid, 0]]);
    assert.equal(record.status, 'CONFIRMING');
    // Mined again on the other branch.
    await node.rpc('reconsiderblock', block);
    await node.mine(payment.confirmsNeeded);
    await follow();
    record = await read(payment.id);
    assert.equal(record.status, 'COMPLETE');
    assert.equal(record.transactions.length, 1);
  });

  const ltcBalance = async () => (await api.get('/balance')).body.data.find((b: any) => b.asset.short === 'LTC').available as string;
  const plus = (a: string, b: string) => (Math.round(Number(a) * 1e8 + Number(b) * 1e8) / 1e8).toFixed(8);
  const ledgerOf = (id: string) =>
    server.services.uow.stores.sql.all<{ kind: string; available_delta: string; credit_round: number }>(
      'SELECT l.kind, l.available_delta, l.credit_round FROM ledger_entries l JOIN payment_transactions t ON t.id = l.payment_transaction_id WHERE t.payment_id = ? ORDER BY l.seq',
      [id],
    );

  test('a reorganisation after crediting: the credit is reversed by its own posting (COMPLETE → CONFIRMING), and credited again when mined again', async () => {
    const payment = await newPayment('0.45');
    await node.rpc('sendtoaddress', payment.addressTo, 0.45);
    const blocks = await node.mine(payment.confirmsNeeded);
    await follow();
    assert.equal((await read(payment.id)).status, 'COMPLETE');
    const credited = await ltcBalance();
    // Every block since the transaction's leaves the chain: it is unconfirmed again.
    await node.rpc('invalidateblock', blocks[0]);
    await follow();
    let record = await read(payment.id);
    assert.equal(record.status, 'CONFIRMING');
    assert.equal(record.transactions[0].confirmations, 0);
    assert.equal(await ltcBalance(), plus(credited, '-0.45'));
    assert.deepEqual(await ledgerOf(payment.id), [
      { kind: 'payment-credit', available_delta: '0.45000000', credit_round: 0 },
      { kind: 'payment-reversal', available_delta: '-0.45000000', credit_round: 0 },
    ]);
    // Mined again on a new branch (another coinbase address, so the new blocks differ from the invalidated ones).
    await node.rpc('generatetoaddress', payment.confirmsNeeded, await node.rpc<string>('getnewaddress', '', 'bech32'));
    await follow();
    record = await read(payment.id);
    assert.equal(record.status, 'COMPLETE');
    assert.equal(await ltcBalance(), credited);
    assert.equal((await ledgerOf(payment.id)).at(-1)!.credit_round, 1, 'credited again, in a new round');
  });

  test('a credited transaction that leaves the chain for good (replaced after a reorganisation) is reversed and kept as history; its replacement counts', async () => {
    const payment = await newPayment('0.35');
    const original = await node.rpc<string>('sendtoaddress', payment.addressTo, 0.35, '', '', false, true);
    const blocks = await node.mine(payment.confirmsNeeded);
    await follow();
    assert.equal((await read(payment.id)).status, 'COMPLETE');
    const credited = await ltcBalance();
    await node.rpc('invalidateblock', blocks[0]);
    const { txid: replacement } = await node.rpc<{ txid: string }>('bumpfee', original);
    await follow();
    await follow();
    await follow();
    const record = await read(payment.id);
    assert.deepEqual(record.transactions.map((t: any) => [t.txnId, t.confirmations]), [[replacement, 0]]);
    assert.equal(record.status, 'CONFIRMING');
    assert.equal(await ltcBalance(), plus(credited, '-0.35'));
    assert.deepEqual((await ledgerOf(payment.id)).map((l) => l.kind), ['payment-credit', 'payment-reversal'], 'the credit and its reversal stay in the ledger');
    await node.rpc('generatetoaddress', payment.confirmsNeeded, await node.rpc<string>('getnewaddress', '', 'bech32'));
    await follow();
    assert.equal((await read(payment.id)).status, 'COMPLETE');
    assert.equal(await ltcBalance(), credited);
  });

  test('a transaction replaced by a fee bump (RBF) counts once, as its replacement', async () => {
    const payment = await newPayment('0.6');
    const original = await node.rpc<string>('sendtoaddress', payment.addressTo, 0.6, '', '', false, true);
    await follow();
    assert.deepEqual((await read(payment.id)).transactions.map((t: any) => t.txnId), [original]);
    const { txid: replacement } = await node.rpc<{ txid: string }>('bumpfee', original);
    // The original is gone from the mempool on two polls in a row before it is called dropped.
    await follow();
    await follow();
    await follow();
    let record = await read(payment.id);
    assert.deepEqual(record.transactions.map((t: any) => [t.txnId, t.receivedAmount]), [[replacement, '0.60000000']]);
    await node.mine(payment.confirmsNeeded);
    await follow();
    record = await read(payment.id);
    assert.equal(record.status, 'COMPLETE');
    assert.equal(record.totalReceivedAmount, '0.60000000');
  });

  test('funds after expiry are recorded as late and do not complete the payment', async () => {
    const payment = await newPayment('0.2');
    server.clock.advance(2 * 3600_000);
    await node.rpc('sendtoaddress', payment.addressTo, 0.2);
    await node.mine(payment.confirmsNeeded);
    await follow();
    const record = await read(payment.id);
    assert.equal(record.status, 'EXPIRED');
    assert.deepEqual(record.transactions.map((t: any) => t.late), [true]);
  });

  test('GET /health shows the network following the node', async () => {
    await follow();
    const health = await getJson(`${server.url}/health`);
    assert.equal(health.body.networks.litecoin.source, 'node');
    assert.equal(health.body.networks.litecoin.state, 'ok');
    assert.equal(health.body.networks.litecoin.height, await node.rpc<number>('getblockcount'));
  });

  test('a withdrawal to a mainnet address is refused on regtest', async () => {
    const mainnet = await api.post('/withdrawal', { amount: '0.5', asset: LTC, addressTo: 'ltc1qg82tprnk5hcnt3hdfytp5hmgh5c7mnl5sclvyk', invoice: 'ltc-out-2' });
    assert.equal(mainnet.status, 400, 'a mainnet address is refused on regtest');
  });
});

describe('start-up and restart against a real node', { skip }, () => {
  let node: Litecoind;
  before(async () => {
    node = await startLitecoind();
  });
  after(() => node?.stop());

  test('a node on another chain, an unreachable node or wrong credentials stop start-up with one line', async () => {
    const url = new URL(node.rpcUrl);
    for (const [env, pattern] of [
      [{ LITECOIN_RPC_URL: node.rpcUrl, LITECOIN_CHAIN: 'main' }, /\ncrypto-checkout: LITECOIN_RPC_URL: the node is on the "regtest" chain, but LITECOIN_CHAIN is "main"\n/],
      [{ LITECOIN_RPC_URL: `http://u:p@127.0.0.1:9/`, LITECOIN_CHAIN: 'regtest' }, /LITECOIN_RPC_URL: the node at http:\/\/127\.0\.0\.1:9 did not answer getblockchaininfo/],
      [{ LITECOIN_RPC_URL: `http://wrong:creds@${url.host}/`, LITECOIN_CHAIN: 'regtest' }, /refused the credentials/],
    ] as const) {
      await assert.rejects(startServerProcess({ ...env }), (err: Error) => pattern.test(err.message));
    }
  });

  test('a payment made while the service was down is found after restart', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-ltc-restart-'));
    try {
      const env = { DATA_DIR: dataDir, LITECOIN_RPC_URL: node.rpcUrl, LITECOIN_CHAIN: 'regtest' };
      const first = await startServerProcess(env);
      const keys = readDemoMerchant(dataDir)!;
      const client = merchantApi({ api: `${first.url}/v2` }, keys);
      const payment = (await client.post('/payment', { amount: '0.7', asset: LTC })).body;
      await first.stop('SIGKILL');
      const txid = await node.rpc<string>('sendtoaddress', payment.addressTo, 0.7);
      await node.mine(payment.confirmsNeeded);
      const second = await startServerProcess(env);
      try {
        const again = merchantApi({ api: `${second.url}/v2` }, keys);
        let record: any;
        for (let i = 0; i < 300; i++) {
          record = (await again.get(`/payment/${payment.id}`)).body;
          if (record.status === 'COMPLETE') break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.equal(record.status, 'COMPLETE');
        assert.deepEqual(record.transactions.map((t: any) => t.txnId), [txid]);
      } finally {
        await second.stop();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a follower that fails on one block poll after poll is stalled: /health says since when and where, the log names the block', async () => {
    const proxy = await startRpcProxy(node.rpcUrl);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-ltc-stall-'));
    const server = await startServerProcess({ DATA_DIR: dataDir, LITECOIN_RPC_URL: proxy.url, LITECOIN_CHAIN: 'regtest' });
    try {
      const health = async () => (await getJson(`${server.url}/health`)).body.networks.litecoin as Record<string, unknown>;
      const tip = await node.rpc<number>('getblockcount');
      await until(health, (h) => h.state === 'ok' && h.height === tip, 'the follower at the tip');
      const notBefore = Date.now();
      // A pruned node, say: it lists the block but cannot serve it.
      proxy.answer = (call) => (call.method === 'getblock' ? { error: { code: -1, message: 'Block not available (pruned data)' } } : undefined);
      const [blockHash] = await node.mine(1);
      const stalled = await until(health, (h) => h.state === 'stalled', 'the stall');
      assert.deepEqual(stalled, { source: 'node', state: 'stalled', height: tip, lastBlockAt: stalled.lastBlockAt, stalledBlock: tip + 1, stalledSince: stalled.stalledSince });
      const since = Date.parse(String(stalled.stalledSince));
      assert.ok(since >= notBefore - 1_000 && since <= Date.now(), `stalled since ${String(stalled.stalledSince)}`);
      const lines = server
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, any>)
        .filter((entry) => entry.msg === `the follower is stalled at block ${tip + 1}: every poll fails there`);
      assert.deepEqual(
        lines.map((l) => [l.level, l.network, l.block, l.blockHash, l.failures, l.since, l.err.message]),
        [[50, 'litecoin', tip + 1, blockHash, 3, stalled.stalledSince, 'getblock: Block not available (pruned data)']],
      );
      proxy.answer = undefined;
      await until(health, (h) => h.state === 'ok' && h.height === tip + 1, 'moving again');
    } finally {
      await server.stop();
      await proxy.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
