/**
 * Receiving ETH and ERC-20 tokens through a real Ethereum node (anvil), driven as an operator and a
 * merchant would: the token contracts set with the CLI, the service started as a process, payments
 * through its HTTP API. ETH and a 6-decimal and an 18-decimal token to COMPLETE with exact amounts,
 * partial then complete, a token the payment did not ask for and one the registry does not name
 * (not counted), a reverted transfer (not counted), a reorganisation, catch-up after downtime,
 * health, a payout waiting while the payout address is empty, and the start-up check of the chain id.
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
import { type ServerProcess, startServerProcess, storeEnv } from '../helpers/server-process.ts';
import { merchantApi } from '../helpers/test-server.ts';
import { until } from '../helpers/until.ts';

const ETH = { short: 'ETH', network: 'ethereum' };
const USDT = { short: 'USDT', network: 'ethereum' };
const USDC = { short: 'USDC', network: 'ethereum' };
const E18 = 10n ** 18n;

describe('ethereum through an Ethereum JSON-RPC node (anvil)', () => {
  let node: Anvil;
  let server: ServerProcess;
  let dataDir: string;
  let env: Record<string, string>;
  let api: ReturnType<typeof merchantApi>;
  let usdt: string;
  let usdc: string;
  let stranger: string;
  let payer: string;
  let invoice = 0;

  const cli = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'api/cli/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, ...env } });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const failed = err as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };
  const start = async () => {
    server = await startServerProcess(env);
    api = merchantApi({ api: `${server.url}/v2` }, readDemoMerchant(dataDir)!);
  };

  before(async () => {
    node = await startAnvil();
    payer = node.accounts[1]!;
    usdt = await node.deployToken(payer, 'USDT', 6, 1_000_000n * 10n ** 6n);
    usdc = await node.deployToken(payer, 'USDC', 18, 1_000_000n * E18);
    stranger = await node.deployToken(payer, 'FAKE', 6, 1_000_000n * 10n ** 6n);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-eth-'));
    env = { DATA_DIR: dataDir, ETHEREUM_RPC_URL: node.url, ETHEREUM_CHAIN_ID: '31337', ...(await storeEnv(dataDir)) };
    // As an operator: the tokens' contracts on this chain, then the service.
    for (const [short, contract] of [['USDT', usdt], ['USDC', usdc]] as const) {
      const set = await cli('asset', 'set-contract', '--short', short, '--network', 'ethereum', '--contract', contract, '--json');
      assert.equal(set.code, 0, set.stderr);
      assert.deepEqual(JSON.parse(set.stdout), { short, network: 'ethereum', contract: JSON.parse(set.stdout).contract });
      assert.equal(JSON.parse(set.stdout).contract.toLowerCase(), contract.toLowerCase());
    }
    await start();
  });
  after(async () => {
    await server?.stop();
    await node?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function newPayment(amount: string, asset: { short: string; network: string }) {
    const response = await api.post('/payment', { amount, asset, invoice: `eth-${++invoice}` });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    return response.body as { id: string; addressTo: string; confirmsNeeded: number };
  }
  const read = async (id: string) => (await api.get(`/payment/${id}`)).body;
  const balanceOf = async (short: string) => ((await api.get('/balance')).body.data.find((b: any) => b.asset.short === short && b.asset.network === 'ethereum')?.available ?? '0') as string;

  test('asset set-contract refuses what is not a token contract on ethereum, naming why', async () => {
    for (const [args, pattern] of [
      [['--short', 'USDT', '--network', 'ethereum'], /--contract is required/],
      [['--short', 'USDT', '--network', 'tron', '--contract', usdt], /contracts are set for ethereum tokens/],
      [['--short', 'USDT', '--network', 'ethereum', '--contract', '0x1234'], /is not an Ethereum address/],
      [['--short', 'USDT', '--network', 'ethereum', '--contract', '0xdAC17F958D2ee523a2206206994597C13D831Ec7'], /EIP-55 checksum/],
    ] as const) {
      const result = await cli('asset', 'set-contract', ...args);
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, pattern);
    }
    const unknown = await cli('asset', 'set-contract', '--short', 'ETH', '--network', 'ethereum', '--contract', usdt);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No token ETH on ethereum; the tokens there are USDT, USDC/);
  });

  test('ETH: an EIP-55 address of its own, seen when mined, COMPLETE at its confirmations, credited exactly', async () => {
    const payment = await newPayment('0.12345678', ETH);
    assert.match(payment.addressTo, /^0x[0-9a-fA-F]{40}$/);
    assert.notEqual(payment.addressTo, payment.addressTo.toLowerCase(), 'checksummed');
    const before = await balanceOf('ETH');
    const sent = await node.send({ from: payer, to: payment.addressTo, value: 123_456_780_000_000_000n });
    let record = await until(() => read(payment.id), (r) => r.transactions.length === 1, 'the ETH transfer');
    assert.deepEqual(record.transactions.map((t: any) => [t.txnId, t.receivedAmount, t.addressFrom.toLowerCase()]), [[sent.transactionHash, '0.12345678', payer.toLowerCase()]]);
    await node.mine(payment.confirmsNeeded);
    record = await until(() => read(payment.id), (r) => r.status === 'COMPLETE', 'ETH confirming');
    assert.equal(record.transactions[0].confirmations, payment.confirmsNeeded);
    assert.equal(Number(await balanceOf('ETH')) - Number(before), 0.12345678);
  });

  test('the payer view says testNetwork false for ethereum on its node, true for bitcoin on the simulator', async () => {
    const onNode = await newPayment('0.5', ETH);
    const simulated = await newPayment('0.001', { short: 'BTC', network: 'bitcoin' });
    const testNetworkOf = async (id: string) => ((await (await fetch(`${server.url}/v2/checkout/${id}`)).json()) as { testNetwork: boolean }).testNetwork;
    assert.deepEqual([await testNetworkOf(onNode.id), await testNetworkOf(simulated.id)], [false, true]);
  });

  test('a 6-decimal and an 18-decimal token both come out exact, each by its own decimals()', async () => {
    const tether = await newPayment('12.345678', USDT);
    const coin = await newPayment('7.5', USDC);
    await node.transferToken(usdt, payer, tether.addressTo, 12_345_678n);
    await node.transferToken(usdc, payer, coin.addressTo, 75n * 10n ** 17n);
    await node.mine(Math.max(tether.confirmsNeeded, coin.confirmsNeeded));
    const t = await until(() => read(tether.id), (r) => r.status === 'COMPLETE', 'USDT');
    const c = await until(() => read(coin.id), (r) => r.status === 'COMPLETE', 'USDC');
    assert.equal(t.totalReceivedAmount, '12.345678');
    assert.equal(c.totalReceivedAmount, '7.500000');
  });

  test('partial, then the rest', async () => {
    const payment = await newPayment('10', USDT);
    await node.transferToken(usdt, payer, payment.addressTo, 4_000_000n);
    let record = await until(() => read(payment.id), (r) => r.transactions.length === 1, 'the first part');
    assert.equal(record.status, 'OPEN');
    assert.equal(record.amountDue, '6.000000');
    await node.transferToken(usdt, payer, payment.addressTo, 6_000_000n);
    await node.mine(payment.confirmsNeeded);
    record = await until(() => read(payment.id), (r) => r.status === 'COMPLETE', 'the rest');
    assert.equal(record.transactions.length, 2);
  });

  test('a token the payment did not ask for, one the registry does not name, and a reverted transfer are not counted', async () => {
    const payment = await newPayment('5', USDT);
    await node.transferToken(usdc, payer, payment.addressTo, 5n * E18);
    await node.transferToken(stranger, payer, payment.addressTo, 5_000_000n);
    const reverted = await node.transferToken(usdt, node.accounts[5]!, payment.addressTo, 5_000_000n, 100_000);
    assert.equal(reverted.status, '0x0', 'the transfer reverted (the sender holds no USDT) and was mined');
    // A payment the follower must reach after those blocks proves it looked at them.
    const marker = await newPayment('0.001', ETH);
    await node.send({ from: payer, to: marker.addressTo, value: 10n ** 15n });
    await node.mine(1);
    await until(() => read(marker.id), (r) => r.transactions.length === 1, 'the marker payment');
    const record = await read(payment.id);
    assert.deepEqual(record.transactions, []);
    assert.equal(record.status, 'OPEN');
  });

  test('a reorganisation that takes the block away drops the transaction; mined again, it counts anew', async () => {
    const payment = await newPayment('1', USDT);
    const snapshot = await node.rpc<string>('evm_snapshot');
    await node.transferToken(usdt, payer, payment.addressTo, 1_000_000n);
    await until(() => read(payment.id), (r) => r.transactions.length === 1, 'the transfer');
    // Back to before it, then a longer chain without it.
    await node.rpc('evm_revert', snapshot);
    await node.mine(3);
    let record = await until(() => read(payment.id), (r) => r.transactions.length === 0, 'the transfer dropped');
    assert.equal(record.status, 'OPEN');
    // Paid again on the new chain: that transfer counts, the vanished one never does.
    await node.transferToken(usdt, payer, payment.addressTo, 1_000_000n);
    await node.mine(payment.confirmsNeeded);
    record = await until(() => read(payment.id), (r) => r.status === 'COMPLETE', 'counted on the new chain');
    assert.equal(record.totalReceivedAmount, '1.000000');
    assert.equal(record.transactions.length, 1);
  });

  test('GET /health shows ethereum following the node; a payout the empty payout address cannot cover waits, saying why', async () => {
    const tip = Number(BigInt(await node.rpc<string>('eth_blockNumber')));
    const health = await until(async () => (await fetch(`${server.url}/health`)).json() as Promise<any>, (h) => h.networks?.ethereum?.state === 'ok' && h.networks.ethereum.height === tip, 'health at the tip');
    assert.equal(typeof health.networks.ethereum.lastBlockAt, 'string');
    const created = await api.post('/withdrawal', { amount: '0.01', asset: ETH, addressTo: node.accounts[7], invoice: 'eth-out' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const approved = await api.post(`/withdrawal/${created.body.id}/approve`, {});
    assert.equal(approved.status, 200);
    assert.equal(approved.body.status, 'APPROVED');
    assert.equal(approved.body.txnId, null);
    assert.match(approved.body.failureReason, /The payout address 0x[0-9a-fA-F]{40} holds 0\.0+ ETH/);
  });

  test('a payment made while the service was down is found after restart', async () => {
    const payment = await newPayment('2', USDT);
    await server.stop('SIGKILL');
    await node.transferToken(usdt, payer, payment.addressTo, 2_000_000n);
    await node.mine(payment.confirmsNeeded + 2);
    await start();
    const record = await until(() => read(payment.id), (r) => r.status === 'COMPLETE', 'caught up');
    assert.equal(record.totalReceivedAmount, '2.000000');
  });

  test('a token whose contract does not answer on this chain is not served: absent from /v2/assets, 400 unsupported-asset', async () => {
    // A fresh installation on the same node with the mainnet contracts still in its registry.
    const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-eth-fresh-'));
    const other = await startServerProcess({ DATA_DIR: fresh, ETHEREUM_RPC_URL: node.url, ETHEREUM_CHAIN_ID: '31337' });
    try {
      const assets = (await (await fetch(`${other.url}/v2/assets`)).json()) as { data: Array<{ short: string; network: string }> };
      const onEthereum = assets.data.filter((a) => a.network === 'ethereum').map((a) => a.short);
      assert.deepEqual(onEthereum, ['ETH']);
      assert.ok(assets.data.some((a) => a.short === 'BTC'), 'the simulated networks are still served');
      const client = merchantApi({ api: `${other.url}/v2` }, readDemoMerchant(fresh)!);
      const refused = await client.post('/payment', { amount: '5', asset: USDT });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error.code, 'unsupported-asset');
    } finally {
      await other.stop();
      fs.rmSync(fresh, { recursive: true, force: true });
    }
  });

  test('a node on another chain id stops start-up with one line', async () => {
    await assert.rejects(startServerProcess({ ETHEREUM_RPC_URL: node.url, ETHEREUM_CHAIN_ID: '1' }), /ETHEREUM_RPC_URL: the node is on chain id 31337, but ETHEREUM_CHAIN_ID is 1/);
  });
});
