/**
 * Paying out litecoin from this installation's own wallet through a real Litecoin Core node in
 * regtest, driven through the service's processes, its HTTP API and its CLI: the wallet command, a
 * payout the node sees with the right amount that confirms to COMPLETE, a payout that waits with a
 * failureReason until the wallet's funds confirm, a broadcast lost to a crash (kill -9) that the
 * restarted service re-broadcasts as the same transaction, a refund of an overpaid payment paid out
 * through the same machinery (once, the fee out of its amount, COMPLETE when it confirms, and the
 * same transaction again after a kill -9), and a receive-only installation (no mnemonic) that
 * refuses payouts with 409 payouts-disabled.
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
import { type Litecoind, litecoindPath, startLitecoind } from '../helpers/litecoind.ts';
import { type RpcProxy, startRpcProxy } from '../helpers/rpc-proxy.ts';
import { type ServerProcess, startServerProcess, storeEnv } from '../helpers/server-process.ts';
import { merchantApi } from '../helpers/test-server.ts';
import { until } from '../helpers/until.ts';

const LTC = { short: 'LTC', network: 'litecoin' };
const installed = litecoindPath() !== undefined;
const skip = installed ? false : process.env.CI ? false : 'litecoind is not installed (apt-get install litecoind); CI runs this';

describe('litecoin payouts from the installation wallet (regtest)', { skip }, () => {
  let node: Litecoind;
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

  before(async () => {
    node = await startLitecoind();
    proxy = await startRpcProxy(node.rpcUrl);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-ltc-payouts-'));
    env = { DATA_DIR: dataDir, LITECOIN_RPC_URL: proxy.url, LITECOIN_CHAIN: 'regtest', ...(await storeEnv(dataDir)) };
    await start();
    // The merchant's balance, and the wallet's funds: one payment of 3 LTC, confirmed.
    const payment = (await api.post('/payment', { amount: '3', asset: LTC, invoice: 'fund' })).body;
    await node.rpc('sendtoaddress', payment.addressTo, 3);
    await node.mine(payment.confirmsNeeded);
    await until(async () => (await api.get(`/payment/${payment.id}`)).body.status, (s) => s === 'COMPLETE', 'the funding payment');
  });
  after(async () => {
    await server?.stop();
    await proxy?.close();
    await node?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const wallet = async (...args: string[]) => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'api/cli/cli.ts', 'wallet', ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    return stdout;
  };

  async function withdraw(amount: string) {
    const addressTo = await node.rpc<string>('getnewaddress', '', 'bech32');
    const created = await api.post('/withdrawal', { amount, asset: LTC, addressTo, invoice: `out-${++invoice}` });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    return { ...created.body, addressTo } as { id: string; addressTo: string; receivedAmount: string; fee: string };
  }

  const read = async (id: string) => (await api.get(`/withdrawal/${id}`)).body;

  /** What the node's transaction pays `address`, in LTC as the node writes it. */
  async function paidTo(txid: string, address: string): Promise<string> {
    const txn = await node.rpc<{ vout: Array<{ value: number; scriptPubKey: { addresses?: string[]; address?: string } }> }>('getrawtransaction', txid, true);
    const outputs = txn.vout.filter((o) => (o.scriptPubKey.address ?? o.scriptPubKey.addresses?.[0]) === address);
    return outputs.reduce((sum, o) => sum + o.value, 0).toFixed(8);
  }

  test('wallet --json: the payout address and what the wallet can send now', async () => {
    const shown = JSON.parse(await wallet('--network', 'litecoin', '--json'));
    assert.deepEqual(Object.keys(shown), ['network', 'chain', 'payoutAddress', 'spendable']);
    assert.equal(shown.network, 'litecoin');
    assert.equal(shown.chain, 'regtest');
    assert.match(shown.payoutAddress, /^rltc1q/);
    assert.equal((await node.rpc<{ isvalid: boolean }>('validateaddress', shown.payoutAddress)).isvalid, true);
    assert.deepEqual(shown.spendable, { LTC: '3.00000000' });
    assert.match(await wallet('--network', 'litecoin'), /Spendable: +3\.00000000 LTC/);
    await assert.rejects(wallet('--network', 'tron', '--json'), /tron is not one of them/);
  });

  test('approve signs and broadcasts: the recipient receives receivedAmount, then COMPLETE; a payout short of confirmed funds waits with a failureReason and goes once they confirm', async () => {
    const first = await withdraw('0.5');
    const approved = await api.post(`/withdrawal/${first.id}/approve`, {});
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    const txid: string = approved.body.txnId;
    assert.match(txid, /^[0-9a-f]{64}$/);
    assert.equal(approved.body.failureReason, undefined);
    assert.equal(await paidTo(txid, first.addressTo), first.receivedAmount);
    assert.ok((await node.rpc<string[]>('getrawmempool')).includes(txid), 'the node holds the payout');

    // The rest of the wallet is the first payout's change, unconfirmed: the second waits.
    const second = await withdraw('1');
    const waiting = (await api.post(`/withdrawal/${second.id}/approve`, {})).body;
    assert.equal(waiting.status, 'APPROVED');
    assert.equal(waiting.txnId, null);
    assert.match(waiting.failureReason, /cannot cover this withdrawal yet/);
    const balance = (await api.get('/balance')).body.data.find((b: any) => b.asset.short === 'LTC');
    assert.equal(balance.reserved, '1.00000000', 'the first payout left the reservation; the second is still reserved');

    await node.mine(1);
    const sent = await until(() => read(second.id), (w) => w.txnId !== null, 'the waiting payout');
    assert.equal(sent.failureReason, undefined);
    assert.equal(await paidTo(sent.txnId, second.addressTo), second.receivedAmount);

    await node.mine(6);
    for (const w of [first, second]) {
      const done = await until(() => read(w.id), (r) => r.status === 'COMPLETE', 'the payout confirming');
      assert.ok(done.confirmations >= 1);
      const received = await node.rpc<number>('getreceivedbyaddress', w.addressTo, 1);
      assert.equal(received.toFixed(8), w.receivedAmount);
    }
    // The wallet keeps the rest: 3 less what the recipients received, less the network fees it paid.
    const after = JSON.parse(await wallet('--network', 'litecoin', '--json'));
    const fees = 3 - Number(first.receivedAmount) - Number(second.receivedAmount) - Number(after.spendable.LTC);
    assert.ok(fees > 0 && fees < 0.001, `network fees of ${fees.toFixed(8)} LTC`);
  });

  test('kill -9 between signing and broadcasting: the restarted service broadcasts the same transaction, never a second one', async () => {
    const w = await withdraw('0.3');
    proxy.cut.add('sendrawtransaction');
    const from = proxy.calls.length;
    const approved = await api.post(`/withdrawal/${w.id}/approve`, {});
    assert.equal(approved.status, 200);
    assert.equal(approved.body.status, 'APPROVED');
    assert.equal(approved.body.txnId, null, 'the broadcast never reached the node');
    await server.stop('SIGKILL');
    proxy.cut.delete('sendrawtransaction');
    await start();
    const sent = await until(() => read(w.id), (r) => r.txnId !== null, 'the payout after restart');
    const broadcasts = proxy.calls.slice(from).filter((c) => c.method === 'sendrawtransaction').map((c) => c.params[0] as string);
    assert.ok(broadcasts.length >= 2, 'one lost broadcast, then the re-broadcast');
    assert.equal(new Set(broadcasts).size, 1, 'every broadcast carried the same signed transaction');
    assert.equal((await node.rpc<{ txid: string }>('decoderawtransaction', broadcasts[0])).txid, sent.txnId);
    assert.equal(await paidTo(sent.txnId, w.addressTo), w.receivedAmount);
    await node.mine(6);
    await until(() => read(w.id), (r) => r.status === 'COMPLETE', 'the re-broadcast payout confirming');
  });

  /** A payment of `amount` LTC paid `sent` LTC, confirmed: overpaid by the difference. */
  async function overpaid(amount: string, sent: number) {
    const payment = (await api.post('/payment', { amount, asset: LTC, invoice: `over-${++invoice}` })).body;
    await node.rpc('sendtoaddress', payment.addressTo, sent);
    await node.mine(payment.confirmsNeeded);
    const done = await until(async () => (await api.get(`/payment/${payment.id}`)).body, (p) => p.status === 'COMPLETE', 'the overpaid payment');
    assert.equal(done.exception, 'OVERPAID');
    return done as { id: string; overpaidAmount: string };
  }

  const readRefund = async (id: string) => (await api.get(`/refund/${id}`)).body;
  const sats = (ltc: string) => BigInt(ltc.replace('.', ''));

  /** The refund record as GET /v2/refund/:id returns it, for a refund created with its address. */
  function refundRecord(created: any, paymentId: string, amount: string, addressTo: string, status: string, txnId: string | null) {
    return {
      id: created.id,
      paymentId,
      amount,
      asset: created.asset,
      addressTo,
      destTag: null,
      status,
      claimUrl: created.claimUrl,
      withdrawalId: created.withdrawalId,
      txnId,
      reason: null,
      createdAt: created.createdAt,
      updatedAt: created.updatedAt,
    };
  }

  test('a refund of an overpaid payment, by id and address alone: its payout is signed and broadcast once, the recipient receives the amount less the network fee, then COMPLETE', async () => {
    const payment = await overpaid('0.2', 0.5);
    assert.equal(payment.overpaidAmount, '0.30000000');
    const addressTo = await node.rpc<string>('getnewaddress', '', 'bech32');
    const from = proxy.calls.length;
    const created = await api.post(`/payment/${payment.id}/refund`, { addressTo });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const txid: string = created.body.txnId;
    assert.match(txid, /^[0-9a-f]{64}$/);
    assert.deepEqual(created.body, refundRecord(created.body, payment.id, '0.30000000', addressTo, 'APPROVED', txid));
    assert.equal(created.body.asset.short, 'LTC');

    const broadcasts = proxy.calls.slice(from).filter((c) => c.method === 'sendrawtransaction').map((c) => c.params[0] as string);
    assert.equal(new Set(broadcasts).size, 1, 'one signed transaction was broadcast');
    assert.equal((await node.rpc<{ txid: string }>('decoderawtransaction', broadcasts[0])).txid, txid);
    assert.ok((await node.rpc<string[]>('getrawmempool')).includes(txid), 'the node holds the refund');

    // The fee comes out of the amount, as for a withdrawal: the recipient receives the rest.
    const withdrawal = await read(created.body.withdrawalId);
    assert.deepEqual(
      { amount: withdrawal.amount, txnId: withdrawal.txnId, addressTo: withdrawal.addressTo, invoice: withdrawal.invoice },
      { amount: '0.30000000', txnId: txid, addressTo, invoice: `refund:${created.body.id}` },
    );
    assert.equal(sats(withdrawal.receivedAmount), sats('0.30000000') - sats(withdrawal.fee));
    assert.equal(await paidTo(txid, addressTo), withdrawal.receivedAmount);

    await node.mine(6);
    const done = await until(() => readRefund(created.body.id), (r) => r.status === 'COMPLETE', 'the refund confirming');
    assert.deepEqual(done, { ...refundRecord(created.body, payment.id, '0.30000000', addressTo, 'COMPLETE', txid), updatedAt: done.updatedAt });
    assert.equal((await node.rpc<number>('getreceivedbyaddress', addressTo, 1)).toFixed(8), withdrawal.receivedAmount);
    const broadcastsAfter = proxy.calls.slice(from).filter((c) => c.method === 'sendrawtransaction').map((c) => c.params[0] as string);
    assert.deepEqual([...new Set(broadcastsAfter)], [broadcasts[0]], 'never a second transaction');
    assert.equal((await api.get(`/payment/${payment.id}`)).body.refundableAmount, '0.20000000');
  });

  test('kill -9 between signing and broadcasting a refund: the restarted service broadcasts the same transaction, never a second one', async () => {
    const payment = await overpaid('0.1', 0.35);
    const addressTo = await node.rpc<string>('getnewaddress', '', 'bech32');
    proxy.cut.add('sendrawtransaction');
    const from = proxy.calls.length;
    const created = await api.post(`/payment/${payment.id}/refund`, { addressTo });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.deepEqual(created.body, refundRecord(created.body, payment.id, '0.25000000', addressTo, 'APPROVED', null), 'the broadcast never reached the node');
    await server.stop('SIGKILL');
    proxy.cut.delete('sendrawtransaction');
    await start();
    const sent = await until(() => readRefund(created.body.id), (r) => r.txnId !== null, 'the refund after restart');
    const broadcasts = proxy.calls.slice(from).filter((c) => c.method === 'sendrawtransaction').map((c) => c.params[0] as string);
    assert.ok(broadcasts.length >= 2, 'one lost broadcast, then the re-broadcast');
    assert.equal(new Set(broadcasts).size, 1, 'every broadcast carried the same signed transaction');
    assert.equal((await node.rpc<{ txid: string }>('decoderawtransaction', broadcasts[0])).txid, sent.txnId);
    const withdrawal = await read(created.body.withdrawalId);
    assert.equal(await paidTo(sent.txnId, addressTo), withdrawal.receivedAmount);
    await node.mine(6);
    const done = await until(() => readRefund(created.body.id), (r) => r.status === 'COMPLETE', 'the re-broadcast refund confirming');
    // The restarted service has another port: its links name it, the refund is otherwise the same.
    const moved = (url: string) => url.replace(/^http:\/\/[^/]+/, server.url);
    assert.deepEqual(done, {
      ...refundRecord(created.body, payment.id, '0.25000000', addressTo, 'COMPLETE', sent.txnId),
      asset: { ...created.body.asset, logoUrl: moved(created.body.asset.logoUrl) },
      claimUrl: moved(created.body.claimUrl),
      updatedAt: done.updatedAt,
    });
    assert.equal((await node.rpc<number>('getreceivedbyaddress', addressTo, 1)).toFixed(8), withdrawal.receivedAmount);
  });

  test('without the mnemonic the installation still receives, and approve is 409 payouts-disabled saying why', async () => {
    await server.stop();
    const file = path.join(dataDir, 'wallet-mnemonic.txt');
    const kept = `${file}.offline`;
    fs.renameSync(file, kept);
    try {
      await start();
      const w = await withdraw('0.2');
      const refused = await api.post(`/withdrawal/${w.id}/approve`, {});
      assert.equal(refused.status, 409);
      assert.equal(refused.body.error.code, 'payouts-disabled');
      assert.match(refused.body.error.message, /no wallet mnemonic at .*wallet-mnemonic\.txt \(WALLET_MNEMONIC_FILE\)/);
      assert.equal((await read(w.id)).status, 'OPEN');
      const payment = (await api.post('/payment', { amount: '0.1', asset: LTC })).body;
      await node.rpc('sendtoaddress', payment.addressTo, 0.1);
      await until(async () => (await api.get(`/payment/${payment.id}`)).body.status, (s) => s === 'CONFIRMING', 'receiving without the mnemonic');
    } finally {
      await server.stop();
      fs.renameSync(kept, file);
    }
  });
});
