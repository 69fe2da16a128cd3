/**
 * Paying out ETH and an ERC-20 from the installation's payout address through a real Ethereum node
 * (anvil), driven through the service's process, HTTP API and CLI: the wallet command, ETH and token
 * payouts that the recipient's on-chain balance shows, concurrent approvals on consecutive nonces,
 * a payout waiting with a failureReason until the payout address is funded, a broadcast lost to a
 * crash (kill -9) that the restarted service re-broadcasts as the same transaction, a payout stuck
 * below the base fee replaced at a higher fee on its nonce, and sweeps (on
 * demand with the CLI, and by the service above its thresholds).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { Transaction } from 'micro-eth-signer';
import { readDemoMerchant } from '../../api/merchants/demo-merchant.ts';
import { ROOT } from '../../scripts/compiled-server.ts';
import { type Anvil, startAnvil } from '../helpers/anvil.ts';
import { type RpcProxy, startRpcProxy } from '../helpers/rpc-proxy.ts';
import { type ServerProcess, startServerProcess, storeEnv } from '../helpers/server-process.ts';
import { merchantApi } from '../helpers/test-server.ts';
import { until } from '../helpers/until.ts';

const ETH = { short: 'ETH', network: 'ethereum' };
const USDT = { short: 'USDT', network: 'ethereum' };
// On a token whose owner can block an address (BlockableToken6), as USDC's can.
const USDC = { short: 'USDC', network: 'ethereum' };

/** "0.1" ETH (or a 6-decimal token) as whole units. */
const units = (amount: string, decimals: number) => {
  const [whole = '0', fraction = ''] = amount.split('.');
  return BigInt(whole + fraction.padEnd(decimals, '0').slice(0, decimals));
};

describe('ethereum payouts from the payout address (anvil)', () => {
  let node: Anvil;
  let proxy: RpcProxy;
  let server: ServerProcess;
  let dataDir: string;
  let env: Record<string, string>;
  let api: ReturnType<typeof merchantApi>;
  let usdt: string;
  let usdc: string;
  let payer: string;
  let payoutAddress: string;
  let invoice = 0;

  const cli = async (...args: string[]) => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'api/cli/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    return stdout;
  };
  const start = async () => {
    server = await startServerProcess(env);
    api = merchantApi({ api: `${server.url}/v2` }, readDemoMerchant(dataDir)!);
  };
  const read = async (id: string) => (await api.get(`/withdrawal/${id}`)).body;

  async function pay(amount: string, asset: typeof ETH) {
    const payment = (await api.post('/payment', { amount, asset, invoice: `in-${++invoice}` })).body;
    if (asset.short === 'ETH') await node.send({ from: payer, to: payment.addressTo, value: units(amount, 18) });
    else await node.transferToken(asset.short === 'USDC' ? usdc : usdt, payer, payment.addressTo, units(amount, 6));
    await node.mine(payment.confirmsNeeded);
    await until(async () => (await api.get(`/payment/${payment.id}`)).body.status, (s) => s === 'COMPLETE', `paying ${amount} ${asset.short}`);
  }

  async function withdraw(amount: string, asset: typeof ETH, addressTo = node.accounts[7]!) {
    const created = await api.post('/withdrawal', { amount, asset, addressTo, invoice: `out-${++invoice}` });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    return created.body as { id: string; receivedAmount: string };
  }

  before(async () => {
    node = await startAnvil();
    payer = node.accounts[1]!;
    usdt = await node.deployToken(payer, 'USDT', 6, 1_000_000n * 10n ** 6n);
    usdc = await node.deployToken(payer, 'USDC', 6, 1_000_000n * 10n ** 6n, { blockable: true });
    proxy = await startRpcProxy(node.url);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-eth-payouts-'));
    env = { DATA_DIR: dataDir, ETHEREUM_RPC_URL: proxy.url, ETHEREUM_CHAIN_ID: '31337', ...(await storeEnv(dataDir)) };
    await cli('asset', 'set-contract', '--short', 'USDT', '--network', 'ethereum', '--contract', usdt);
    await cli('asset', 'set-contract', '--short', 'USDC', '--network', 'ethereum', '--contract', usdc);
    await start();
    // The merchant's balance: payments received and confirmed.
    await pay('2', ETH);
    await pay('100', USDT);
  });
  after(async () => {
    await server?.stop();
    await proxy?.close();
    await node?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('wallet --json names the payout address and what it holds; funded, it shows the funds', async () => {
    let wallet = JSON.parse(await cli('wallet', '--network', 'ethereum', '--json'));
    assert.deepEqual(Object.keys(wallet), ['network', 'chain', 'payoutAddress', 'spendable']);
    assert.equal(wallet.chain, '31337');
    assert.match(wallet.payoutAddress, /^0x[0-9a-fA-F]{40}$/);
    assert.deepEqual(wallet.spendable, { ETH: '0.00000000', USDT: '0.000000', USDC: '0.000000' });
    payoutAddress = wallet.payoutAddress;
    // The operator funds it (sweeps are the way payments get there).
    await node.send({ from: payer, to: payoutAddress, value: units('0.5', 18) });
    await node.transferToken(usdt, payer, payoutAddress, units('50', 6));
    wallet = JSON.parse(await cli('wallet', '--network', 'ethereum', '--json'));
    assert.deepEqual(wallet.spendable, { ETH: '0.50000000', USDT: '50.000000', USDC: '0.000000' });
  });

  test('a payout the payout address cannot cover waits with a failureReason, and goes once it is funded', async () => {
    const w = await withdraw('1', ETH);
    const waiting = (await api.post(`/withdrawal/${w.id}/approve`, {})).body;
    assert.equal(waiting.status, 'APPROVED');
    assert.equal(waiting.txnId, null);
    assert.match(waiting.failureReason, /holds .* ETH, less than the .* ETH this payout needs with its gas/);
    await node.send({ from: payer, to: payoutAddress, value: units('2', 18) });
    const sent = await until(() => read(w.id), (r) => r.txnId !== null, 'the funded payout');
    assert.equal(sent.failureReason, undefined);
  });

  /** Waits until the service's follower has read every block the node has (and applied their confirmations). */
  const atTip = async () => {
    const tip = Number(BigInt(await node.rpc<string>('eth_blockNumber')));
    const height = async () => ((await (await fetch(`${server.url}/health`)).json()) as { networks: { ethereum: { height: number } } }).networks.ethereum.height;
    await until(height, (h) => h === tip, 'the follower at the tip');
  };

  const etherOf = async (address: string) => BigInt(await node.rpc<string>('eth_getBalance', address, 'latest'));

  test('sweep --network ethereum moves the payment addresses\' ETH, then (after sending their gas) their tokens, to the payout address', async () => {
    const before = JSON.parse(await cli('wallet', '--network', 'ethereum', '--json')).spendable;
    const first = JSON.parse(await cli('sweep', '--network', 'ethereum', '--json'));
    assert.equal(first.payoutAddress, payoutAddress);
    assert.deepEqual(first.swept.map((s: any) => [s.asset, s.amount.slice(0, 4)]), [['ETH', '1.99']]);
    assert.deepEqual(first.toppedUp.map((t: any) => t.asset), ['USDT'], 'the USDT address first gets its gas');
    const second = JSON.parse(await cli('sweep', '--network', 'ethereum', '--json'));
    assert.deepEqual(second.swept.map((s: any) => [s.asset, s.amount]), [['USDT', '100.000000']]);
    assert.deepEqual(second.toppedUp, []);
    const after = JSON.parse(await cli('wallet', '--network', 'ethereum', '--json')).spendable;
    assert.equal(Number(after.USDT) - Number(before.USDT), 100);
    const gained = Number(after.ETH) - Number(before.ETH);
    assert.ok(gained > 1.99 && gained < 2, `ETH swept in, less the gas of the sweep and of the top-up: ${gained}`);
    const third = JSON.parse(await cli('sweep', '--network', 'ethereum', '--json'));
    assert.deepEqual([third.swept, third.toppedUp], [[], []], 'nothing left worth its gas');
  });

  test('the service sweeps by itself what reaches the thresholds, and leaves the rest', async () => {
    await server.stop();
    env = { ...env, ETHEREUM_SWEEP_SECONDS: '1', ETHEREUM_SWEEP_MIN_ETH: '0.5' };
    await start();
    const big = (await api.post('/payment', { amount: '1', asset: ETH, invoice: `in-${++invoice}` })).body;
    const small = (await api.post('/payment', { amount: '0.1', asset: ETH, invoice: `in-${++invoice}` })).body;
    await node.send({ from: payer, to: big.addressTo, value: units('1', 18) });
    await node.send({ from: payer, to: small.addressTo, value: units('0.1', 18) });
    await until(() => etherOf(big.addressTo), (wei) => wei < units('0.001', 18), 'the 1 ETH address swept');
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    assert.equal(await etherOf(small.addressTo), units('0.1', 18), 'below the threshold: left for later');
  });

  test('ETH and token payouts: the recipient receives receivedAmount on chain, then COMPLETE', async () => {
    const recipient = node.accounts[8]!;
    const etherBefore = BigInt(await node.rpc<string>('eth_getBalance', recipient, 'latest'));
    const ether = await withdraw('0.1', ETH, recipient);
    const sentEther = (await api.post(`/withdrawal/${ether.id}/approve`, {})).body;
    assert.match(sentEther.txnId, /^0x[0-9a-f]{64}$/);
    assert.equal(sentEther.addressFrom, payoutAddress);
    const tether = await withdraw('20', USDT, recipient);
    const sentTether = (await api.post(`/withdrawal/${tether.id}/approve`, {})).body;
    assert.match(sentTether.txnId, /^0x[0-9a-f]{64}$/);
    await node.mine(1);
    assert.equal(BigInt(await node.rpc<string>('eth_getBalance', recipient, 'latest')) - etherBefore, units(ether.receivedAmount, 18));
    assert.equal(await node.balanceOf(usdt, recipient), units(tether.receivedAmount, 6));
    await node.mine(12);
    for (const w of [ether, tether]) await until(() => read(w.id), (r) => r.status === 'COMPLETE', 'a payout confirming');
  });

  test('concurrent approvals go out on consecutive nonces, every one mined', async () => {
    const created = [];
    for (let i = 0; i < 4; i++) created.push(await withdraw('0.01', ETH));
    const approved = await Promise.all(created.map((w) => api.post(`/withdrawal/${w.id}/approve`, {})));
    const hashes = approved.map((r) => r.body.txnId as string);
    assert.equal(new Set(hashes).size, 4);
    await node.mine(1);
    const nonces = [];
    for (const hash of hashes) {
      const receipt = await node.rpc<{ status: string }>('eth_getTransactionReceipt', hash);
      assert.equal(receipt.status, '0x1');
      nonces.push(Number(BigInt((await node.rpc<{ nonce: string }>('eth_getTransactionByHash', hash)).nonce)));
    }
    nonces.sort((a, b) => a - b);
    assert.deepEqual(nonces, [nonces[0], nonces[0]! + 1, nonces[0]! + 2, nonces[0]! + 3]);
  });

  test('a payout stuck below the base fee is replaced at a higher fee on the same nonce, and completes as its replacement', async () => {
    await server.stop();
    env = { ...env, ETHEREUM_STUCK_SECONDS: '2' };
    await start();
    await node.rpc('evm_setAutomine', false);
    try {
      const w = await withdraw('0.03', ETH);
      const approved = (await api.post(`/withdrawal/${w.id}/approve`, {})).body;
      // Signed at once, or, should the node be slow to answer just after the restart (a loaded CI
      // machine), at the payout job's next try: this test is about what happens once it is out.
      const first = (approved.txnId ?? (await until(() => read(w.id), (r) => r.txnId !== null, `the first payout (approve answered ${JSON.stringify(approved)})`)).txnId) as string;
      assert.match(first, /^0x[0-9a-f]{64}$/, JSON.stringify(approved));
      const original = await node.rpc<{ nonce: string; maxFeePerGas: string }>('eth_getTransactionByHash', first);
      // The base fee jumps above what the payout offers: it cannot be mined.
      await node.rpc('anvil_setNextBlockBaseFeePerGas', `0x${(BigInt(original.maxFeePerGas) * 50n).toString(16)}`);
      await node.mine(1);
      assert.equal(await node.rpc('eth_getTransactionReceipt', first), null, 'stuck');
      const replaced = await until(() => read(w.id), (r) => r.txnId !== first, 'the replacement', 30_000);
      const replacement = await node.rpc<{ nonce: string; maxFeePerGas: string }>('eth_getTransactionByHash', replaced.txnId);
      assert.equal(replacement.nonce, original.nonce, 'the same nonce');
      assert.ok(BigInt(replacement.maxFeePerGas) > BigInt(original.maxFeePerGas) * 40n, 'a fee the new base fee allows');
      await node.mine(1);
      assert.equal((await node.rpc<{ status: string }>('eth_getTransactionReceipt', replaced.txnId)).status, '0x1');
      assert.equal(await node.rpc('eth_getTransactionReceipt', first), null, 'the original never mined');
      await node.mine(12);
      const done = await until(() => read(w.id), (r) => r.status === 'COMPLETE', 'the replacement confirming');
      assert.equal(done.txnId, replaced.txnId);
    } finally {
      await node.rpc('evm_setAutomine', true);
    }
  });

  test('a token payout that reverts once mined never completes: once the revert is final it is signed again on a new nonce, and nothing is signed while the contract would refuse it', async () => {
    await server.stop();
    env = { ...env, ETHEREUM_STUCK_SECONDS: '600' };
    await start();
    await pay('20', USDC);
    await node.transferToken(usdc, payer, payoutAddress, units('50', 6));
    const recipient = node.accounts[6]!;
    const before = await node.balanceOf(usdc, recipient);
    const w = await withdraw('5', USDC, recipient);
    let reverted = '';
    await node.rpc('evm_setAutomine', false);
    try {
      reverted = (await api.post(`/withdrawal/${w.id}/approve`, {})).body.txnId;
      assert.match(reverted, /^0x[0-9a-f]{64}$/, 'the node estimated it as fine, so it was signed and sent');
      // The token's owner blocks the recipient in the same block, ahead of the payout (a higher tip).
      await node.setBlocked(usdc, payer, recipient, true, 100n * 10n ** 9n);
      await node.mine(1);
    } finally {
      await node.rpc('evm_setAutomine', true);
    }
    assert.equal((await node.rpc<{ status: string }>('eth_getTransactionReceipt', reverted)).status, '0x0', 'mined, and reverted');
    // Past the network's confirmations but not final: a reorganisation could still mine it again (and
    // this time succeed), so no second transaction yet, and the reverted one counts for nothing.
    await node.mine(13);
    await atTip();
    const notFinal = await read(w.id);
    assert.deepEqual([notFinal.status, notFinal.txnId, notFinal.confirmations], ['APPROVED', reverted, 0]);
    // Final (anvil's finalized block is 64 below its tip): released, to be signed again.
    await node.mine(64);
    const released = await until(() => read(w.id), (r) => r.txnId === null, 'the reverted payout released');
    assert.equal(released.status, 'APPROVED', 'never COMPLETE on a transaction that moved nothing');
    assert.equal(released.confirmations, 0);
    assert.match(released.failureReason, new RegExp(`${reverted} was mined but reverted|refuses this payout`));
    // Still blocked: the node's estimate fails, so nothing is signed (no gas spent on a known failure).
    const refused = await until(() => read(w.id), (r) => /refuses this payout/.test(r.failureReason ?? ''), 'the refusal');
    assert.match(refused.failureReason, /^The USDC contract refuses this payout: the node expects it to fail \(.*\)\. Nothing was signed/);
    // The pass that gave that reason signed nothing: no nonce was taken (pending transactions included).
    const nonce = await node.rpc<string>('eth_getTransactionCount', payoutAddress, 'pending');
    assert.equal(nonce, await node.rpc<string>('eth_getTransactionCount', payoutAddress, 'latest'), 'no transaction while it would fail');

    await node.setBlocked(usdc, payer, recipient, false);
    const resent = await until(() => read(w.id), (r) => r.txnId !== null, 'the payout signed again', 30_000);
    assert.notEqual(resent.txnId, reverted);
    assert.equal((await node.rpc<{ nonce: string }>('eth_getTransactionByHash', resent.txnId)).nonce, nonce, 'the next nonce');
    await node.mine(13);
    const done = await until(() => read(w.id), (r) => r.status === 'COMPLETE', 'the new payout confirming');
    assert.equal(done.txnId, resent.txnId);
    assert.equal(done.failureReason, undefined);
    assert.equal((await node.balanceOf(usdc, recipient)) - before, units(w.receivedAmount, 6), 'received once');
    // The merchant's balance was debited once, by the one withdrawal.
    const balance = (await api.get('/balance')).body.data.find((b: { asset: { short: string; network: string } }) => b.asset.short === 'USDC' && b.asset.network === 'ethereum');
    assert.equal(balance.reserved, '0.000000');
  });

  test('the operator cancels an approved withdrawal that cannot go out (never sent, or reverted) and its amount returns; not while a payout is signed', async () => {
    await pay('30', USDC);
    const recipient = node.accounts[5]!;
    const usdcBalance = async () => {
      const row = (await api.get('/balance')).body.data.find((b: { asset: { short: string; network: string } }) => b.asset.short === 'USDC' && b.asset.network === 'ethereum');
      return { available: Number(row.available), reserved: Number(row.reserved) };
    };
    const cancel = (id: string) => cli('withdrawal', 'cancel', '--id', id, '--json');
    await node.setBlocked(usdc, payer, recipient, true);

    // Never sent: the node refuses the transfer, so it waits with its amount reserved.
    const never = await withdraw('5', USDC, recipient);
    await api.post(`/withdrawal/${never.id}/approve`, {});
    await until(() => read(never.id), (r) => /refuses this payout/.test(r.failureReason ?? ''), 'the refusal');
    let before = await usdcBalance();
    const first = JSON.parse(await cancel(never.id));
    assert.deepEqual([first.id, first.status], [never.id, 'CANCELLED']);
    let after = await usdcBalance();
    assert.deepEqual([after.available - before.available, after.reserved - before.reserved], [5, -5], 'the reservation released');

    // Reverted once mined and released: the amount left the ledger with that broadcast, and returns.
    await node.setBlocked(usdc, payer, recipient, false);
    const reverted = await withdraw('5', USDC, recipient);
    await node.rpc('evm_setAutomine', false);
    try {
      assert.match((await api.post(`/withdrawal/${reverted.id}/approve`, {})).body.txnId, /^0x/);
      await node.setBlocked(usdc, payer, recipient, true, 100n * 10n ** 9n);
      await node.mine(1);
    } finally {
      await node.rpc('evm_setAutomine', true);
    }
    await node.mine(70);
    await until(() => read(reverted.id), (r) => r.txnId === null && /refuses this payout/.test(r.failureReason ?? ''), 'released, then refused');
    before = await usdcBalance();
    assert.equal(JSON.parse(await cancel(reverted.id)).status, 'CANCELLED');
    after = await usdcBalance();
    assert.deepEqual([after.available - before.available, after.reserved - before.reserved], [5, 0]);

    // A signed payout may still reach the network: no cancel while it stands.
    await node.setBlocked(usdc, payer, recipient, false);
    const inFlight = await withdraw('5', USDC, recipient);
    await node.rpc('evm_setAutomine', false);
    try {
      const txnId = (await api.post(`/withdrawal/${inFlight.id}/approve`, {})).body.txnId as string;
      await assert.rejects(cancel(inFlight.id), (e: { code: number; stderr: string }) => {
        assert.equal(e.code, 1);
        assert.equal(e.stderr, `A payout transaction (${txnId}) is signed for this withdrawal and may reach the network; it cannot be cancelled while it stands.\n`);
        return true;
      });
      assert.equal((await read(inFlight.id)).status, 'APPROVED', 'nothing changed');
    } finally {
      await node.rpc('evm_setAutomine', true);
    }
    await node.mine(4);
    await until(() => read(inFlight.id), (r) => r.status === 'COMPLETE', 'the payout in flight completing');
    await assert.rejects(cancel(inFlight.id), /The withdrawal is COMPLETE; this command cancels an APPROVED one/);
  });

  test('kill -9 between signing and broadcasting: the same transaction is broadcast after restart', async () => {
    const w = await withdraw('0.02', ETH);
    proxy.cut.add('eth_sendRawTransaction');
    const from = proxy.calls.length;
    const approved = await api.post(`/withdrawal/${w.id}/approve`, {});
    assert.equal(approved.body.txnId, null);
    await server.stop('SIGKILL');
    proxy.cut.delete('eth_sendRawTransaction');
    await start();
    const sent = await until(() => read(w.id), (r) => r.txnId !== null, 'the payout after restart');
    const raws = proxy.calls.slice(from).filter((c) => c.method === 'eth_sendRawTransaction').map((c) => c.params[0] as string);
    assert.ok(raws.length >= 2);
    assert.equal(new Set(raws).size, 1, 'one signed transaction, broadcast again');
    assert.equal(Transaction.fromHex(raws[0]!).hash, sent.txnId);
    await node.mine(13);
    await until(() => read(w.id), (r) => r.status === 'COMPLETE', 'the re-broadcast payout confirming');
  });
});
