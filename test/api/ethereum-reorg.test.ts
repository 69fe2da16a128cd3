/**
 * Reorganisations deeper than one block on Ethereum, through a real node (anvil) and the service's
 * process: `anvil_reorg` replaces the payment's block and those after it by as many other blocks
 * (anvil then forgets the stale ones, as many providers do), before and after a sweep of the
 * payment's address; what they held is taken back, and later payments and payouts are still seen.
 * And a follower that fails again and again on one block (a node that never serves its receipt,
 * through a relay) is a stall that /health and the log name.
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
import { type Anvil, startAnvil } from '../helpers/anvil.ts';
import { type RpcProxy, startRpcProxy } from '../helpers/rpc-proxy.ts';
import { type ServerProcess, startServerProcess, storeEnv } from '../helpers/server-process.ts';
import { merchantApi } from '../helpers/test-server.ts';
import { until } from '../helpers/until.ts';

const ETH = { short: 'ETH', network: 'ethereum' };
const E18 = 10n ** 18n;

describe('ethereum reorganisations deeper than one block, and a stalled follower (anvil)', () => {
  let node: Anvil;
  let proxy: RpcProxy;
  let server: ServerProcess;
  let dataDir: string;
  let env: Record<string, string>;
  let api: ReturnType<typeof merchantApi>;
  let payer: string;
  let invoice = 0;

  const cli = async (...args: string[]) => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'api/cli/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    return JSON.parse(stdout);
  };

  before(async () => {
    node = await startAnvil();
    payer = node.accounts[1]!;
    proxy = await startRpcProxy(node.url);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-eth-reorg-'));
    env = { DATA_DIR: dataDir, ETHEREUM_RPC_URL: proxy.url, ETHEREUM_CHAIN_ID: '31337', ETHEREUM_SWEEP_SECONDS: '0', ...(await storeEnv(dataDir)) };
    server = await startServerProcess(env);
    api = merchantApi({ api: `${server.url}/v2` }, readDemoMerchant(dataDir)!);
  });
  after(async () => {
    await server?.stop();
    await proxy?.close();
    await node?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const read = async (id: string) => (await api.get(`/payment/${id}`)).body;
  const ether = async () => ((await api.get('/balance')).body.data.find((b: any) => b.asset.short === 'ETH' && b.asset.network === 'ethereum')?.available ?? null) as string | null;
  const tip = async () => Number(BigInt(await node.rpc<string>('eth_blockNumber')));
  const health = async () => ((await (await fetch(`${server.url}/health`)).json()) as { networks: { ethereum: Record<string, unknown> } }).networks.ethereum;
  const atTip = async () => {
    const height = await tip();
    await until(health, (h) => h.height === height && h.state === 'ok', 'the follower at the tip');
  };
  /** The service's log lines (pino JSON) with this message, from `from` characters of its output on. */
  const logged = (msg: string, from: number) =>
    server
      .output()
      .slice(from)
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, any>)
      .filter((entry) => entry.msg === msg);

  /** A payment of `amount` ETH paid in one transfer and confirmed: its block and what it credited. */
  async function paidAndConfirmed(amount: string, wei: bigint) {
    const payment = (await api.post('/payment', { amount, asset: ETH, invoice: `reorg-${++invoice}` })).body as { id: string; addressTo: string; confirmsNeeded: number };
    const sent = await node.send({ from: payer, to: payment.addressTo, value: wei });
    await node.mine(payment.confirmsNeeded);
    await until(() => read(payment.id), (r) => r.status === 'COMPLETE', `paying ${amount} ETH`);
    return { payment, sent, block: Number(BigInt(sent.blockNumber)) };
  }

  /** Replaces every block from `from` to the tip by as many empty ones, then mines `more`. */
  async function reorganiseFrom(from: number, more: number) {
    await node.rpc('anvil_reorg', (await tip()) - from + 1, []);
    await node.mine(more);
  }

  test('anvil_reorg of the payment\'s block and the three after it takes the COMPLETE payment and its credit back, each block walked back', async () => {
    await atTip();
    const before = await ether();
    const { payment, sent, block } = await paidAndConfirmed('1', E18);
    assert.equal(await ether(), '1.00000000');
    await atTip();
    const top = await tip();
    assert.equal(top, block + 3, 'the payment\'s block and three above it');
    const logFrom = server.output().length;
    await reorganiseFrom(block, 2);
    const record = await until(() => read(payment.id), (r) => r.status !== 'COMPLETE', 'the payment taken back');
    assert.equal(record.status, 'OPEN');
    assert.deepEqual(record.transactions, []);
    assert.equal(record.totalReceivedAmount, '0.00000000');
    assert.equal(await ether(), before === null ? '0.00000000' : before);
    assert.equal(await node.rpc('eth_getTransactionReceipt', sent.transactionHash), null, 'the transfer left the chain');
    await atTip();
    // Walked back from the tip to the payment's block, one block at a time, and no further.
    const walked = logged('chain reorganisation: walking back', logFrom).map((entry) => [entry.height, entry.dropped]);
    assert.deepEqual(walked, [[top, 0], [top - 1, 0], [top - 2, 0], [block, 1]]);

    // The payer pays again on the new chain: counted once.
    await node.send({ from: payer, to: payment.addressTo, value: E18 });
    await node.mine(payment.confirmsNeeded);
    const paid = await until(() => read(payment.id), (r) => r.status === 'COMPLETE', 'paid again');
    assert.equal(paid.totalReceivedAmount, '1.00000000');
    assert.equal(paid.transactions.length, 1);
    assert.equal(await ether(), '1.00000000');
  });

  test('after a sweep of the payment\'s address, a reorganisation under both takes the payment back; later payments and payouts are seen', async () => {
    const before = await ether();
    const { payment, block } = await paidAndConfirmed('2', 2n * E18);
    const sweep = await cli('sweep', '--network', 'ethereum', '--json');
    const ofPayment = sweep.swept.find((s: any) => s.address === payment.addressTo);
    assert.deepEqual([ofPayment.asset, ofPayment.amount.slice(0, 4)], ['ETH', '1.99']);
    const payoutAddress = sweep.payoutAddress as string;
    const swept = await node.rpc<{ blockNumber: string }>('eth_getTransactionReceipt', ofPayment.txnId);
    assert.ok(Number(BigInt(swept.blockNumber)) > block, 'the sweep is mined above the payment');
    await atTip();
    await reorganiseFrom(block, 2);
    const record = await until(() => read(payment.id), (r) => r.status !== 'COMPLETE', 'the payment taken back');
    assert.equal(record.status, 'OPEN');
    assert.deepEqual(record.transactions, []);
    assert.equal(await ether(), before);
    assert.equal(await node.rpc('eth_getTransactionReceipt', ofPayment.txnId), null, 'the sweep left the chain');
    assert.equal(await node.rpc('eth_getBalance', payment.addressTo, 'latest'), '0x0');
    await atTip();

    // A later payment is seen and confirmed; a payout goes out from the (operator-funded) payout address and completes.
    await paidAndConfirmed('0.5', E18 / 2n);
    await node.send({ from: payer, to: payoutAddress, value: E18 });
    const created = await api.post('/withdrawal', { amount: '0.1', asset: ETH, addressTo: node.accounts[7], invoice: 'reorg-out' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const approved = await api.post(`/withdrawal/${created.body.id}/approve`, {});
    assert.match(approved.body.txnId, /^0x[0-9a-f]{64}$/);
    await node.mine(3);
    const payout = await until(async () => (await api.get(`/withdrawal/${created.body.id}`)).body, (w) => w.status === 'COMPLETE', 'the payout confirming');
    assert.equal(payout.txnId, approved.body.txnId);
  });

  test('a follower that fails on one block poll after poll is stalled: /health says since when and where, the log names the block', async () => {
    await atTip();
    const payment = (await api.post('/payment', { amount: '0.25', asset: ETH, invoice: `reorg-${++invoice}` })).body as { id: string; addressTo: string };
    const logFrom = server.output().length;
    const notBefore = Date.now();
    // A node (behind a load balancer, say) that never has the block's receipts.
    proxy.answer = (call) => (call.method === 'eth_getTransactionReceipt' ? { result: null } : undefined);
    try {
      const sent = await node.send({ from: payer, to: payment.addressTo, value: E18 / 4n });
      const block = Number(BigInt(sent.blockNumber));
      const stalled = await until(health, (h) => h.state === 'stalled', 'the stall');
      assert.deepEqual(stalled, { source: 'node', state: 'stalled', height: block - 1, lastBlockAt: stalled.lastBlockAt, stalledBlock: block, stalledSince: stalled.stalledSince });
      const since = Date.parse(String(stalled.stalledSince));
      assert.ok(since >= notBefore - 1_000 && since <= Date.now(), `stalled since ${String(stalled.stalledSince)}`);
      const blockHash = (await node.rpc<{ hash: string }>('eth_getBlockByNumber', `0x${block.toString(16)}`, false)).hash;
      const [line, ...more] = logged(`the follower is stalled at block ${block}: every poll fails there`, logFrom);
      assert.deepEqual(more, [], 'said once');
      assert.deepEqual([line!.level, line!.network, line!.block, line!.blockHash, line!.failures, line!.since], [50, 'ethereum', block, blockHash, 3, stalled.stalledSince]);
      assert.equal(line!.err.message, `the node has no receipt of ${sent.transactionHash} in block ${blockHash} yet; the block is read again`);
    } finally {
      proxy.answer = undefined;
    }
    await until(health, (h) => h.state === 'ok', 'moving again');
    assert.equal((await health()).stalledBlock, undefined);
    assert.equal(logged('the follower moves again', logFrom).length, 1);
    await until(() => read(payment.id), (r) => r.transactions.length === 1, 'the payment seen once the block reads');
  });
});
