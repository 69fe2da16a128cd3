/**
 * The dashboard's pages over HTTP: the same use cases as the API for the signed-in merchant only.
 * Search (id, invoice, transaction id, address), a payment with the webhook deliveries of its events,
 * withdrawals, balance, webhooks, key rotation shown once, settings, the CSV report (columns,
 * quoting, formula cells, a range, on the API too), viewers refused on every change, and another
 * merchant's ids answered 404.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createUser, dashboardClient } from '../helpers/dashboard-client.ts';
import { merchantApi, postJson, startTestServer, type TestMerchant, type TestServer } from '../helpers/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const BTC = { short: 'BTC', network: 'bitcoin' };
const BTC_ADDRESS = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
const FORBIDDEN = { error: { code: 'forbidden', message: 'Viewers can read the dashboard but not change anything; ask an owner.' } };

let server: TestServer;
let receiver: WebhookReceiver;
let shop: TestMerchant;
let other: TestMerchant;
let owner: ReturnType<typeof dashboardClient>;
let viewer: ReturnType<typeof dashboardClient>;
let api: ReturnType<typeof merchantApi>;

before(async () => {
  server = await startTestServer();
  receiver = await startWebhookReceiver();
  shop = await server.createMerchant('Pages Shop');
  other = await server.createMerchant('Other Shop');
  api = merchantApi(server, shop);
  owner = dashboardClient(server);
  viewer = dashboardClient(server);
  const o = await createUser(server, shop.merchant.id, 'owner@pages.example', 'owner');
  const v = await createUser(server, shop.merchant.id, 'viewer@pages.example', 'viewer');
  assert.equal((await owner.signIn('owner@pages.example', o.password)).status, 200);
  assert.equal((await viewer.signIn('viewer@pages.example', v.password)).status, 200);
});
after(async () => {
  await server.close();
  await receiver.close();
});

async function newPayment(body: Record<string, unknown> = {}, client = api) {
  const response = await client.post('/payment', { amount: '0.5', asset: BTC, ...body });
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return response.body as { id: string; addressTo: string; invoice: string | null; createdAt: string };
}

async function pay(address: string, amount: string, confirmations: number) {
  const sent = await postJson(`${server.api}/dev/transactions`, { address, amount, asset: BTC, confirmations });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  return sent.body as { txnId: string };
}

describe('payments', () => {
  test('finds a payment by id, invoice, transaction id and receiving address, and filters by status', async () => {
    const wanted = await newPayment({ invoice: 'find-me-1' });
    // Newest first is by creation time (then id): a millisecond apart, the order is known.
    server.clock.advance(1);
    const decoy = await newPayment({ invoice: 'decoy-1' });
    const { txnId } = await pay(wanted.addressTo, '0.5', 0);
    const ids = async (query: string) => ((await owner.get(`/payments?${query}`)).body.data as Array<{ id: string }>).map((p) => p.id);
    assert.deepEqual(await ids(`search=${wanted.id.toUpperCase()}`), [wanted.id]);
    assert.deepEqual(await ids('search=find-me-1'), [wanted.id]);
    assert.deepEqual(await ids(`search=${txnId}`), [wanted.id]);
    assert.deepEqual(await ids(`search=${wanted.addressTo}`), [wanted.id]);
    assert.deepEqual(await ids('search=nothing-like-it'), []);
    assert.deepEqual(await ids(`search=find-me-1&statuses=OPEN`), []);
    assert.deepEqual(await ids(`search=find-me-1&statuses=CONFIRMING`), [wanted.id]);
    const page = (await owner.get('/payments?limit=1&page=2')).body;
    assert.deepEqual([page.page, page.limit, page.data[0].id], [2, 1, wanted.id]);
    assert.equal((await owner.get('/payments?limit=1')).body.data[0].id, decoy.id);
  });

  test('finds a payment by a hex transaction id or address typed in either case', async () => {
    const bitcoin = await newPayment({ invoice: 'case-btc' });
    const { txnId } = await pay(bitcoin.addressTo, '0.5', 0);
    const ether = await newPayment({ amount: '0.1', asset: { short: 'ETH', network: 'ethereum' }, invoice: 'case-eth' });
    // Stored with its EIP-55 checksum, so mixed case: every other spelling is the same address.
    assert.notEqual(ether.addressTo, ether.addressTo.toLowerCase());
    const ids = async (term: string) => ((await owner.get(`/payments?search=${encodeURIComponent(term)}`)).body.data as Array<{ id: string }>).map((p) => p.id);
    assert.deepEqual(await ids(txnId.toUpperCase()), [bitcoin.id]);
    assert.deepEqual(await ids(txnId.toLowerCase()), [bitcoin.id]);
    assert.deepEqual(await ids(ether.addressTo.toLowerCase()), [ether.id]);
    assert.deepEqual(await ids(`0x${ether.addressTo.slice(2).toUpperCase()}`), [ether.id]);
    assert.deepEqual(await ids(bitcoin.addressTo.toUpperCase()), [bitcoin.id]);
    assert.deepEqual(await ids(bitcoin.id.toUpperCase()), [bitcoin.id]);
    // An invoice is the merchant's own text, matched as typed.
    assert.deepEqual(await ids('CASE-BTC'), []);
    // The count agrees with the page.
    assert.equal((await owner.get(`/payments?search=${txnId.toUpperCase()}`)).body.total, 1);
  });

  test('shows a payment with its transactions and the webhook deliveries of its events', async () => {
    const endpoint = await owner.request<any>('POST', '/webhooks', { body: { url: `${receiver.url}/pages` } });
    assert.equal(endpoint.status, 200, JSON.stringify(endpoint.body));
    assert.match(endpoint.body.secret, /^whsec_/);
    const payment = await newPayment({ invoice: 'with-events' });
    const { txnId } = await pay(payment.addressTo, '0.5', 6);
    await server.services.dispatcher.run();
    const shown = await owner.get(`/payments/${payment.id}`);
    assert.deepEqual(shown.body, (await api.get(`/payment/${payment.id}`)).body);
    assert.equal(shown.body.transactions[0].txnId, txnId);
    const deliveries = await owner.get(`/payments/${payment.id}/deliveries`);
    assert.equal(deliveries.status, 200);
    const types = deliveries.body.data.map((d: { type: string; url: string; statusCode: number }) => [d.type, d.url, d.statusCode]).sort();
    assert.deepEqual(types, [
      ['payment.completed', `${receiver.url}/pages`, 200],
      ['payment.transaction-seen', `${receiver.url}/pages`, 200],
    ]);
    assert.deepEqual(Object.keys(deliveries.body.data[0]), ['id', 'eventId', 'type', 'attempt', 'statusCode', 'durationMs', 'error', 'createdAt', 'endpointId', 'url']);
    const removed = await owner.request('DELETE', `/webhooks/${endpoint.body.id}`);
    assert.equal(removed.status, 204);
  });

  test('another merchant\'s payment, withdrawal and webhook are 404s, exactly like unknown ones', async () => {
    const foreign = await newPayment({}, merchantApi(server, other));
    const foreignHook = await merchantApi(server, other).post('/webhooks', { url: `${receiver.url}/other` });
    const notFound = (kind: string, id: string) => ({ error: { code: `${kind}-not-found`, message: `No ${kind === 'webhook' ? 'webhook endpoint' : kind} with id "${id}" exists for this merchant.` } });
    for (const path of [`/payments/${foreign.id}`, `/payments/${foreign.id}/deliveries`]) assert.deepEqual([(await owner.get(path)).status, (await owner.get(path)).body], [404, notFound('payment', foreign.id)]);
    assert.deepEqual((await owner.get(`/webhooks/${foreignHook.body.id}/deliveries`)).body, notFound('webhook', foreignHook.body.id));
    assert.deepEqual((await owner.request('DELETE', `/webhooks/${foreignHook.body.id}`)).body, notFound('webhook', foreignHook.body.id));
    assert.equal((await merchantApi(server, other).get('/webhooks')).body.data.length, 1, 'still there');
    assert.ok(!(await owner.get(`/payments?search=${foreign.id}`)).body.data.length);
  });
});

describe('withdrawals, balance, webhooks', () => {
  test('an owner creates, approves and cancels withdrawals through the withdrawal use cases', async () => {
    const funding = await newPayment({ amount: '1' });
    await pay(funding.addressTo, '1', 6);
    const balance = await owner.get('/balance');
    assert.deepEqual(balance.body, (await api.get('/balance')).body);
    const created = await owner.request<any>('POST', '/withdrawals', { body: { amount: '0.1', asset: BTC, addressTo: BTC_ADDRESS, invoice: 'dash-w-1' } });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal(created.body.status, 'OPEN');
    const again = await owner.request('POST', '/withdrawals', { body: { amount: '0.1', asset: BTC, addressTo: BTC_ADDRESS, invoice: 'dash-w-1' } });
    assert.deepEqual([again.status, again.body], [409, { error: { code: 'duplicate-invoice', message: 'A withdrawal with invoice "dash-w-1" already exists; invoices are unique per merchant.' } }]);
    const cancelled = await owner.request<any>('POST', `/withdrawals/${created.body.id}/cancel`);
    assert.equal(cancelled.body.status, 'CANCELLED');
    const twice = await owner.request('POST', `/withdrawals/${created.body.id}/approve`);
    assert.deepEqual([twice.status, twice.body], [409, { error: { code: 'invalid-state', message: 'The withdrawal is CANCELLED; only an OPEN withdrawal can be approved.' } }]);
    const second = await owner.request<any>('POST', '/withdrawals', { body: { amount: '0.1', asset: BTC, addressTo: BTC_ADDRESS, invoice: 'dash-w-2' } });
    const approved = await owner.request<any>('POST', `/withdrawals/${second.body.id}/approve`);
    assert.equal(approved.body.status, 'APPROVED', JSON.stringify(approved.body));
    assert.deepEqual((await owner.get('/withdrawals')).body, (await api.get('/withdrawal')).body);
  });

  test('a viewer reads every page and is refused every change with 403, whatever the browser sends', async () => {
    for (const path of ['/payments', '/withdrawals', '/refunds', '/balance', '/webhooks', '/settings', '/session']) assert.equal((await viewer.get(path)).status, 200, path);
    const id = '6f1c2e8a-4b1d-4c55-9a7e-2f5a4c3b2a10';
    const changes: Array<[string, string, unknown]> = [
      ['POST', '/withdrawals', { amount: '0.1', asset: BTC, addressTo: BTC_ADDRESS, invoice: 'viewer-w' }],
      ['POST', `/withdrawals/${id}/approve`, undefined],
      ['POST', `/withdrawals/${id}/cancel`, undefined],
      ['POST', '/webhooks', { url: `${receiver.url}/viewer` }],
      ['DELETE', `/webhooks/${id}`, undefined],
      ['POST', `/webhooks/${id}/deliveries/${id}/redeliver`, undefined],
      ['POST', '/keys/rotate', { graceSeconds: 0 }],
      ['PUT', '/settings', { name: 'Viewer was here', email: null, siteUrl: null, logoUrl: null }],
      ['POST', `/payments/${id}/refund`, {}],
      ['POST', `/refunds/${id}/approve`, undefined],
      ['POST', `/refunds/${id}/cancel`, undefined],
    ];
    for (const [method, path, body] of changes) {
      const response = await viewer.request(method, path, body === undefined ? {} : { body });
      assert.deepEqual([response.status, response.body], [403, FORBIDDEN], `${method} ${path}`);
    }
    assert.equal((await api.get('/withdrawal?invoices=viewer-w')).body.total, 0);
    assert.equal((await owner.get('/settings')).body.name, 'Pages Shop');
  });

  test('redelivers a delivery of the log', async () => {
    const endpoint = await owner.request<any>('POST', '/webhooks', { body: { url: `${receiver.url}/redeliver` } });
    const payment = await newPayment();
    await pay(payment.addressTo, '0.1', 0);
    await server.services.dispatcher.run();
    const log = await owner.get(`/webhooks/${endpoint.body.id}/deliveries`);
    assert.equal(log.body.total, 1);
    const redelivered = await owner.request<any>('POST', `/webhooks/${endpoint.body.id}/deliveries/${log.body.data[0].id}/redeliver`);
    assert.equal(redelivered.status, 200, JSON.stringify(redelivered.body));
    assert.deepEqual([redelivered.body.eventId, redelivered.body.attempt], [log.body.data[0].eventId, 2]);
    assert.equal(receiver.at('/redeliver').length, 2);
    await owner.request('DELETE', `/webhooks/${endpoint.body.id}`);
  });
});

describe('refunds', () => {
  test('an owner refunds an overpaid payment, reads it with the payment, and cancels it, through the refund use cases', async () => {
    const payment = await newPayment({ invoice: 'overpaid-1' });
    await pay(payment.addressTo, '0.7', 6);
    const created = await owner.request<any>('POST', `/payments/${payment.id}/refund`, { body: { reason: 'paid too much' } });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.deepEqual([created.body.amount, created.body.status, created.body.reason], ['0.20000000', 'AWAITING_ADDRESS', 'paid too much']);
    assert.deepEqual((await owner.get(`/refunds?paymentIds=${payment.id}`)).body, (await api.get(`/refund?paymentIds=${payment.id}`)).body);
    assert.equal((await owner.get(`/refunds/${created.body.id}`)).body.id, created.body.id);
    assert.match((await owner.get(`/refunds/${created.body.id}`)).body.claimUrl, /\/refund\?id=.*&token=/);
    // The claim link names where the refund goes: a viewer, who may change nothing, never sees it.
    const seenByViewer = (await viewer.get(`/refunds?paymentIds=${payment.id}`)).body;
    assert.deepEqual(seenByViewer.data, (await api.get(`/refund?paymentIds=${payment.id}`)).body.data.map(({ claimUrl: _claimUrl, ...rest }: { claimUrl: string }) => rest));
    assert.equal('claimUrl' in (await viewer.get(`/refunds/${created.body.id}`)).body, false);
    const cancelled = await owner.request<any>('POST', `/refunds/${created.body.id}/cancel`);
    assert.equal(cancelled.body.status, 'CANCELLED', JSON.stringify(cancelled.body));
    const again = await owner.request('POST', `/refunds/${created.body.id}/approve`);
    assert.equal(again.status, 409);
    const foreign = await newPayment({}, merchantApi(server, other));
    const refused = await owner.request('POST', `/payments/${foreign.id}/refund`, { body: { amount: '0.1' } });
    assert.deepEqual([refused.status, refused.body.error.code], [404, 'payment-not-found']);
  });
});

describe('keys and settings', () => {
  test('rotating keys answers the new pair once; the old pair works through the grace period', async () => {
    const keys = await server.createMerchant('Rotating Shop');
    const { password } = await createUser(server, keys.merchant.id, 'owner@rotating.example', 'owner');
    const browser = dashboardClient(server);
    await browser.signIn('owner@rotating.example', password);
    const rotated = await browser.request<any>('POST', '/keys/rotate', { body: { graceSeconds: 60 } });
    assert.equal(rotated.status, 200);
    assert.deepEqual(Object.keys(rotated.body), ['apiKey', 'secretKey', 'previousKeysValidUntil']);
    assert.equal(rotated.body.previousKeysValidUntil, new Date(server.clock() + 60_000).toISOString());
    assert.equal((await merchantApi(server, rotated.body).get('/balance')).status, 200);
    assert.equal((await merchantApi(server, keys).get('/balance')).status, 200);
    server.clock.advance(60_000);
    assert.equal((await merchantApi(server, keys).get('/balance')).status, 401);
    for (const path of ['/session', '/settings', '/balance', '/payments', '/webhooks']) {
      const text = JSON.stringify((await browser.get(path)).body);
      assert.ok(!text.includes(rotated.body.apiKey) && !text.includes(rotated.body.secretKey) && !text.includes(keys.secretKey), path);
    }
    const bad = await browser.request('POST', '/keys/rotate', { body: { graceSeconds: -1 } });
    assert.deepEqual(bad.body, { error: { code: 'validation-failed', message: 'The request has invalid fields: graceSeconds.', details: [{ path: 'graceSeconds', message: 'must be at least 0' }] } });
  });

  test('settings change the shop\'s profile everywhere it shows, cached records and the payer\'s view included', async () => {
    const shopKeys = await server.createMerchant('Before Rename');
    const client = merchantApi(server, shopKeys);
    const { password } = await createUser(server, shopKeys.merchant.id, 'owner@rename.example', 'owner');
    const browser = dashboardClient(server);
    await browser.signIn('owner@rename.example', password);
    const payment = await newPayment({}, client);
    assert.equal((await client.get(`/payment/${payment.id}`)).body.merchant.name, 'Before Rename');
    assert.equal((await fetch(`${server.api}/checkout/${payment.id}`).then((r) => r.json() as Promise<any>)).merchant.name, 'Before Rename');
    const profile = { name: 'After Rename', email: 'new@rename.example', siteUrl: 'https://rename.example', logoUrl: null };
    const updated = await browser.request('PUT', '/settings', { body: profile });
    assert.deepEqual([updated.status, updated.body], [200, { id: shopKeys.merchant.id, ...profile }]);
    assert.deepEqual((await client.get(`/payment/${payment.id}`)).body.merchant, { id: shopKeys.merchant.id, ...profile });
    assert.deepEqual((await fetch(`${server.api}/checkout/${payment.id}`).then((r) => r.json() as Promise<any>)).merchant, { name: 'After Rename', siteUrl: 'https://rename.example', logoUrl: null });
    assert.deepEqual((await browser.get('/settings')).body, { id: shopKeys.merchant.id, ...profile });
    const bad = await browser.request('PUT', '/settings', { body: { name: '', email: 'nope', siteUrl: 'javascript:alert(1)', logoUrl: null } });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.error.details.map((d: { path: string }) => d.path), ['name', 'email', 'siteUrl']);
    // A field left out is "required", whatever its format would be.
    const partial = await browser.request('PUT', '/settings', { body: { name: 'X', siteUrl: null, logoUrl: null } });
    assert.deepEqual(partial.body.error.details, [{ path: 'email', message: 'is required' }]);
    // A logo the payer's page would block is named with the rest, not after them.
    const all = await browser.request('PUT', '/settings', { body: { name: '', email: 'nope', siteUrl: 'javascript:alert(1)', logoUrl: 'http://other.example/logo.png' } });
    assert.deepEqual(all.body.error.details.map((d: { path: string }) => d.path), ['name', 'email', 'siteUrl', 'logoUrl']);
    // A logo the payer's page would block (plain http elsewhere) is refused; https, or this service's own, is kept.
    const blocked = await browser.request('PUT', '/settings', { body: { ...profile, logoUrl: 'http://other.example/logo.png' } });
    assert.equal(blocked.status, 400);
    assert.deepEqual(blocked.body.error.details, [{ path: 'logoUrl', message: `must be an https:// URL (or on this service, ${new URL(server.url).origin}): the payer's page shows images only from those` }]);
    for (const logoUrl of ['https://cdn.example/logo.png', `${server.url}/logos/BTC.svg`]) {
      assert.equal((await browser.request('PUT', '/settings', { body: { ...profile, logoUrl } })).status, 200, logoUrl);
    }
    assert.equal((await browser.get('/settings')).body.logoUrl, `${server.url}/logos/BTC.svg`);
    // A plain-http logo saved before the rule does not block editing the rest of the profile.
    await server.services.uow.transaction((stores) => stores.merchants.updateProfile({ id: shopKeys.merchant.id, ...profile, logoUrl: 'http://old.example/logo.png' }));
    const renamed = await browser.request('PUT', '/settings', { body: { ...profile, name: 'Renamed Again', logoUrl: 'http://old.example/logo.png' } });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
  });
});

describe('the payments report', () => {
  test('one row per transaction, RFC 4180 quoting, formula cells neutralised, only the range asked for', async () => {
    const reporter = await server.createMerchant('Report Shop');
    const client = merchantApi(server, reporter);
    const { password } = await createUser(server, reporter.merchant.id, 'owner@report.example', 'owner');
    const browser = dashboardClient(server);
    await browser.signIn('owner@report.example', password);
    const before = await newPayment({ invoice: 'too early' }, client);
    server.clock.advance(1000);
    const from = new Date(server.clock()).toISOString();
    const quoted = await newPayment({ invoice: 'say "hi", then leave' }, client);
    server.clock.advance(1000);
    const formula = await newPayment({ invoice: '=HYPERLINK("http://evil.example")' }, client);
    const first = await pay(formula.addressTo, '0.2', 1);
    const second = await pay(formula.addressTo, '0.4', 0);
    server.clock.advance(1000);
    const to = new Date(server.clock()).toISOString();
    await newPayment({ invoice: 'too late' }, client);
    const viaDashboard = await browser.get(`/reports/payments.csv?from=${from}&to=${to}`);
    assert.equal(viaDashboard.status, 200);
    assert.equal(viaDashboard.headers.get('content-type'), 'text/csv; charset=utf-8; header=present');
    assert.equal(viaDashboard.headers.get('content-disposition'), `attachment; filename="payments-${from.slice(0, 10)}-${to.slice(0, 10)}.csv"`);
    const seen = (txnId: string) => server.services.db.get<{ seen_at: number }>('SELECT seen_at FROM payment_transactions WHERE txn_id = ?', [txnId]);
    const firstAt = new Date(Number((await seen(first.txnId))!.seen_at)).toISOString();
    const secondAt = new Date(Number((await seen(second.txnId))!.seen_at)).toISOString();
    assert.equal(
      viaDashboard.body,
      'paymentId,invoice,status,exception,asset,network,amount,priceAmount,priceCurrency,rate,txnId,receivedAmount,confirmations,date,late,createdAt\r\n' +
        `${quoted.id},"say ""hi"", then leave",OPEN,,BTC,bitcoin,0.50000000,,,,,,,,,${quoted.createdAt}\r\n` +
        `${formula.id},"'=HYPERLINK(""http://evil.example"")",CONFIRMING,OVERPAID,BTC,bitcoin,0.50000000,,,,${first.txnId},0.20000000,1,${firstAt},false,${formula.createdAt}\r\n` +
        `${formula.id},"'=HYPERLINK(""http://evil.example"")",CONFIRMING,OVERPAID,BTC,bitcoin,0.50000000,,,,${second.txnId},0.40000000,0,${secondAt},false,${formula.createdAt}\r\n`,
    );
    const viaApi = await fetch(`${server.api}/reports/payments.csv?from=${from}&to=${to}`, { headers: { 'API-KEY': reporter.apiKey } });
    assert.equal(await viaApi.text(), viaDashboard.body);
    assert.ok(!viaDashboard.body.includes(before.id));
    const backwards = await browser.get(`/reports/payments.csv?from=${to}&to=${from}`);
    assert.deepEqual([backwards.status, backwards.body], [400, { error: { code: 'validation-failed', message: 'The request has invalid fields: to.', details: [{ path: 'to', message: 'must be later than from' }] } }]);
  });

  test('takes a range with an offset, and names the file by the days it covers as written', async () => {
    const { password } = await createUser(server, shop.merchant.id, 'days@report.example', 'viewer');
    const browser = dashboardClient(server);
    await browser.signIn('days@report.example', password);
    const fileOf = async (from: string, to: string) => {
      const response = await browser.get(`/reports/payments.csv?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.headers.get('content-disposition');
    };
    // November in Auckland's local days (UTC+13): begins on 31 October in UTC, ends at the start of 1 December.
    assert.equal(await fileOf('2026-11-01T00:00:00+13:00', '2026-12-01T00:00:00+13:00'), 'attachment; filename="payments-2026-11-01-2026-11-30.csv"');
    assert.equal(await fileOf('2026-11-01T00:00:00-05:00', '2026-11-02T00:00:00-05:00'), 'attachment; filename="payments-2026-11-01-2026-11-01.csv"');
    assert.equal(await fileOf('2026-11-01T00:00:00Z', '2026-12-01T00:00:00Z'), 'attachment; filename="payments-2026-11-01-2026-11-30.csv"');
    assert.equal(await fileOf('2026-11-01T00:00:00Z', '2026-11-30T12:00:00.000Z'), 'attachment; filename="payments-2026-11-01-2026-11-30.csv"');
    const bad = await browser.get('/reports/payments.csv?from=2026-11-01&to=2026-12-01T00:00:00Z');
    assert.deepEqual([bad.status, bad.body], [
      400,
      { error: { code: 'validation-failed', message: 'The request has invalid fields: from.', details: [{ path: 'from', message: 'must be an ISO 8601 time such as 2026-11-01T00:00:00Z or 2026-11-01T00:00:00+01:00' }] } },
    ]);
    // Left out, or with an offset's "+" sent unencoded (a URL reads it as a space): said so.
    const missing = await browser.get('/reports/payments.csv?to=2026-12-01T00:00:00Z');
    assert.deepEqual(missing.body.error.details, [{ path: 'from', message: 'is required' }]);
    const plus = await browser.get('/reports/payments.csv?from=2026-11-01T00:00:00+13:00&to=2026-12-01T00:00:00Z');
    assert.deepEqual(plus.body.error.details, [{ path: 'from', message: 'has a space where its offset\'s "+" should be: send "+" as %2B in a URL' }]);
    // A date and time with a space between them is a wrong format, not a lost "+".
    const spaced = await browser.get(`/reports/payments.csv?from=${encodeURIComponent('2026-11-01 00:00')}&to=2026-12-01T00:00:00Z`);
    assert.deepEqual(spaced.body.error.details, [{ path: 'from', message: 'must be an ISO 8601 time such as 2026-11-01T00:00:00Z or 2026-11-01T00:00:00+01:00' }]);
  });

  test('reads a long range a batch at a time, in order', async () => {
    const busy = await server.createMerchant('Busy Shop');
    const client = merchantApi(server, busy);
    const from = new Date(server.clock()).toISOString();
    const created: string[] = [];
    for (let i = 0; i < 1203; i++) {
      created.push((await newPayment({ invoice: `busy-${i}` }, client)).id);
      if (i % 400 === 0) server.clock.advance(1);
    }
    server.clock.advance(1);
    const text = await fetch(`${server.api}/reports/payments.csv?from=${from}&to=${new Date(server.clock()).toISOString()}`, { headers: { 'API-KEY': busy.apiKey } }).then((r) => r.text());
    const rows = text.trimEnd().split('\r\n').slice(1).map((line) => line.split(',')[0]);
    assert.equal(rows.length, 1203);
    assert.deepEqual(new Set(rows), new Set(created));
  });
});

describe('the page and the live feed', () => {
  test('an address with no page is a 404 with the app, also for a request line in absolute form', async () => {
    assert.equal((await fetch(`${server.url}/dashboard/nosuchpage`)).status, 404);
    assert.equal((await fetch(`${server.url}/dashboard`)).status, 200);
    // A raw request line naming scheme, host and a port out of range: answered, never a 500.
    const port = new URL(server.url).port;
    for (const [target, status] of [['http://x:99999/dashboard/payments', 200], ['http://x:99999/dashboard/nosuchpage', 404]] as const) {
      const head = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`));
        let received = '';
        socket.on('data', (chunk) => (received += chunk.toString('latin1')));
        socket.on('end', () => resolve(received.split('\r\n')[0]!));
        socket.on('error', reject);
      });
      assert.match(head, new RegExp(`^HTTP/1.1 ${status} `), target);
    }
  });

  test('the page carries a CSP without inline scripts, and refuses framing', async () => {
    const response = await fetch(`${server.url}/dashboard/payments/anything`);
    assert.equal(response.status, 200);
    assert.equal(
      response.headers.get('content-security-policy'),
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    assert.equal(response.headers.get('x-frame-options'), 'DENY');
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.match(await response.text(), /<dashboard-app>/);
  });

  test('a merchant\'s stream names its own changed payments, never another merchant\'s', async () => {
    const controller = new AbortController();
    const response = await fetch(`${server.url}/dashboard/api/events`, { headers: { Cookie: owner.cookie()! }, signal: controller.signal });
    assert.equal(response.headers.get('content-type'), 'text/event-stream');
    const reader = response.body!.getReader();
    const foreign = await newPayment({}, merchantApi(server, other));
    const own = await newPayment();
    await pay(foreign.addressTo, '0.1', 0);
    await pay(own.addressTo, '0.1', 0);
    let received = '';
    while (!received.includes('event: payment')) received += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    assert.ok(!received.includes(foreign.id));
    assert.match(received, new RegExp(`event: payment\\ndata: \\{"id":"(${own.id})"\\}`));
  });

  test('a burst of changes costs the stream a few session checks, not one each, and loses none', async () => {
    const sessions = server.services.sessions;
    const isLive = sessions.isLive;
    let asked = 0;
    // A slow database: the changes arrive while a check runs.
    sessions.isLive = async (token) => {
      asked++;
      await new Promise((resolve) => setTimeout(resolve, 50));
      return isLive(token);
    };
    const controller = new AbortController();
    try {
      const payments = [];
      for (let i = 0; i < 8; i++) payments.push(await newPayment({ invoice: `burst-${i}` }));
      const response = await fetch(`${server.url}/dashboard/api/events`, { headers: { Cookie: owner.cookie()! }, signal: controller.signal });
      const reader = response.body!.getReader();
      assert.match(new TextDecoder().decode((await reader.read()).value), /^retry: 3000/);
      for (const payment of payments) await pay(payment.addressTo, '0.1', 0);
      let received = '';
      while (!payments.every((p) => received.includes(p.id))) received += new TextDecoder().decode((await reader.read()).value);
      const order = payments.map((p) => received.indexOf(p.id));
      assert.deepEqual(order, [...order].sort((a, b) => a - b), 'in the order they changed');
      assert.ok(asked < payments.length, `${asked} checks for ${payments.length} changes`);
    } finally {
      controller.abort();
      sessions.isLive = isLive;
    }
  });

  test('a stream ends with its session: after sign-out it carries no more ids', async () => {
    const browser = dashboardClient(server);
    const { password } = await createUser(server, shop.merchant.id, 'leaving@pages.example', 'viewer');
    assert.equal((await browser.signIn('leaving@pages.example', password)).status, 200);
    const response = await fetch(`${server.url}/dashboard/api/events`, { headers: { Cookie: browser.cookie()! }, signal: AbortSignal.timeout(5_000) });
    const reader = response.body!.getReader();
    assert.match(new TextDecoder().decode((await reader.read()).value), /^retry: 3000/);
    assert.equal((await browser.request('DELETE', '/session')).status, 204);
    const later = await newPayment();
    await pay(later.addressTo, '0.1', 0);
    let received = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      received += new TextDecoder().decode(value);
    }
    assert.ok(!received.includes(later.id), received);
  });
});
