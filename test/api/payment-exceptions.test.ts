/**
 * PAYMENT_TOLERANCE_PERCENT and a payment's `exception` (contract section 17): the same on the
 * record, the list, the payer's view and the webhook payload, from exact sums.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { ConfigError, loadConfig } from '../../api/config.ts';
import { getJson, merchantApi, postJson, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const NOW = Date.parse('2026-11-21T10:15:30.123Z');
const BTC = { short: 'BTC', network: 'bitcoin' };

let server: TestServer;
let receiver: WebhookReceiver;
let api: ReturnType<typeof merchantApi>;
let secret: string;
let invoice = 0;
const SHOP = 'Exceptions Shop';

before(async () => {
  server = await startTestServer({ env: { PAYMENT_TOLERANCE_PERCENT: '1' } });
  server.clock.set(NOW);
  receiver = await startWebhookReceiver();
  api = merchantApi(server, await server.createMerchant('Exceptions Shop'));
  const endpoint = await api.post('/webhooks', { url: `${receiver.url}/hook`, events: ['payment.overpaid', 'payment.paid-late', 'payment.completed'] });
  assert.equal(endpoint.status, 200);
  secret = endpoint.body.secret;
});

after(async () => {
  await server.close();
  await receiver.close();
});

async function newPayment(amount = '1') {
  const response = await api.post('/payment', { amount, asset: BTC, invoice: `exc-${++invoice}`, timeout: 600 });
  assert.equal(response.status, 200);
  return response.body as { id: string; addressTo: string };
}

async function pay(payment: { addressTo: string }, amount: string, confirmations = 0) {
  const sent = await postJson(`${server.api}/dev/transactions`, { address: payment.addressTo, amount, asset: BTC, confirmations });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
}

/** The payment as the merchant's GET, the merchant's list and the payer's view each show it. */
async function everyView(id: string) {
  const record = (await api.get(`/payment/${id}`)).body;
  const listed = (await api.get(`/payment?ids=${id}`)).body.data[0];
  const payer = (await getJson(`${server.api}/checkout/${id}`)).body;
  return { record, listed, payer };
}

function eventsOf(id: string) {
  const verifier = new Webhook(secret);
  return receiver
    .at('/hook')
    .map((r) => verifier.verify(r.body, r.headers as Record<string, string>) as { type: string; data: Record<string, any> })
    .filter((e) => e.data.id === id);
}

describe('tolerance', () => {
  test('counts 99% of the amount as paid in full under a 1% tolerance, with nothing due', async () => {
    const payment = await newPayment('1');
    await pay(payment, '0.99', 6);
    const { record, payer } = await everyView(payment.id);
    assert.equal(record.status, 'COMPLETE');
    assert.equal(record.amountDue, '0.00000000');
    assert.equal(record.exception, null);
    assert.equal(record.overpaidAmount, null);
    assert.equal(payer.status, 'COMPLETE');
    assert.equal(payer.amountDue, '0.00000000');
  });

  test('leaves a payment one satoshi short of the tolerance OPEN, owing the whole rest', async () => {
    const payment = await newPayment('1');
    await pay(payment, '0.98999999', 6);
    const { record } = await everyView(payment.id);
    assert.equal(record.status, 'OPEN');
    assert.equal(record.amountDue, '0.01000001');
    assert.equal(record.exception, null);
  });

  test('refuses a tolerance outside 0 to 10 at start-up, naming the variable', () => {
    for (const raw of ['11', '-1', 'one', '1.234']) {
      assert.throws(() => loadConfig({ PAYMENT_TOLERANCE_PERCENT: raw }), (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.equal(err.message, `PAYMENT_TOLERANCE_PERCENT must be a percentage from 0 to 10 with at most two decimals (0.5), got "${raw}"`);
        return true;
      });
    }
    assert.equal(loadConfig({}).paymentTolerancePercent, '0');
    assert.equal(loadConfig({ PAYMENT_TOLERANCE_PERCENT: '2.5' }).paymentTolerancePercent, '2.5');
  });
});

describe('exceptions', () => {
  test('OVERPAID with overpaidAmount on the record, the list, the payer view and one payment.overpaid event', async () => {
    const payment = await newPayment('1');
    await pay(payment, '0.7', 6);
    await pay(payment, '0.55', 6);
    const { record, listed, payer } = await everyView(payment.id);
    for (const view of [record, listed, payer]) {
      assert.equal(view.status, 'COMPLETE');
      assert.equal(view.exception, 'OVERPAID');
      assert.equal(view.overpaidAmount, '0.25000000');
    }
    await server.services.dispatcher.run();
    const events = eventsOf(payment.id);
    assert.deepEqual(events.map((e) => e.type), ['payment.completed', 'payment.overpaid']);
    assert.equal(events[1]!.data.exception, 'OVERPAID');
    assert.equal(events[1]!.data.overpaidAmount, '0.25000000');
  });

  test('the payer page of an OVERPAID payment says how much more arrived and that the shop can refund it', async () => {
    const payment = await newPayment('1');
    await pay(payment, '1.25', 6);
    const status = async (lang: string) => /<div class="pay-status">(.*?)<\/div>/s.exec(await (await fetch(`${server.url}/pay?id=${payment.id}&lang=${lang}`)).text())?.[1];
    assert.equal(await status('en'), `<h2>Payment complete</h2><p>${SHOP} has received 1.25 BTC. Thank you! You sent 0.25 BTC more than was asked for; ${SHOP} can refund the difference to you.</p>`);
    assert.equal(await status('de'), `<h2>Zahlung abgeschlossen</h2><p>${SHOP} hat 1,25 BTC erhalten. Vielen Dank! Sie haben 0,25 BTC mehr als verlangt gesendet; ${SHOP} kann Ihnen die Differenz erstatten.</p>`);
    const exact = await newPayment('1');
    await pay(exact, '1', 6);
    assert.doesNotMatch((await (await fetch(`${server.url}/pay?id=${exact.id}`)).text()), /more than was asked/);
  });

  test('once the shop refunds an OVERPAID payment, its payer page says the refund is on its way, then sent', async () => {
    const payment = await newPayment('1');
    await pay(payment, '1.25', 6);
    const status = async (lang: string) => /<div class="pay-status">(.*?)<\/div>/s.exec(await (await fetch(`${server.url}/pay?id=${payment.id}&lang=${lang}`)).text())?.[1];
    const payerRefund = async () => (await everyView(payment.id)).payer.refund;
    // One waiting for the payer's address is not on its way yet: the page still offers it.
    const unclaimed = await api.post(`/payment/${payment.id}/refund`, {});
    assert.equal(unclaimed.status, 200, JSON.stringify(unclaimed.body));
    assert.equal(unclaimed.body.status, 'AWAITING_ADDRESS');
    assert.equal(await payerRefund(), null);
    assert.match((await status('en'))!, /can refund the difference to you/);
    assert.equal((await api.post(`/refund/${unclaimed.body.id}/cancel`, {})).status, 200);
    // Made with the payer's address: paid out at once, complete once its transaction confirms.
    const refund = await api.post(`/payment/${payment.id}/refund`, { addressTo: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4' });
    assert.equal(refund.status, 200, JSON.stringify(refund.body));
    assert.deepEqual(await payerRefund(), { amount: '0.25000000', sent: false });
    assert.equal(await status('en'), `<h2>Payment complete</h2><p>${SHOP} has received 1.25 BTC. Thank you! ${SHOP} is refunding 0.25 BTC to you (less the network fee).</p>`);
    await postJson(`${server.api}/dev/blocks`, { network: 'bitcoin', count: 6 });
    assert.equal((await api.get(`/refund/${refund.body.id}`)).body.status, 'COMPLETE');
    assert.deepEqual(await payerRefund(), { amount: '0.25000000', sent: true });
    assert.equal(await status('en'), `<h2>Payment complete</h2><p>${SHOP} has received 1.25 BTC. Thank you! ${SHOP} has refunded 0.25 BTC to you (less the network fee).</p>`);
    assert.equal(await status('de'), `<h2>Zahlung abgeschlossen</h2><p>${SHOP} hat 1,25 BTC erhalten. Vielen Dank! ${SHOP} hat Ihnen 0,25 BTC erstattet (abzüglich der Netzwerkgebühr).</p>`);
  });

  test('UNDERPAID once expired with too little, before and after the sweep stores it', async () => {
    const payment = await newPayment('1');
    await pay(payment, '0.4', 6);
    assert.equal((await everyView(payment.id)).record.exception, null);
    server.clock.advance(600_000);
    const unswept = await everyView(payment.id);
    for (const view of [unswept.record, unswept.listed, unswept.payer]) {
      assert.equal(view.status, 'EXPIRED');
      assert.equal(view.exception, 'UNDERPAID');
      assert.equal(view.overpaidAmount, null);
    }
    await server.services.expirySweep.run();
    assert.equal((await everyView(payment.id)).record.exception, 'UNDERPAID');
    server.clock.set(NOW);
  });

  test('PAID_LATE for a transaction first seen after expiry, announced once', async () => {
    const payment = await newPayment('1');
    server.clock.advance(600_000);
    await server.services.expirySweep.run();
    await pay(payment, '1', 1);
    await pay(payment, '0.1', 1);
    const { record, listed, payer } = await everyView(payment.id);
    for (const view of [record, listed, payer]) {
      assert.equal(view.status, 'EXPIRED');
      assert.equal(view.exception, 'PAID_LATE');
    }
    await server.services.dispatcher.run();
    assert.deepEqual(eventsOf(payment.id).map((e) => [e.type, e.data.exception]), [['payment.paid-late', 'PAID_LATE']]);
    server.clock.set(NOW);
  });

  test('an exactly paid payment has no exception', async () => {
    const payment = await newPayment('0.5');
    await pay(payment, '0.5', 6);
    const { record, payer } = await everyView(payment.id);
    assert.equal(record.exception, null);
    assert.equal(payer.exception, null);
    assert.equal(payer.overpaidAmount, null);
  });
});
