/** POST /v2/withdrawal, GET /v2/withdrawal/:id, approve, cancel and GET /v2/balance over HTTP. */
import Decimal from 'decimal.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { fromDomainError } from '../../api/http/api-error.ts';
import { DomainError } from '../../api/shared/errors.ts';
import type { NetworkAdapter } from '../../api/networks/network-adapter.ts';
import { silentLogger } from '../../api/shared/logger.ts';
import { createWebhookOutbox } from '../../api/webhooks/webhook-outbox.ts';
import { CancelRefused, createWithdrawalCancel } from '../../api/withdrawals/withdrawal-cancel.ts';
import { createPayoutSender } from '../../api/withdrawals/payout-sender.ts';
import { createWithdrawalService } from '../../api/withdrawals/withdrawal.service.ts';
import { createWithdrawalTransitions } from '../../api/withdrawals/withdrawal-transitions.ts';
import { testClusterUrl } from '../helpers/test-database.ts';
import { logoUrl, merchantApi, postJson, startTestServer, type TestMerchant, type TestServer } from '../helpers/test-server.ts';

const NOW = Date.parse('2026-11-21T10:15:30.123Z');
const BTC = { short: 'BTC', network: 'bitcoin' };
const ETH = { short: 'ETH', network: 'ethereum' };
const XRP = { short: 'XRP', network: 'ripple' };
const BTC_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const ETH_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const XRP_ADDRESS = 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let server: TestServer;
let shop: TestMerchant;
let api: ReturnType<typeof merchantApi>;
let invoiceNumber = 0;
const nextInvoice = () => `payout-${++invoiceNumber}`;

/** Credits the merchant's balance through a paid, confirmed payment, as a payer would. */
async function fund(client: ReturnType<typeof merchantApi>, asset: { short: string; network: string }, amount: string, confirmations: number) {
  const payment = await client.post('/payment', { amount, asset });
  assert.equal(payment.status, 200);
  const sent = await postJson(`${server.api}/dev/transactions`, {
    address: payment.body.addressTo,
    destTag: payment.body.destTag ?? undefined,
    amount,
    asset,
    confirmations,
  });
  assert.equal(sent.status, 200);
}

async function balanceOf(client: ReturnType<typeof merchantApi>, short: string, network: string) {
  const { body } = await client.get('/balance');
  const row = body.data.find((b: { asset: { short: string; network: string } }) => b.asset.short === short && b.asset.network === network);
  return row && { available: row.available, reserved: row.reserved };
}

before(async () => {
  server = await startTestServer();
  server.clock.set(NOW);
  shop = await server.createMerchant('Withdrawals Shop');
  api = merchantApi(server, shop);
  await fund(api, ETH, '10', 3);
  await fund(api, BTC, '1', 2);
  await fund(api, XRP, '500', 1);
});
after(() => server.close());

describe('balance', () => {
  test('is an empty list for a merchant that never received anything', async () => {
    const fresh = merchantApi(server, await server.createMerchant('Fresh Shop'));
    const response = await fresh.get('/balance');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { data: [] });
  });

  test('lists what confirmed payments credited, per asset, with the full asset object', async () => {
    const fresh = merchantApi(server, await server.createMerchant('Credited Shop'));
    await fund(fresh, { short: 'USDT', network: 'tron' }, '12.5', 3);
    const response = await fresh.get('/balance');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, {
      data: [
        {
          asset: { short: 'USDT', network: 'tron', name: 'Tether USD (TRC-20)', logoUrl: logoUrl(server, 'usdt'), decimals: 6 },
          available: '12.500000',
          reserved: '0.000000',
        },
      ],
    });
  });
});

describe('creating a withdrawal', () => {
  test('answers 200 with the OPEN record and reserves the amount', async () => {
    const before = await balanceOf(api, 'ETH', 'ethereum');
    const invoice = nextInvoice();
    const response = await api.post('/withdrawal', {
      amount: '1.5',
      asset: ETH,
      addressTo: ETH_ADDRESS,
      invoice,
      customer: { id: 7, name: 'Carol', email: 'carol@example.com' },
    });
    assert.equal(response.status, 200);
    assert.match(response.body.id, UUID_V4);
    assert.deepEqual(response.body, {
      id: response.body.id,
      txnId: null,
      amount: '1.50000000',
      receivedAmount: '1.49950000',
      asset: { short: 'ETH', network: 'ethereum', name: 'Ether', logoUrl: logoUrl(server, 'eth'), decimals: 8 },
      addressTo: ETH_ADDRESS,
      addressFrom: null,
      destTag: null,
      status: 'OPEN',
      customer: { id: 7, name: 'Carol', email: 'carol@example.com' },
      merchant: shop.merchant,
      invoice,
      createdAt: '2026-11-21T10:15:30.123Z',
      updatedAt: '2026-11-21T10:15:30.123Z',
      fee: '0.00050000',
      confirmations: 0,
    });
    assert.deepEqual(before, { available: '10.00000000', reserved: '0.00000000' });
    assert.deepEqual(await balanceOf(api, 'ETH', 'ethereum'), { available: '8.50000000', reserved: '1.50000000' });
    const fetched = await api.get(`/withdrawal/${response.body.id}`);
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.body, response.body);
  });

  test('answers on create exactly what later fetches answer, an empty customer being no customer', async () => {
    for (const customer of [{}, null, { email: 'dan@example.com', id: 0 }]) {
      const created = await api.post('/withdrawal', { amount: '0.01', asset: ETH, addressTo: ETH_ADDRESS, invoice: nextInvoice(), customer });
      assert.equal(created.status, 200);
      assert.deepEqual(created.body.customer, customer && Object.keys(customer).length > 0 ? customer : null);
      assert.deepEqual((await api.get(`/withdrawal/${created.body.id}`)).body, created.body);
      assert.deepEqual((await api.get(`/withdrawal?ids=${created.body.id}`)).body.data, [created.body]);
    }
  });

  test('carries the destination tag an XRP withdrawal needs', async () => {
    const response = await api.post('/withdrawal', { amount: '20', asset: XRP, addressTo: XRP_ADDRESS, destTag: '12345', invoice: nextInvoice() });
    assert.equal(response.status, 200);
    assert.equal(response.body.destTag, '12345');
    assert.equal(response.body.amount, '20.000000');
    assert.equal(response.body.receivedAmount, '19.999988');
    assert.equal(response.body.customer, null);
  });

  test('withdraws the whole available balance', async () => {
    const fresh = merchantApi(server, await server.createMerchant('All Out Shop'));
    await fund(fresh, BTC, '0.5', 2);
    const response = await fresh.post('/withdrawal', { amount: '0.5', asset: BTC, addressTo: BTC_ADDRESS, invoice: 'all' });
    assert.equal(response.status, 200);
    assert.deepEqual(await balanceOf(fresh, 'BTC', 'bitcoin'), { available: '0.00000000', reserved: '0.50000000' });
  });

  test('refuses more than the available balance with 422 and writes nothing', async () => {
    const before = await balanceOf(api, 'BTC', 'bitcoin');
    const invoice = nextInvoice();
    const response = await api.post('/withdrawal', { amount: '1.00000001', asset: BTC, addressTo: BTC_ADDRESS, invoice });
    assert.equal(response.status, 422);
    assert.deepEqual(response.body, {
      error: { code: 'insufficient-funds', message: 'The available balance is 1.00000000 BTC, less than the 1.00000001 BTC needed.' },
    });
    assert.deepEqual(await balanceOf(api, 'BTC', 'bitcoin'), before);
    const listed = await api.get(`/withdrawal?invoices=${invoice}`);
    assert.equal(listed.body.total, 0);
    const retried = await api.post('/withdrawal', { amount: '0.1', asset: BTC, addressTo: BTC_ADDRESS, invoice });
    assert.equal(retried.status, 200, 'the invoice of a refused withdrawal stays free');
  });

  test('refuses a withdrawal of an asset the merchant never received', async () => {
    const response = await api.post('/withdrawal', { amount: '5', asset: { short: 'TRX', network: 'tron' }, addressTo: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', invoice: nextInvoice() });
    assert.equal(response.status, 422);
    assert.deepEqual(response.body, { error: { code: 'insufficient-funds', message: 'The available balance is 0.000000 TRX, less than the 5.000000 TRX needed.' } });
  });

  test('refuses a repeated invoice with 409 duplicate-invoice, even after the first was cancelled', async () => {
    const invoice = nextInvoice();
    const first = await api.post('/withdrawal', { amount: '0.01', asset: ETH, addressTo: ETH_ADDRESS, invoice });
    assert.equal(first.status, 200);
    const expected = {
      error: { code: 'duplicate-invoice', message: `A withdrawal with invoice "${invoice}" already exists; invoices are unique per merchant.` },
    };
    const repeat = await api.post('/withdrawal', { amount: '0.01', asset: ETH, addressTo: ETH_ADDRESS, invoice });
    assert.equal(repeat.status, 409);
    assert.deepEqual(repeat.body, expected);
    await api.post(`/withdrawal/${first.body.id}/cancel`, {});
    const afterCancel = await api.post('/withdrawal', { amount: '0.02', asset: ETH, addressTo: ETH_ADDRESS, invoice });
    assert.equal(afterCancel.status, 409);
    assert.deepEqual(afterCancel.body, expected);
  });

  test('lets two merchants use the same invoice', async () => {
    const other = merchantApi(server, await server.createMerchant('Other Shop'));
    await fund(other, ETH, '1', 3);
    const invoice = nextInvoice();
    assert.equal((await api.post('/withdrawal', { amount: '0.01', asset: ETH, addressTo: ETH_ADDRESS, invoice })).status, 200);
    assert.equal((await other.post('/withdrawal', { amount: '0.01', asset: ETH, addressTo: ETH_ADDRESS, invoice })).status, 200);
  });
});

describe('refusing a bad withdrawal', () => {
  async function expectInvalid(body: unknown, details: Array<{ path: string; message: string }>) {
    const response = await api.post('/withdrawal', body);
    assert.equal(response.status, 400);
    const fields = details.map((d) => d.path).join(', ');
    assert.deepEqual(response.body, { error: { code: 'validation-failed', message: `The request has invalid fields: ${fields}.`, details } });
  }

  test('requires amount, asset, addressTo and invoice, all listed at once', async () => {
    await expectInvalid({}, [
      { path: 'amount', message: 'is required' },
      { path: 'asset', message: 'is required' },
      { path: 'addressTo', message: 'is required' },
      { path: 'invoice', message: 'is required' },
    ]);
  });

  test('requires a destination tag on XRP', async () => {
    await expectInvalid({ amount: '1', asset: XRP, addressTo: XRP_ADDRESS, invoice: nextInvoice() }, [
      { path: 'destTag', message: 'is required on ripple: exchanges and shared wallets route by tag' },
    ]);
  });

  test('refuses a destination tag on a network without tags', async () => {
    await expectInvalid({ amount: '0.1', asset: BTC, addressTo: BTC_ADDRESS, destTag: '5', invoice: nextInvoice() }, [
      { path: 'destTag', message: 'must not be set: bitcoin has no destination tags' },
    ]);
  });

  test('refuses a destination tag that is not a 32-bit whole number', async () => {
    for (const destTag of ['4294967296', '-1', 'abc']) {
      await expectInvalid({ amount: '1', asset: XRP, addressTo: XRP_ADDRESS, destTag, invoice: nextInvoice() }, [
        { path: 'destTag', message: 'must be a whole number from 0 to 4294967295, in a string' },
      ]);
    }
  });

  test('refuses an amount that the network fee would eat', async () => {
    await expectInvalid({ amount: '0.0005', asset: ETH, addressTo: ETH_ADDRESS, invoice: nextInvoice() }, [
      { path: 'amount', message: 'must be at least the minimum withdrawal of 0.00050001 ETH (the network fee of 0.00050000 plus the smallest payout the network relays)' },
    ]);
  });

  test('refuses a payout of the fee plus less than the dust limit (a payout no node would relay)', async () => {
    await expectInvalid({ amount: '0.00002001', asset: BTC, addressTo: BTC_ADDRESS, invoice: nextInvoice() }, [
      { path: 'amount', message: 'must be at least the minimum withdrawal of 0.00002546 BTC (the network fee of 0.00002000 plus the smallest payout the network relays)' },
    ]);
  });

  test('refuses an address of another network', async () => {
    await expectInvalid({ amount: '0.1', asset: BTC, addressTo: ETH_ADDRESS, invoice: nextInvoice() }, [
      { path: 'addressTo', message: 'is not a valid bitcoin address (checksum included)' },
    ]);
  });

  test('refuses the zero address as a destination: no one holds its key, so the payout would be burnt', async () => {
    const zero = [
      ['0x0000000000000000000000000000000000000000', [ETH, { short: 'USDT', network: 'ethereum' }, { short: 'USDC', network: 'ethereum' }]],
      ['T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb', [{ short: 'TRX', network: 'tron' }, { short: 'USDT', network: 'tron' }]],
    ] as const;
    for (const [addressTo, assets] of zero) {
      for (const asset of assets) {
        await expectInvalid({ amount: '10', asset, addressTo, invoice: nextInvoice() }, [
          { path: 'addressTo', message: `is the zero address of ${asset.network}: no one holds its key, so a payout there would be lost` },
        ]);
      }
    }
  });

  test("refuses this installation's own receiving addresses, in any spelling, and the shared XRP address with any tag", async () => {
    // A payout there would come back as a payment (credited again, or to nobody) and reach no one.
    const receiving = async (asset: { short: string; network: string }) => (await api.post('/payment', { amount: '1', asset })).body as { addressTo: string };
    const message = (network: string) => `is one of this installation's own receiving addresses on ${network}: a payout there would come back as a payment, not reach anyone`;
    const btc = (await receiving(BTC)).addressTo;
    const eth = (await receiving(ETH)).addressTo;
    const xrp = (await receiving(XRP)).addressTo;
    for (const [asset, addressTo, destTag] of [
      [BTC, btc, undefined],
      [BTC, btc.toUpperCase(), undefined],
      [ETH, eth.toLowerCase(), undefined],
      [{ short: 'USDT', network: 'ethereum' }, eth, undefined],
      [XRP, xrp, '12345'],
    ] as const) {
      await expectInvalid({ amount: '25', asset, addressTo, destTag, invoice: nextInvoice() }, [{ path: 'addressTo', message: message(asset.network) }]);
    }
    // Named with every other bad field at once, not only once the rest is right.
    await expectInvalid({ amount: '25', asset: XRP, addressTo: xrp, invoice: nextInvoice() }, [
      { path: 'destTag', message: 'is required on ripple: exchanges and shared wallets route by tag' },
      { path: 'addressTo', message: message('ripple') },
    ]);
    await expectInvalid({ amount: 'abc', asset: BTC, addressTo: btc, invoice: nextInvoice() }, [
      { path: 'amount', message: (await api.post('/withdrawal', { amount: 'abc', asset: BTC, addressTo: BTC_ADDRESS, invoice: nextInvoice() })).body.error.details[0].message },
      { path: 'addressTo', message: message('bitcoin') },
    ]);
  });

  test('names an unserved pair as unsupported-asset', async () => {
    const response = await api.post('/withdrawal', { amount: '1', asset: { short: 'DOGE', network: 'dogecoin' }, addressTo: 'D8vFz4p1L37jdg47HXKtSHA5uYLYxbGgPD', invoice: nextInvoice() });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'unsupported-asset');
    assert.match(response.body.error.message, /^DOGE on network "dogecoin" is not a served asset; /);
  });
});

describe('approving and cancelling', () => {
  async function openWithdrawal(amount = '0.1') {
    const response = await api.post('/withdrawal', { amount, asset: ETH, addressTo: ETH_ADDRESS, invoice: nextInvoice() });
    assert.equal(response.status, 200);
    return response.body;
  }

  test('cancelling releases the reservation and answers the CANCELLED record', async () => {
    const balanceBefore = await balanceOf(api, 'ETH', 'ethereum');
    const withdrawal = await openWithdrawal('0.25');
    server.clock.advance(1_000);
    const response = await api.post(`/withdrawal/${withdrawal.id}/cancel`, {});
    server.clock.set(NOW);
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { ...withdrawal, status: 'CANCELLED', updatedAt: '2026-11-21T10:15:31.123Z' });
    assert.deepEqual(await balanceOf(api, 'ETH', 'ethereum'), balanceBefore);
  });

  test('approving sends the payout: APPROVED with txnId and addressFrom, reservation spent', async () => {
    const balanceBefore = await balanceOf(api, 'ETH', 'ethereum');
    const withdrawal = await openWithdrawal('0.5');
    const response = await api.post(`/withdrawal/${withdrawal.id}/approve`, {});
    assert.equal(response.status, 200);
    assert.match(response.body.txnId, /^0x[0-9a-f]{64}$/);
    assert.match(response.body.addressFrom, /^0x[0-9a-fA-F]{40}$/);
    assert.deepEqual(response.body, { ...withdrawal, status: 'APPROVED', txnId: response.body.txnId, addressFrom: response.body.addressFrom });
    assert.deepEqual(await balanceOf(api, 'ETH', 'ethereum'), {
      available: new Decimal(balanceBefore!.available).minus('0.5').toFixed(8),
      reserved: balanceBefore!.reserved,
    });
  });

  test("the operator's cancel refuses an approved withdrawal whose payout is on the chain, and a payout never goes out for a cancelled one", async () => {
    const { services } = server;
    const operator = createWithdrawalCancel({ uow: services.uow, registry: services.registry, clock: server.clock, transitions: createWithdrawalTransitions({ registry: services.registry, outbox: createWebhookOutbox() }) });
    const sent = await openWithdrawal();
    const approved = (await api.post(`/withdrawal/${sent.id}/approve`, {})).body;
    await assert.rejects(operator.cancelApproved(sent.id), new CancelRefused(`A payout transaction (${approved.txnId}) is signed for this withdrawal and may reach the network; it cannot be cancelled while it stands.`, 'signed', approved.txnId));
    assert.equal((await api.get(`/withdrawal/${sent.id}`)).body.status, 'APPROVED', 'unchanged');
    await assert.rejects(operator.cancelApproved(sent.id.replace(/^.{8}/, '00000000')), CancelRefused);

    // A payout asked for a withdrawal that no longer waits for one (cancelled) is not recorded.
    const cancelled = await openWithdrawal();
    await api.post(`/withdrawal/${cancelled.id}/cancel`, {});
    const ethereum = services.simulator!.adapter('ethereum');
    const asset = services.registry.find('ETH', 'ethereum')!;
    await assert.rejects(ethereum.send({ reference: cancelled.id, asset, addressTo: ETH_ADDRESS, destTag: null, amount: '0.1' }), /no longer waits for a payout/);
    assert.equal(await services.uow.stores.chains.byReference(cancelled.id), undefined);
  });

  test('refuses to cancel or approve twice with 409 invalid-state', async () => {
    const cancelled = await openWithdrawal();
    await api.post(`/withdrawal/${cancelled.id}/cancel`, {});
    for (const action of ['cancel', 'approve']) {
      const response = await api.post(`/withdrawal/${cancelled.id}/${action}`, {});
      assert.equal(response.status, 409);
      assert.deepEqual(response.body, {
        error: { code: 'invalid-state', message: `The withdrawal is CANCELLED; only an OPEN withdrawal can be ${action === 'cancel' ? 'cancelled' : 'approved'}.` },
      });
    }
    const approved = await openWithdrawal();
    await api.post(`/withdrawal/${approved.id}/approve`, {});
    const response = await api.post(`/withdrawal/${approved.id}/cancel`, {});
    assert.equal(response.status, 409);
    assert.deepEqual(response.body, { error: { code: 'invalid-state', message: 'The withdrawal is APPROVED; only an OPEN withdrawal can be cancelled.' } });
  });

  test('an approve whose write waits behind a cancel of the same withdrawal answers 409 invalid-state, as for a cancelled one', { skip: !testClusterUrl() && 'PostgreSQL only: SQLite runs write transactions one at a time, so both cannot read OPEN' }, async () => {
    const withdrawal = await openWithdrawal();
    const balanceBefore = await balanceOf(api, 'ETH', 'ethereum');
    // The row is held here, so the cancel, then the approve, read OPEN and queue for it in that order.
    const holder = new pg.Client({ connectionString: server.services.config.databaseUrl });
    const observer = new pg.Client({ connectionString: server.services.config.databaseUrl });
    await Promise.all([holder.connect(), observer.connect()]);
    const queuedForTheRow = async (count: number) => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const { rows } = await observer.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
        if (rows[0]!.n === count) return;
        if (Date.now() > deadline) assert.fail(`${rows[0]!.n} sessions wait for a lock, not ${count}`);
      }
    };
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM withdrawals WHERE id = $1 FOR UPDATE', [withdrawal.id]);
      const cancelling = api.post(`/withdrawal/${withdrawal.id}/cancel`, {});
      await queuedForTheRow(1);
      const approving = api.post(`/withdrawal/${withdrawal.id}/approve`, {});
      await queuedForTheRow(2);
      await holder.query('COMMIT');
      const [cancelled, approved] = await Promise.all([cancelling, approving]);
      assert.equal(cancelled.status, 200);
      assert.equal(cancelled.body.status, 'CANCELLED');
      assert.deepEqual(
        { status: approved.status, body: approved.body },
        { status: 409, body: { error: { code: 'invalid-state', message: 'The withdrawal is CANCELLED; only an OPEN withdrawal can be approved.' } } },
      );
    } finally {
      await Promise.all([holder.end(), observer.end()]);
    }
    assert.equal((await api.get(`/withdrawal/${withdrawal.id}`)).body.status, 'CANCELLED');
    assert.deepEqual(await balanceOf(api, 'ETH', 'ethereum'), {
      available: new Decimal(balanceBefore!.available).plus('0.1').toFixed(8),
      reserved: new Decimal(balanceBefore!.reserved).minus('0.1').toFixed(8),
    });
  });

  test("an approve that the operator's cancel overtakes before its payout is signed answers 409 invalid-state", async () => {
    const { services } = server;
    const transitions = createWithdrawalTransitions({ registry: services.registry, outbox: createWebhookOutbox() });
    const operator = createWithdrawalCancel({ uow: services.uow, registry: services.registry, clock: server.clock, transitions });
    // The simulated network itself, with the operator's cancel committed just before it signs: after
    // approve's write, before its answer.
    const adapter = (network: string): NetworkAdapter => {
      const simulated = services.simulator!.adapter(network);
      return { ...simulated, send: async (payout) => (await operator.cancelApproved(payout.reference), simulated.send(payout)) };
    };
    const deps = { uow: services.uow, registry: services.registry, clock: server.clock, adapter, logger: silentLogger() };
    const approving = createWithdrawalService({ ...deps, transitions, payouts: createPayoutSender(deps) });
    const withdrawal = await openWithdrawal();
    const balanceBefore = await balanceOf(api, 'ETH', 'ethereum');
    const merchant = (await services.uow.stores.merchants.findById(shop.merchant.id))!;
    const refused = await approving.approve(merchant, withdrawal.id).then(
      (answer) => assert.fail(`answered ${JSON.stringify(answer)}`),
      (error: unknown) => error,
    );
    assert.ok(refused instanceof DomainError, String(refused));
    const answered = fromDomainError(refused);
    assert.deepEqual(
      { status: answered.status, body: answered.toBody() },
      { status: 409, body: { error: { code: 'invalid-state', message: 'The withdrawal is CANCELLED; only an OPEN withdrawal can be approved.' } } },
    );
    const stored = (await api.get(`/withdrawal/${withdrawal.id}`)).body;
    assert.deepEqual({ status: stored.status, txnId: stored.txnId }, { status: 'CANCELLED', txnId: null });
    assert.deepEqual(await balanceOf(api, 'ETH', 'ethereum'), {
      available: new Decimal(balanceBefore!.available).plus('0.1').toFixed(8),
      reserved: new Decimal(balanceBefore!.reserved).minus('0.1').toFixed(8),
    });
  });

  test('answers 404 withdrawal-not-found for an unknown id on every action', async () => {
    const id = '0b7f0a57-5c4e-4d9b-8a52-4b2c0f1e9d33';
    const expected = { error: { code: 'withdrawal-not-found', message: `No withdrawal with id "${id}" exists for this merchant.` } };
    for (const response of [await api.get(`/withdrawal/${id}`), await api.post(`/withdrawal/${id}/approve`, {}), await api.post(`/withdrawal/${id}/cancel`, {})]) {
      assert.equal(response.status, 404);
      assert.deepEqual(response.body, expected);
    }
  });

  test('takes only an empty object as the action body', async () => {
    const withdrawal = await openWithdrawal();
    const response = await api.post(`/withdrawal/${withdrawal.id}/approve`, { force: true });
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, {
      error: {
        code: 'validation-failed',
        message: 'The request has invalid fields: force.',
        details: [{ path: 'force', message: 'is not a field of this request (names are case-sensitive)' }],
      },
    });
    assert.equal((await api.get(`/withdrawal/${withdrawal.id}`)).body.status, 'OPEN');
  });
});
