/**
 * Receiving XMR through real regtest daemons (Debian's monerod and monero-wallet-rpc, the service's
 * wallet behind digest auth), driven through the public HTTP API: fresh subaddresses and the
 * monero: URI, a payment seen in the pool then in the chain to COMPLETE at 10, partial, over- and
 * 12-digit payments counted exactly, a pool transaction flushed away and taken back, /health, a
 * withdrawal address checked, and a restart that catches up with what arrived while it was down.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { readDemoMerchant } from '../../api/merchants/demo-merchant.ts';
import { IN_THREAD_POOL } from '../../api/networks/address-pool.ts';
import { COINBASE_UNLOCK, moneroInstalled, type MoneroNodes, type MoneroWalletProcess, startMonero } from '../helpers/monero.ts';
import { startServerProcess } from '../helpers/server-process.ts';
import { getJson, merchantApi, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { until } from '../helpers/until.ts';

const XMR = { short: 'XMR', network: 'monero' };
const skip = moneroInstalled() ? false : process.env.CI ? false : 'monero is not installed (apt-get install monero); CI runs this';

/** XMR as the wallet RPC counts it (piconero). */
const piconero = (xmr: string) => {
  const [whole = '0', fraction = ''] = xmr.split('.');
  return BigInt(whole + fraction.padEnd(12, '0'));
};

describe('monero through monero-wallet-rpc (regtest)', { skip }, () => {
  let nodes: MoneroNodes;
  let service: MoneroWalletProcess;
  let payer: MoneroWalletProcess;
  let server: TestServer;
  let api: ReturnType<typeof merchantApi>;
  let invoice = 0;

  before(async () => {
    nodes = await startMonero();
    service = await nodes.startWallet({ login: true });
    payer = await nodes.startWallet();
    // Spendable coinbase for the payer, and enough unlocked outputs on chain for ring members.
    await nodes.mine(COINBASE_UNLOCK + 20, payer.address);
    server = await startTestServer({ env: { MONERO_WALLET_RPC_URL: service.rpcUrl, MONERO_DAEMON_RPC_URL: nodes.daemonUrl } });
    api = merchantApi(server, await server.createMerchant('Monero Shop'));
  });
  after(async () => {
    await server?.close();
    await nodes?.stop();
  });

  /** Lets the follower read the wallet now (it also polls by itself). */
  const follow = () => server.services.followers.get('monero')!.pollFresh();
  const mine = (count: number) => nodes.mine(count, payer.address);
  /** Mines until the payer's transaction has exactly `confirmations`. */
  const confirm = (txid: string, confirmations: number) => nodes.confirm(payer, txid, confirmations, payer.address);

  async function newPayment(amount: string) {
    const response = await api.post('/payment', { amount, asset: XMR, invoice: `xmr-${++invoice}` });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    return response.body as { id: string; addressTo: string; confirmsNeeded: number; paymentUri: string };
  }

  /** The payer's wallet pays each address its amount, in one transaction; returns its id. */
  async function pay(...destinations: Array<[address: string, xmr: string]>): Promise<string> {
    await payer.rpc('refresh');
    const sent = await payer.rpc<{ tx_hash: string }>('transfer', { destinations: destinations.map(([address, xmr]) => ({ address, amount: piconero(xmr) })), account_index: 0 });
    return sent.tx_hash;
  }

  const read = async (id: string) => (await api.get(`/payment/${id}`)).body;
  const seen = (record: any) => record.transactions.map((t: any) => [t.txnId, t.receivedAmount, t.confirmations]);

  test('each payment gets a fresh subaddress of the wallet (account 0) and a monero: URI; XMR is served with 8 decimals and 10 confirmations', async () => {
    const first = await newPayment('1.25');
    const second = await newPayment('0.5');
    assert.notEqual(first.addressTo, second.addressTo);
    for (const payment of [first, second]) {
      const { index } = await service.rpc<{ index: { major: number; minor: number } }>('get_address_index', { address: payment.addressTo });
      assert.equal(index.major, 0);
      assert.ok(index.minor > 0, 'a subaddress, never the primary address');
    }
    assert.equal(first.paymentUri, `monero:${first.addressTo}?tx_amount=1.25`);
    assert.equal(first.confirmsNeeded, 10);
    const assets = (await api.get('/assets')).body.data;
    const xmr = assets.find((a: any) => a.short === 'XMR');
    assert.deepEqual({ network: xmr.network, name: xmr.name, decimals: xmr.decimals, confirmsNeeded: xmr.confirmsNeeded }, { network: 'monero', name: 'Monero', decimals: 8, confirmsNeeded: 10 });
  });

  test('paid exactly: seen in the pool, then in a block, COMPLETE at 10 confirmations and credited', async () => {
    const payment = await newPayment('1.5');
    const txid = await pay([payment.addressTo, '1.5']);
    await follow();
    let record = await read(payment.id);
    assert.equal(record.status, 'CONFIRMING');
    assert.deepEqual(seen(record), [[txid, '1.50000000', 0]]);
    await confirm(txid, 1);
    await follow();
    assert.deepEqual(seen(await read(payment.id)), [[txid, '1.50000000', 1]]);
    await mine(9);
    await follow();
    record = await read(payment.id);
    assert.equal(record.status, 'COMPLETE');
    assert.deepEqual(seen(record), [[txid, '1.50000000', 10]]);
    const balance = (await api.get('/balance')).body.data.find((b: any) => b.asset.short === 'XMR');
    assert.equal(balance.available, '1.50000000');
  });

  test('a payment its sender locked (unlock_time) counts no confirmations until it unlocks, then completes', async () => {
    // Locked outputs cannot be spent: a payer could lock a payment for years and still have it credited.
    const payment = await newPayment('0.75');
    await payer.rpc('refresh');
    const { height } = await payer.rpc<{ height: number }>('get_height');
    const unlockAt = height + 20;
    const sent = await payer.rpc<{ tx_hash: string }>('transfer', { destinations: [{ address: payment.addressTo, amount: piconero('0.75') }], account_index: 0, unlock_time: unlockAt });
    await confirm(sent.tx_hash, 1);
    await mine(11);
    await follow();
    let record = await read(payment.id);
    assert.equal(record.status, 'CONFIRMING', 'twelve blocks deep, but locked for eight more');
    assert.deepEqual(seen(record), [[sent.tx_hash, '0.75000000', 0]]);
    const before = (await api.get('/balance')).body.data.find((b: any) => b.asset.short === 'XMR')?.available ?? '0.00000000';
    await mine(10);
    await follow();
    record = await read(payment.id);
    assert.equal(record.status, 'COMPLETE');
    assert.ok(record.transactions[0].confirmations >= 10, JSON.stringify(seen(record)));
    const after = (await api.get('/balance')).body.data.find((b: any) => b.asset.short === 'XMR').available;
    assert.equal((Number(after) - Number(before)).toFixed(8), '0.75000000');
  });

  test('partial then the rest, an overpayment, and 12-digit amounts counted exactly (shown floored to 8)', async () => {
    const before = (await api.get('/balance')).body.data.find((b: any) => b.asset.short === 'XMR')?.available ?? '0';
    const partial = await newPayment('1');
    const over = await newPayment('2');
    const fine = await newPayment('0.1');
    const finer = await newPayment('0.1');
    await pay([partial.addressTo, '0.4'], [over.addressTo, '2.5'], [fine.addressTo, '0.123456789009'], [finer.addressTo, '0.123456789009']);
    await follow();
    let record = await read(partial.id);
    assert.equal(record.status, 'OPEN');
    assert.equal(record.amountDue, '0.60000000');
    assert.equal(record.paymentUri, `monero:${partial.addressTo}?tx_amount=0.6`);
    await confirm(await pay([partial.addressTo, '0.6']), 10);
    await follow();
    record = await read(partial.id);
    assert.equal(record.status, 'COMPLETE');
    assert.equal(record.totalReceivedAmount, '1.00000000');
    record = await read(over.id);
    assert.equal(record.status, 'COMPLETE');
    assert.equal(record.totalReceivedAmount, '2.50000000');
    for (const id of [fine.id, finer.id]) {
      record = await read(id);
      assert.equal(record.status, 'COMPLETE');
      assert.equal(record.transactions[0].receivedAmount, '0.12345678', 'shown floored to 8 digits');
      assert.equal(record.amountDue, '0.00000000');
    }
    // 0.123456789009 twice is 0.246913578018: the ledger keeps the 12 digits (each payment floored
    // would have credited 0.24691356).
    const balance = (await api.get('/balance')).body.data.find((b: any) => b.asset.short === 'XMR');
    const credited = (Number(piconero(balance.available) - piconero(before)) / 1e12).toFixed(8);
    assert.equal(credited, (1 + 2.5 + 0.24691357).toFixed(8));
  });

  test('a pool transaction flushed from the daemon is taken back: the payment reopens', async () => {
    const payment = await newPayment('0.7');
    const txid = await pay([payment.addressTo, '0.7']);
    await follow();
    assert.equal((await read(payment.id)).status, 'CONFIRMING');
    await nodes.daemon('flush_txpool', { txids: [txid] });
    // Missing on two polls in a row: dropped.
    await follow();
    await follow();
    const record = await read(payment.id);
    assert.equal(record.status, 'OPEN');
    assert.deepEqual(record.transactions, []);
    assert.equal(record.amountDue, '0.70000000');
  });

  test('a wallet file opened anew with fewer subaddresses is told of them again, and a payment to one past its lookahead is found', async () => {
    // Subaddresses past the 200 a fresh wallet scans ahead of its last one.
    const payments = [];
    for (let i = 0; i < 205; i++) payments.push(await newPayment('0.01'));
    await follow();
    const last = payments.at(-1)!;
    const { index } = await service.rpc<{ index: { minor: number } }>('get_address_index', { address: last.addressTo });
    assert.ok(index.minor > 201, `minor ${index.minor}`);
    // The same keys in a new wallet file, in the same monero-wallet-rpc (as after a restart that
    // lost what was not saved): it has only its primary address, and it scans by itself.
    const { key: spendKey } = await service.rpc<{ key: string }>('query_key', { key_type: 'spend_key' });
    const { key: viewKey } = await service.rpc<{ key: string }>('query_key', { key_type: 'view_key' });
    const { address } = await service.rpc<{ address: string }>('get_address', { account_index: 0 });
    await service.rpc('close_wallet');
    await service.rpc('generate_from_keys', { filename: 'wallet-again', address, spendkey: spendKey, viewkey: viewKey, password: '', restore_height: 0 });
    await service.rpc('auto_refresh', { enable: false });
    assert.equal((await service.rpc<{ addresses: unknown[] }>('get_address', { account_index: 0 })).addresses.length, 1);
    const txid = await pay([last.addressTo, '0.01']);
    await follow();
    await confirm(txid, last.confirmsNeeded);
    await follow();
    const record = await read(last.id);
    assert.equal(record.status, 'COMPLETE');
    assert.deepEqual(seen(record), [[txid, '0.01000000', last.confirmsNeeded]]);
    assert.ok((await service.rpc<{ addresses: unknown[] }>('get_address', { account_index: 0 })).addresses.length > index.minor, 'told of them again');
  });

  test('GET /health shows monero following its daemon', async () => {
    await follow();
    const health = await getJson(`${server.url}/health`);
    const { height } = await nodes.daemon<{ height: number }>('get_info');
    assert.deepEqual({ state: health.body.networks.monero.state, height: health.body.networks.monero.height }, { state: 'ok', height });
  });

  test('a withdrawal to an address that is not a Monero mainnet address is refused', async () => {
    const broken = `${payer.address.slice(0, -1)}${payer.address.endsWith('a') ? 'b' : 'a'}`;
    const response = await api.post('/withdrawal', { amount: '0.5', asset: XMR, addressTo: broken, invoice: 'xmr-out-1' });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'validation-failed');
    assert.deepEqual(response.body.error.details.map((d: any) => d.path), ['addressTo']);
  });

  test('a payment made while the service was down is found after restart, counted once', async () => {
    const wallet = await nodes.startWallet();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-xmr-restart-'));
    try {
      // A large pool: of Monero's, made in the main thread and each told to the wallet, only IN_THREAD_POOL.
      const env = { DATA_DIR: dataDir, MONERO_WALLET_RPC_URL: wallet.rpcUrl, MONERO_DAEMON_RPC_URL: nodes.daemonUrl, ADDRESS_POOL_SIZE: '500' };
      const first = await startServerProcess(env);
      const keys = readDemoMerchant(dataDir)!;
      const payment = (await merchantApi({ api: `${first.url}/v2` }, keys).post('/payment', { amount: '0.3', asset: XMR })).body;
      await first.stop('SIGKILL');
      const txid = await pay([payment.addressTo, '0.3']);
      await confirm(txid, payment.confirmsNeeded);
      const second = await startServerProcess(env);
      try {
        const again = merchantApi({ api: `${second.url}/v2` }, keys);
        const record = await until(async () => (await again.get(`/payment/${payment.id}`)).body, (r) => r.status === 'COMPLETE', 'the payment after restart').catch((err: Error) => {
          throw new Error(`${err.message}\nthe service said:\n${second.output()}`);
        });
        assert.deepEqual(seen(record), [[txid, '0.30000000', 10]]);
        // Once the pool is full and the wallet told of it, two more polls (2 s each) tell it of nothing more.
        const told = async () => (await wallet.rpc<{ addresses: unknown[] }>('get_address', { account_index: 0 })).addresses.length;
        await until(told, (n) => n > IN_THREAD_POOL, 'the wallet told of the pool');
        await new Promise((resolve) => setTimeout(resolve, 5_000));
        const count = await told();
        assert.ok(count <= IN_THREAD_POOL + 2, `the wallet was told of ${count} subaddresses`);
      } finally {
        await second.stop();
      }
    } finally {
      await wallet.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
