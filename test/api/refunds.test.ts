/**
 * Refunds (contract section 17) over HTTP: started by the merchant (with or without an address),
 * claimed by the payer, asked for by the payer and approved; reserved, released and paid out
 * through the withdrawal machinery; never more than the payment received, even at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { DomainError } from '../../api/shared/errors.ts';
import { merchantApi, postJson, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { rateEnv, type SourceServer, startSourceServer } from '../helpers/rate-source-servers.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const NOW = Date.parse('2026-11-21T10:15:30.123Z');
const ETH = { short: 'ETH', network: 'ethereum' };
const XRP = { short: 'XRP', network: 'ripple' };
const ETH_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const XRP_ADDRESS = 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let server: TestServer;
let receiver: WebhookReceiver;
let coinbase: SourceServer;
let api: ReturnType<typeof merchantApi>;
let secret: string;
let invoice = 0;

before(async () => {
  coinbase = await startSourceServer('coinbase', { 'ETH/USD': '2000' });
  server = await startTestServer({ env: rateEnv([coinbase]) });
  server.clock.set(NOW);
  receiver = await startWebhookReceiver();
  api = merchantApi(server, await server.createMerchant('Refunds Shop'));
  const endpoint = await api.post('/webhooks', { url: `${receiver.url}/hook`, events: ['refund.requested', 'refund.approved', 'refund.completed', 'refund.cancelled', 'withdrawal.approved', 'withdrawal.completed', 'withdrawal.cancelled'] });
  secret = endpoint.body.secret;
  // A float to refund from, beyond what the refunded payments themselves bring in.
  await paid('50', '50', ETH);
});

after(async () => {
  await server.close();
  await receiver.close();
  await coinbase.close();
});

async function newPayment(amount: string, asset = ETH) {
  const response = await api.post('/payment', { amount, asset, invoice: `ref-${++invoice}`, timeout: 600 });
  assert.equal(response.status, 200);
  return response.body as { id: string; addressTo: string; destTag: string | null };
}

async function pay(payment: { addressTo: string; destTag: string | null }, amount: string, asset = ETH) {
  const sent = await postJson(`${server.api}/dev/transactions`, { address: payment.addressTo, destTag: payment.destTag ?? undefined, amount, asset, confirmations: 50 });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
}

/** A payment of `amount` that received `received`, confirmed. */
async function paid(amount: string, received: string, asset = ETH) {
  const payment = await newPayment(amount, asset);
  await pay(payment, received, asset);
  return payment;
}

/** A payment that expired with `received` (UNDERPAID). */
async function underpaid(amount: string, received: string) {
  const payment = await newPayment(amount);
  await pay(payment, received);
  server.clock.advance(600_000);
  await server.services.expirySweep.run();
  server.clock.set(NOW);
  return payment;
}

async function balance(short = 'ETH') {
  const row = (await api.get('/balance')).body.data.find((b: { asset: { short: string } }) => b.asset.short === short);
  return { available: row.available as string, reserved: row.reserved as string };
}

const tokenOf = (claimUrl: string) => new URL(claimUrl).searchParams.get('token')!;

/** The events delivered about the given records (a refund, its withdrawal), in the order they came: type and status. */
function eventsAbout(...ids: string[]) {
  const verifier = new Webhook(secret);
  return receiver
    .at('/hook')
    .map((r) => verifier.verify(r.body, r.headers as Record<string, string>) as { type: string; data: Record<string, any> })
    .filter((e) => ids.includes(e.data.id))
    .map((e) => [e.type, e.data.status]);
}

const refundEvents = (refundId: string) => eventsAbout(refundId);

/** The domain error a use case throws, as code and class. */
async function refusal(promise: Promise<unknown>): Promise<[string, string]> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof DomainError, String(err));
    return [err.name, err.code];
  }
  assert.fail('expected a refusal');
}

describe('the merchant refunds a payment', () => {
  test('with nothing but the id, an overpaid payment is refunded exactly the overpaid amount, awaiting the payer\'s address', async () => {
    const payment = await paid('1', '1.25');
    const before = await balance();
    const created = await api.post(`/payment/${payment.id}/refund`, {});
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const refund = created.body;
    assert.match(refund.id, UUID_V4);
    assert.match(refund.claimUrl, new RegExp(`^${server.url}/refund\\?id=${refund.id}&token=[A-Za-z0-9_-]{43}$`));
    assert.deepEqual(refund, {
      id: refund.id,
      paymentId: payment.id,
      amount: '0.25000000',
      asset: (await api.get(`/payment/${payment.id}`)).body.asset,
      addressTo: null,
      destTag: null,
      status: 'AWAITING_ADDRESS',
      claimUrl: refund.claimUrl,
      withdrawalId: null,
      txnId: null,
      reason: null,
      createdAt: '2026-11-21T10:15:30.123Z',
      updatedAt: '2026-11-21T10:15:30.123Z',
    });
    assert.deepEqual(await balance(), { available: (Number(before.available) - 0.25).toFixed(8), reserved: (Number(before.reserved) + 0.25).toFixed(8) });
    assert.equal((await api.get(`/payment/${payment.id}`)).body.refundableAmount, '1.00000000');
    assert.deepEqual((await api.get(`/refund/${refund.id}`)).body, refund);
  });

  test('with nothing but the id, an underpaid payment is refunded everything it received', async () => {
    const payment = await underpaid('1', '0.4');
    const refund = (await api.post(`/payment/${payment.id}/refund`, {})).body;
    assert.equal(refund.amount, '0.40000000');
    assert.equal((await api.get(`/payment/${payment.id}`)).body.refundableAmount, '0.00000000');
  });

  test('an exactly paid payment needs an amount', async () => {
    const payment = await paid('1', '1');
    const response = await api.post(`/payment/${payment.id}/refund`, {});
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, {
      error: {
        code: 'validation-failed',
        message: 'The request has invalid fields: amount.',
        details: [{ path: 'amount', message: 'is required: the payer is owed nothing by default (the payment is still open, was paid exactly, is refunded already, or what it received is not confirmed yet), so name the amount to refund' }],
      },
    });
  });

  test('an OPEN payment paid in part needs an amount: what arrived so far is on its way to paying it', async () => {
    const payment = await newPayment('1');
    await pay(payment, '0.4');
    const record = (await api.get(`/payment/${payment.id}`)).body;
    assert.deepEqual({ status: record.status, exception: record.exception, refundableAmount: record.refundableAmount }, { status: 'OPEN', exception: null, refundableAmount: '0.40000000' });
    const response = await api.post(`/payment/${payment.id}/refund`, {});
    assert.equal(response.status, 400);
    assert.deepEqual(response.body.error.details, [
      { path: 'amount', message: 'is required: the payer is owed nothing by default (the payment is still open, was paid exactly, is refunded already, or what it received is not confirmed yet), so name the amount to refund' },
    ]);
    // Nothing was reserved: the payer pays the rest, and the payment completes with nothing owed.
    await pay(payment, '0.6');
    const completed = (await api.get(`/payment/${payment.id}`)).body;
    assert.deepEqual({ status: completed.status, exception: completed.exception, refundableAmount: completed.refundableAmount }, { status: 'COMPLETE', exception: null, refundableAmount: '1.00000000' });
    assert.equal((await api.get(`/refund?paymentIds=${payment.id}`)).body.total, 0);
  });

  test('refunds only confirmed funds: an overpayment still unconfirmed is not refundable until it confirms', async () => {
    const payment = await newPayment('1');
    const sent = await postJson(`${server.api}/dev/transactions`, { address: payment.addressTo, amount: '1.5', asset: ETH, confirmations: 0 });
    assert.equal(sent.status, 200);
    const record = (await api.get(`/payment/${payment.id}`)).body;
    assert.deepEqual({ status: record.status, exception: record.exception, refundableAmount: record.refundableAmount }, { status: 'CONFIRMING', exception: 'OVERPAID', refundableAmount: '0.00000000' });
    // Paid out now, the refund would come from the merchant's other funds if the payer's transaction left the chain.
    const early = await api.post(`/payment/${payment.id}/refund`, { addressTo: ETH_ADDRESS });
    assert.equal(early.status, 400);
    assert.deepEqual(early.body.error.details, [
      { path: 'amount', message: 'is required: the payer is owed nothing by default (the payment is still open, was paid exactly, is refunded already, or what it received is not confirmed yet), so name the amount to refund' },
    ]);
    assert.equal((await api.post(`/payment/${payment.id}/refund`, { amount: '0.5', addressTo: ETH_ADDRESS })).body.error.code, 'refund-exceeds-payment');
    await postJson(`${server.api}/dev/blocks`, { network: 'ethereum', count: 50 });
    const confirmed = (await api.get(`/payment/${payment.id}`)).body;
    assert.deepEqual({ status: confirmed.status, refundableAmount: confirmed.refundableAmount }, { status: 'COMPLETE', refundableAmount: '1.50000000' });
    const refund = await api.post(`/payment/${payment.id}/refund`, {});
    assert.equal(refund.status, 200, JSON.stringify(refund.body));
    assert.equal(refund.body.amount, '0.50000000');
  });

  test('refuses more than the payment received, less its refunds not cancelled', async () => {
    const payment = await paid('1', '1');
    assert.equal((await api.post(`/payment/${payment.id}/refund`, { amount: '0.6' })).status, 200);
    const response = await api.post(`/payment/${payment.id}/refund`, { amount: '0.5' });
    assert.equal(response.status, 422);
    assert.deepEqual(response.body, {
      error: {
        code: 'refund-exceeds-payment',
        message: 'The refund of 0.50000000 ETH is more than the 0.40000000 ETH of this payment that is not refunded yet (what it received, less every refund not cancelled).',
      },
    });
  });

  test('checks the address for the payment\'s network and the tag where one is needed', async () => {
    const eth = await paid('1', '1');
    const wrong = await api.post(`/payment/${eth.id}/refund`, { amount: '0.1', addressTo: XRP_ADDRESS });
    assert.equal(wrong.status, 400);
    assert.deepEqual(wrong.body.error.details, [{ path: 'addressTo', message: 'is not a valid ethereum address (checksum included)' }]);
    const xrp = await paid('100', '100', XRP);
    const untagged = await api.post(`/payment/${xrp.id}/refund`, { amount: '10', addressTo: XRP_ADDRESS });
    assert.equal(untagged.status, 400);
    assert.deepEqual(untagged.body.error.details, [{ path: 'destTag', message: 'is required on ripple: exchanges and shared wallets route by tag' }]);
  });

  test('names every bad field at once: the schema\'s and those of the payment\'s network', async () => {
    const eth = await paid('1', '1');
    const both = await api.post(`/payment/${eth.id}/refund`, { amount: 'abc', addressTo: XRP_ADDRESS });
    assert.equal(both.status, 400);
    assert.deepEqual(both.body.error.details, [
      { path: 'amount', message: both.body.error.details[0].message },
      { path: 'addressTo', message: 'is not a valid ethereum address (checksum included)' },
    ]);
    assert.equal(both.body.error.details.length, 2);
    const digits = await api.post(`/payment/${eth.id}/refund`, { amount: '0.123456789', addressTo: XRP_ADDRESS, destTag: '7', reason: 5 });
    assert.deepEqual(digits.body.error.details.map((d: { path: string }) => d.path).sort(), ['addressTo', 'amount', 'destTag', 'reason']);
    assert.deepEqual(digits.body.error.details.find((d: { path: string }) => d.path === 'amount'), { path: 'amount', message: 'must have at most 8 decimal places for ETH' });
    // A tag the schema refuses is named once, for the schema's reason.
    const tag = await api.post(`/payment/${eth.id}/refund`, { amount: '0.1', destTag: 'x' });
    assert.deepEqual(tag.body.error.details.map((d: { path: string }) => d.path), ['destTag']);
    // Bad fields on a payment that does not exist are still named as such; a good body gets the 404.
    const unknown = '00000000-0000-4000-8000-000000000000';
    assert.deepEqual((await api.post(`/payment/${unknown}/refund`, { amount: 'abc' })).body.error.details.map((d: { path: string }) => d.path), ['amount']);
    assert.equal((await api.post(`/payment/${unknown}/refund`, { amount: '0.1' })).body.error.code, 'payment-not-found');
    assert.equal((await api.get(`/refund?paymentIds=${eth.id}`)).body.total, 0, 'nothing was created');
  });

  test("refuses this installation's own receiving addresses, in any spelling, from the merchant and from the payer", async () => {
    // A payout there would come back as a late payment, credited to the merchant again.
    const payment = await paid('1', '1.5');
    const other = await newPayment('2');
    const expected = [{ path: 'addressTo', message: "is one of this installation's own receiving addresses on ethereum: a payout there would come back as a payment, not reach anyone" }];
    const before = await balance();
    for (const addressTo of [payment.addressTo, payment.addressTo.toLowerCase(), other.addressTo]) {
      const refused = await api.post(`/payment/${payment.id}/refund`, { amount: '0.1', addressTo });
      assert.equal(refused.status, 400, addressTo);
      assert.deepEqual(refused.body.error.details, expected);
    }
    assert.deepEqual(await balance(), before, 'nothing reserved');
    const refund = (await api.post(`/payment/${payment.id}/refund`, {})).body;
    const claims = server.services.refundClaims;
    const claimRefused = await claims.claim(refund.id, tokenOf(refund.claimUrl), { addressTo: other.addressTo }).catch((error: unknown) => error);
    assert.ok(claimRefused instanceof DomainError && claimRefused.code === 'validation-failed', String(claimRefused));
    assert.equal((await api.get(`/refund/${refund.id}`)).body.status, 'AWAITING_ADDRESS');
    assert.equal((await api.post(`/refund/${refund.id}/cancel`, {})).status, 200);
    assert.deepEqual((await api.post(`/refund/${refund.id}/cancel`, {})).body, {
      error: { code: 'invalid-state', message: 'The refund is CANCELLED; only a refund waiting for an address or for approval, or approved with its payout not yet signed, can be cancelled.' },
    });
    const short = await underpaid('1', '0.3');
    const requestRefused = await claims.request(short.id, { addressTo: short.addressTo }).catch((error: unknown) => error);
    assert.ok(requestRefused instanceof DomainError && requestRefused.code === 'validation-failed', String(requestRefused));
    assert.deepEqual((await api.get(`/refund?paymentIds=${short.id}`)).body.data, [], 'no refund was asked for');
  });

  test('a fiat price is converted at the current rate, without the spread; never with an amount', async () => {
    const payment = await paid('1', '1');
    const priced = await api.post(`/payment/${payment.id}/refund`, { price: { amount: '100', currency: 'USD' } });
    assert.equal(priced.status, 200, JSON.stringify(priced.body));
    assert.equal(priced.body.amount, '0.05000000');
    const both = await api.post(`/payment/${payment.id}/refund`, { amount: '0.1', price: { amount: '100', currency: 'USD' } });
    assert.equal(both.status, 400);
    assert.deepEqual(both.body.error.details, [{ path: 'price', message: 'must not come with amount: give one or the other' }]);
    // A price worth less than the smallest payout is refused on the field that was sent.
    const tiny = await api.post(`/payment/${payment.id}/refund`, { price: { amount: '0.01', currency: 'USD' } });
    assert.equal(tiny.status, 400);
    assert.deepEqual(tiny.body.error.details.map((d: { path: string }) => d.path), ['price.amount']);
    // A currency no source quotes the asset in: said in words that fit a refund, and documented for this operation.
    const unquoted = await api.post(`/payment/${payment.id}/refund`, { price: { amount: '100', currency: 'MNT' } });
    assert.equal(unquoted.status, 400);
    assert.deepEqual(unquoted.body, { error: { code: 'unsupported-currency', message: 'No rate source quotes ETH in MNT. Give the amount in another currency, or in ETH itself.' } });
    const openApi = (await (await fetch(`${server.api}/openapi.json`)).json()) as { paths: Record<string, { post: { responses: Record<number, { description: string }> } }> };
    const documented = openApi.paths['/payment/{id}/refund']!.post.responses;
    assert.match(documented[400]?.description ?? '', /unsupported-currency/);
    assert.match(documented[503]?.description ?? '', /rates-unavailable/);
  });

  test('an unknown or another merchant\'s payment is not found', async () => {
    const payment = await paid('1', '1.5');
    const other = merchantApi(server, await server.createMerchant('Other Shop'));
    const foreign = await other.post(`/payment/${payment.id}/refund`, {});
    assert.equal(foreign.status, 404);
    assert.deepEqual(foreign.body, { error: { code: 'payment-not-found', message: `No payment with id "${payment.id}" exists for this merchant.` } });
  });

  test('with an address it starts APPROVED, is paid out by its withdrawal, and completes with it', async () => {
    const payment = await paid('1', '1.5');
    const created = await api.post(`/payment/${payment.id}/refund`, { addressTo: ETH_ADDRESS, reason: 'overpaid by mistake' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const refund = created.body;
    assert.equal(refund.status, 'APPROVED');
    assert.equal(refund.amount, '0.50000000');
    assert.equal(refund.reason, 'overpaid by mistake');
    const withdrawal = (await api.get(`/withdrawal/${refund.withdrawalId}`)).body;
    assert.equal(withdrawal.invoice, `refund:${refund.id}`);
    assert.equal(withdrawal.status, 'APPROVED');
    assert.equal(withdrawal.receivedAmount, '0.49950000');
    assert.equal(refund.txnId, withdrawal.txnId);
    assert.notEqual(refund.txnId, null);
    // Sent: it can no longer be cancelled, said once and of the refund.
    const tooLate = await api.post(`/refund/${refund.id}/cancel`, {});
    assert.equal(tooLate.status, 409);
    assert.deepEqual(tooLate.body, {
      error: { code: 'invalid-state', message: `The refund's payout transaction (${refund.txnId}) is signed and may reach the network, so the refund can no longer be cancelled.` },
    });
    assert.equal((await api.get(`/refund/${refund.id}`)).body.status, 'APPROVED');
    await postJson(`${server.api}/dev/blocks`, { network: 'ethereum', count: 100 });
    const done = (await api.get(`/refund/${refund.id}`)).body;
    assert.equal(done.status, 'COMPLETE');
    await server.services.dispatcher.run();
    // The refund's withdrawal is announced approved before it completes, as an approved withdrawal is.
    assert.deepEqual(eventsAbout(refund.id, refund.withdrawalId), [
      ['withdrawal.approved', 'APPROVED'],
      ['refund.approved', 'APPROVED'],
      ['withdrawal.completed', 'COMPLETE'],
      ['refund.completed', 'COMPLETE'],
    ]);
    const cancel = await api.post(`/refund/${refund.id}/cancel`, {});
    assert.equal(cancel.status, 409);
    assert.deepEqual(cancel.body, { error: { code: 'invalid-state', message: 'The refund is COMPLETE; only a refund waiting for an address or for approval, or approved with its payout not yet signed, can be cancelled.' } });
  });

  test('cancelling before an address releases exactly the reservation', async () => {
    const payment = await paid('1', '1.3');
    const before = await balance();
    const refund = (await api.post(`/payment/${payment.id}/refund`, {})).body;
    const cancelled = await api.post(`/refund/${refund.id}/cancel`, {});
    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.body.status, 'CANCELLED');
    assert.deepEqual(await balance(), before);
    assert.equal((await api.get(`/payment/${payment.id}`)).body.refundableAmount, '1.30000000');
    await server.services.dispatcher.run();
    assert.deepEqual(refundEvents(refund.id), [['refund.cancelled', 'CANCELLED']]);
  });

  test('refuses what the balance cannot cover', async () => {
    const poor = merchantApi(server, await server.createMerchant('Poor Shop'));
    const created = await poor.post('/payment', { amount: '1', asset: ETH, timeout: 600 });
    await pay(created.body, '1.2');
    const withdrawn = await poor.post('/withdrawal', { amount: '1.1', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'empty-it' });
    assert.equal(withdrawn.status, 200);
    const response = await poor.post(`/payment/${created.body.id}/refund`, {});
    assert.equal(response.status, 422);
    assert.deepEqual(response.body, { error: { code: 'insufficient-funds', message: 'The available balance is 0.10000000 ETH, less than the 0.20000000 ETH needed.' } });
  });

  test('lists refunds by payment and status, newest first', async () => {
    const payment = await paid('1', '1.4');
    const first = (await api.post(`/payment/${payment.id}/refund`, { amount: '0.1' })).body;
    server.clock.advance(1000);
    const second = (await api.post(`/payment/${payment.id}/refund`, { amount: '0.2' })).body;
    await api.post(`/refund/${first.id}/cancel`, {});
    server.clock.set(NOW);
    const all = (await api.get(`/refund?paymentIds=${payment.id}`)).body;
    assert.deepEqual({ ...all, data: all.data.map((r: { id: string }) => r.id) }, { data: [second.id, first.id], page: 1, limit: 20, total: 2 });
    // A payment id is a UUID: any case finds its refunds, as the other id filters do.
    assert.deepEqual((await api.get(`/refund?paymentIds=${payment.id.toUpperCase()}`)).body, all);
    const open = (await api.get(`/refund?paymentIds=${payment.id}&statuses=AWAITING_ADDRESS`)).body;
    assert.deepEqual(open.data.map((r: { id: string }) => r.id), [second.id]);
    const bad = await api.get('/refund?statuses=DONE');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, 'validation-failed');
  });
});

describe('the payer claims a refund', () => {
  test('a wrong token is not found; a wrong address is refused; the right one approves and pays it out; a second is refused', async () => {
    const payment = await paid('1', '1.5');
    const refund = (await api.post(`/payment/${payment.id}/refund`, {})).body;
    const claims = server.services.refundClaims;
    const token = tokenOf(refund.claimUrl);
    const otherToken = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    assert.deepEqual(await refusal(claims.view(refund.id, otherToken)), ['NotFound', 'not-found']);
    assert.deepEqual(await refusal(claims.claim(refund.id, 'short', { addressTo: ETH_ADDRESS })), ['NotFound', 'not-found']);
    assert.deepEqual(await refusal(claims.claim(refund.id, token, { addressTo: XRP_ADDRESS })), ['InvalidInput', 'validation-failed']);
    const before = await balance();
    await claims.claim(refund.id, token, { addressTo: ETH_ADDRESS });
    const claimed = (await api.get(`/refund/${refund.id}`)).body;
    assert.equal(claimed.status, 'APPROVED');
    assert.equal(claimed.addressTo, ETH_ADDRESS);
    assert.notEqual(claimed.txnId, null);
    // The reservation moved to the withdrawal and left with the payout: the balance moved by the sent amount only.
    assert.deepEqual(await balance(), { available: before.available, reserved: (Number(before.reserved) - 0.5).toFixed(8) });
    await server.services.dispatcher.run();
    assert.deepEqual(eventsAbout(refund.id, claimed.withdrawalId), [
      ['withdrawal.approved', 'APPROVED'],
      ['refund.approved', 'APPROVED'],
    ]);
    assert.deepEqual(await refusal(claims.claim(refund.id, token, { addressTo: '0x0000000000000000000000000000000000000001' })), ['InvalidState', 'invalid-state']);
    assert.equal((await api.get(`/refund/${refund.id}`)).body.addressTo, ETH_ADDRESS);
    const view = await claims.view(refund.id, token);
    assert.deepEqual({ ...view, asset: view.asset.short }, {
      id: refund.id,
      status: 'APPROVED',
      amount: '0.50000000',
      asset: 'ETH',
      needsTag: false,
      merchantName: 'Refunds Shop',
      addressTo: ETH_ADDRESS,
      destTag: null,
      txnId: claimed.txnId,
      updatedAt: claimed.updatedAt,
    });
  });
});

describe('the payer asks for a refund', () => {
  test('of an underpaid payment: REQUESTED, one at a time, reserved only when the merchant approves', async () => {
    const payment = await underpaid('1', '0.3');
    const claims = server.services.refundClaims;
    assert.deepEqual(await claims.requestable(payment.id), { ...(await claims.requestable(payment.id)), amount: '0.30000000', merchantName: 'Refunds Shop' });
    const before = await balance();
    const { id } = await claims.request(payment.id, { addressTo: ETH_ADDRESS });
    assert.deepEqual(await refusal(claims.request(payment.id, { addressTo: ETH_ADDRESS })), ['Conflict', 'refund-already-requested']);
    const requested = (await api.get(`/refund/${id}`)).body;
    assert.equal(requested.status, 'REQUESTED');
    assert.equal(requested.amount, '0.30000000');
    assert.deepEqual(await balance(), before);
    const approved = await api.post(`/refund/${id}/approve`, {});
    assert.equal(approved.status, 200);
    assert.equal(approved.body.status, 'APPROVED');
    assert.notEqual(approved.body.txnId, null);
    const again = await api.post(`/refund/${id}/approve`, {});
    assert.equal(again.status, 409);
    assert.deepEqual(again.body, { error: { code: 'invalid-state', message: 'The refund is APPROVED; only a REQUESTED refund (asked for by the payer) can be approved.' } });
    await server.services.dispatcher.run();
    assert.deepEqual(refundEvents(id), [
      ['refund.requested', 'REQUESTED'],
      ['refund.approved', 'APPROVED'],
    ]);
  });

  test('while it waits, the merchant\'s own refund of what it holds is told to approve or cancel it', async () => {
    const payment = await underpaid('1', '0.3');
    const { id } = await server.services.refundClaims.request(payment.id, { addressTo: ETH_ADDRESS });
    for (const body of [{}, { amount: '0.2' }]) {
      const refused = await api.post(`/payment/${payment.id}/refund`, body);
      assert.equal(refused.status, 409, JSON.stringify(body));
      assert.deepEqual(refused.body, {
        error: {
          code: 'refund-already-requested',
          message: `The payer asked for a refund of 0.30000000 ETH of this payment already (refund ${id}), which holds what it asks for: approve or cancel that request first (on the payment's page in the dashboard, or POST /v2/refund/${id}/approve or /cancel).`,
        },
      });
    }
    // More than the payment ever received is refused as such: cancelling the request would not help.
    const tooMuch = await api.post(`/payment/${payment.id}/refund`, { amount: '0.5' });
    assert.equal(tooMuch.status, 422);
    assert.equal(tooMuch.body.error.code, 'refund-exceeds-payment');
    // Cancelled, what it held is the merchant's to refund again.
    assert.equal((await api.post(`/refund/${id}/cancel`, {})).status, 200);
    assert.equal((await api.post(`/payment/${payment.id}/refund`, {})).status, 200);
  });

  test('of a paid-late payment; not of one paid on time', async () => {
    const late = await newPayment('1');
    server.clock.advance(600_000);
    await server.services.expirySweep.run();
    await pay(late, '1');
    server.clock.set(NOW);
    const claims = server.services.refundClaims;
    const { id } = await claims.request(late.id, { addressTo: ETH_ADDRESS });
    assert.equal((await api.get(`/refund/${id}`)).body.amount, '1.00000000');
    const onTime = await paid('1', '1');
    assert.deepEqual(await refusal(claims.request(onTime.id, { addressTo: ETH_ADDRESS })), ['InvalidState', 'invalid-state']);
    const cancelled = await api.post(`/refund/${id}/cancel`, {});
    assert.equal(cancelled.body.status, 'CANCELLED');
  });
});

describe('refunds at once', () => {
  test('never exceed what the payment received, whichever commits first', async () => {
    const payment = await paid('1', '1');
    const answers = await Promise.all(Array.from({ length: 6 }, () => api.post(`/payment/${payment.id}/refund`, { amount: '0.3' })));
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 200, 200, 422, 422, 422]);
    const listed = (await api.get(`/refund?paymentIds=${payment.id}`)).body;
    assert.equal(listed.total, 3);
    assert.equal((await api.get(`/payment/${payment.id}`)).body.refundableAmount, '0.10000000');
  });
});
