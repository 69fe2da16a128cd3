/**
 * Paying out XMR from the installation's wallet through real regtest daemons, driven through the
 * service's processes, its HTTP API and its CLI: the wallet command, a payout a second wallet
 * receives to the piconero, a kill -9 between storing the built transaction and relaying it (a
 * loopback relay cuts relay_tx) after which the same transaction is relayed and no second one is
 * built, two payouts approved at once (both sent), and a view-only wallet that refuses payouts.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { readDemoMerchant } from '../../api/merchants/demo-merchant.ts';
import { ROOT } from '../../scripts/compiled-server.ts';
import { COINBASE_UNLOCK, moneroInstalled, type MoneroNodes, type MoneroWalletProcess, startMonero } from '../helpers/monero.ts';
import { type RpcProxy, startRpcProxy } from '../helpers/rpc-proxy.ts';
import { type ServerProcess, startServerProcess, storeEnv } from '../helpers/server-process.ts';
import { merchantApi, startTestServer } from '../helpers/test-server.ts';
import { until } from '../helpers/until.ts';

const XMR = { short: 'XMR', network: 'monero' };
const skip = moneroInstalled() ? false : process.env.CI ? false : 'monero is not installed (apt-get install monero); CI runs this';

const piconero = (xmr: string) => {
  const [whole = '0', fraction = ''] = xmr.split('.');
  return BigInt(whole + fraction.padEnd(12, '0'));
};

describe('monero payouts from the installation wallet (regtest)', { skip }, () => {
  let nodes: MoneroNodes;
  let service: MoneroWalletProcess;
  let recipient: MoneroWalletProcess;
  let proxy: RpcProxy;
  let server: ServerProcess;
  let dataDir: string;
  let env: Record<string, string>;
  let api: ReturnType<typeof merchantApi>;
  let invoice = 0;

  const start = async () => {
    server = await startServerProcess(env);
    api = merchantApi({ api: `${server.url}/v2` }, readDemoMerchant(dataDir)!);
  };
  const mine = (count: number) => nodes.mine(count, recipient.address);
  /** Mines until a transaction `wallet` knows has exactly `confirmations`. */
  const confirm = (wallet: MoneroWalletProcess, txid: string, confirmations: number) => nodes.confirm(wallet, txid, confirmations, recipient.address);

  /** The recipient's wallet pays each address its amount, in one transaction. */
  async function pay(...destinations: Array<[address: string, xmr: string]>): Promise<string> {
    await recipient.rpc('refresh');
    const sent = await recipient.rpc<{ tx_hash: string }>('transfer', { destinations: destinations.map(([address, xmr]) => ({ address, amount: piconero(xmr) })), account_index: 0 });
    return sent.tx_hash;
  }

  before(async () => {
    nodes = await startMonero();
    service = await nodes.startWallet();
    recipient = await nodes.startWallet();
    await mine(COINBASE_UNLOCK + 20);
    proxy = await startRpcProxy(service.rpcUrl);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-xmr-payouts-'));
    env = { DATA_DIR: dataDir, MONERO_WALLET_RPC_URL: proxy.url, MONERO_DAEMON_RPC_URL: nodes.daemonUrl, MONERO_POLL_SECONDS: '1', ...(await storeEnv(dataDir)) };
    await start();
    // The merchant's balance and the wallet's funds: six payments of 1.5 XMR in one transaction,
    // six outputs for the payouts below to spend.
    const payments = [];
    for (let i = 0; i < 6; i++) payments.push((await api.post('/payment', { amount: '1.5', asset: XMR, invoice: `fund-${i}` })).body);
    await confirm(recipient, await pay(...payments.map((p): [string, string] => [p.addressTo, '1.5'])), 10);
    for (const payment of payments) await until(async () => (await api.get(`/payment/${payment.id}`)).body.status, (s) => s === 'COMPLETE', 'a funding payment');
  });
  after(async () => {
    await server?.stop();
    await proxy?.close();
    await nodes?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const wallet = async (...args: string[]) => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'api/cli/cli.ts', 'wallet', ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    return stdout;
  };

  async function withdraw(amount: string) {
    const created = await api.post('/withdrawal', { amount, asset: XMR, addressTo: recipient.address, invoice: `out-${++invoice}` });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    return created.body as { id: string; receivedAmount: string };
  }
  const read = async (id: string) => (await api.get(`/withdrawal/${id}`)).body;

  /** What a transaction paid the recipient, in piconero, as its wallet sees it. */
  async function received(txid: string): Promise<bigint> {
    await recipient.rpc('refresh');
    const { transfers } = await recipient.rpc<{ transfers: Array<{ type: string; amount: number }> }>('get_transfer_by_txid', { txid, account_index: 0 });
    return transfers.filter((t) => t.type === 'in' || t.type === 'pool').reduce((sum, t) => sum + BigInt(t.amount), 0n);
  }

  test('wallet --json: the primary address payouts come from and what it can send now', async () => {
    const shown = JSON.parse(await wallet('--network', 'monero', '--json'));
    assert.deepEqual(shown, { network: 'monero', chain: 'regtest', payoutAddress: service.address, spendable: { XMR: '9.00000000' } });
  });

  test('approve builds, stores and relays: the second wallet receives receivedAmount exactly, then COMPLETE', async () => {
    const w = await withdraw('0.5');
    const approved = await api.post(`/withdrawal/${w.id}/approve`, {});
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.match(approved.body.txnId, /^[0-9a-f]{64}$/);
    assert.equal(approved.body.addressFrom, service.address);
    const relayed = await service.rpc<{ transfer: { type: string } }>('get_transfer_by_txid', { txid: approved.body.txnId, account_index: 0 });
    assert.equal(relayed.transfer.type, 'pending', 'relayed, waiting for a block');
    await confirm(service, approved.body.txnId, 10);
    await until(() => read(w.id), (r) => r.status === 'COMPLETE', 'the payout confirming');
    assert.equal(await received(approved.body.txnId), piconero(w.receivedAmount));
  });

  test('kill -9 between storing and relaying: the restarted service relays the same transaction, never builds a second', async () => {
    const w = await withdraw('0.3');
    proxy.cut.add('relay_tx');
    const from = proxy.calls.length;
    const approved = await api.post(`/withdrawal/${w.id}/approve`, {});
    assert.equal(approved.status, 200);
    assert.equal(approved.body.status, 'APPROVED');
    assert.equal(approved.body.txnId, null, 'the relay never reached the wallet');
    await server.stop('SIGKILL');
    proxy.cut.delete('relay_tx');
    await start();
    const sent = await until(() => read(w.id), (r) => r.txnId !== null, 'the payout after restart');
    const calls = proxy.calls.slice(from);
    assert.equal(calls.filter((c) => c.method === 'transfer').length, 1, 'one transaction built');
    const relays = calls.filter((c) => c.method === 'relay_tx').map((c) => (c.params as unknown as { hex: string }).hex);
    assert.ok(relays.filter((hex) => hex === relays[0]).length >= 2, 'the cut relay, then the same transaction relayed after restart');
    await confirm(service, sent.txnId, 10);
    await until(() => read(w.id), (r) => r.status === 'COMPLETE', 'the relayed payout confirming');
    assert.equal(await received(sent.txnId), piconero(w.receivedAmount));
  });

  test('two payouts approved at once are both built and relayed, one after the other', async () => {
    const [a, b] = [await withdraw('0.7'), await withdraw('0.8')];
    const approved = await Promise.all([a, b].map((w) => api.post(`/withdrawal/${w.id}/approve`, {})));
    for (const answer of approved) assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const [first, second] = await Promise.all([a, b].map((w) => until(() => read(w.id), (r) => r.txnId !== null, 'a concurrent payout')));
    assert.notEqual(first.txnId, second.txnId);
    await confirm(service, first.txnId, 10);
    await confirm(service, second.txnId, 10);
    for (const [w, sent] of [[a, first], [b, second]] as const) {
      await until(() => read(w.id), (r) => r.status === 'COMPLETE', 'a concurrent payout confirming');
      assert.equal(await received(sent.txnId), piconero(w.receivedAmount));
    }
  });

  test('a view-only wallet receives, and approve answers 409 payouts-disabled', async () => {
    const { key: viewKey } = await service.rpc<{ key: string }>('query_key', { key_type: 'view_key' });
    const viewOnly = await nodes.startWallet({ viewOnly: { address: service.address, viewKey } });
    const receiving = await startTestServer({ env: { MONERO_WALLET_RPC_URL: viewOnly.rpcUrl, MONERO_DAEMON_RPC_URL: nodes.daemonUrl } });
    try {
      const shop = merchantApi(receiving, await receiving.createMerchant('View-only Shop'));
      const payment = (await shop.post('/payment', { amount: '1', asset: XMR })).body;
      await confirm(recipient, await pay([payment.addressTo, '1']), 10);
      await receiving.services.followers.get('monero')!.pollFresh();
      assert.equal((await shop.get(`/payment/${payment.id}`)).body.status, 'COMPLETE');
      const w = (await shop.post('/withdrawal', { amount: '0.5', asset: XMR, addressTo: recipient.address, invoice: 'view-only' })).body;
      const refused = await shop.post(`/withdrawal/${w.id}/approve`, {});
      assert.equal(refused.status, 409);
      assert.deepEqual(refused.body, {
        error: {
          code: 'payouts-disabled',
          message:
            'Payouts on monero are off: the wallet open in monero-wallet-rpc (MONERO_WALLET_RPC_URL) is view-only, so this installation receives XMR but cannot send it. Open the full wallet to pay out.',
        },
      });
      assert.equal((await shop.get(`/withdrawal/${w.id}`)).body.status, 'OPEN');
    } finally {
      await receiving.close();
      await viewOnly.stop();
    }
  });
});
