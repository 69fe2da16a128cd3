/**
 * E-mail (contract section 17) against a real SMTP server on loopback (the smtp-server package):
 * the payer's receipt and claim links, the merchant's refund request notice, each with a plain-text
 * part, sent once; a server that is down delays mail and never a request.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../api/config.ts';
import { MAIL_RETRY_MS, MAX_MAIL_ATTEMPTS } from '../../api/notifications/mail-sender.ts';
import { merchantApi, postJson, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { rateEnv, type SourceServer, startSourceServer } from '../helpers/rate-source-servers.ts';
import { partOf, type SmtpReceiver, startSmtpReceiver } from '../helpers/smtp-receiver.ts';

const NOW = Date.parse('2026-11-21T10:15:30.123Z');
const ETH = { short: 'ETH', network: 'ethereum' };
const ETH_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

let smtp: SmtpReceiver;
let sources: SourceServer[];
let server: TestServer;
let api: ReturnType<typeof merchantApi>;

before(async () => {
  smtp = await startSmtpReceiver();
  // Loopback rate sources, for the receipt of a payment priced in a fiat currency.
  sources = [await startSourceServer('coinbase', { 'ETH/USD': '2000' }), await startSourceServer('kraken', { 'ETH/USD': '2000' })];
  server = await startTestServer({ env: { ...rateEnv(sources), SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, SMTP_FROM: 'Checkout <checkout@pay.example>' } });
  server.clock.set(NOW);
  api = merchantApi(server, await server.createMerchant('Mail Shop'));
});

after(async () => {
  await server.close();
  await smtp.stop();
  for (const source of sources) await source.close();
});

const sendMail = () => server.services.mail!.run();

async function payment(amount: string, received: string, email = 'payer@example.com') {
  const created = await api.post('/payment', { amount, asset: ETH, timeout: 600, customer: { email } });
  assert.equal(created.status, 200);
  const sent = await postJson(`${server.api}/dev/transactions`, { address: created.body.addressTo, amount: received, asset: ETH, confirmations: 50 });
  assert.equal(sent.status, 200);
  return created.body as { id: string };
}

describe('mail', () => {
  test('the payer gets the receipt link once when a payment completes, with its invoice, amount and date, in the language chosen on its page, with a text part', async () => {
    const created = await api.post('/payment', { amount: '1', asset: ETH, timeout: 600, invoice: 'order-7', customer: { email: 'ana@example.com' } });
    assert.equal((await fetch(`${server.url}/pay?id=${created.body.id}&lang=es`)).status, 200);
    await postJson(`${server.api}/dev/transactions`, { address: created.body.addressTo, amount: '1', asset: ETH, confirmations: 50 });
    assert.equal(await sendMail(), 1);
    assert.equal(await sendMail(), 0);
    const mail = smtp.received.filter((m) => m.to.includes('ana@example.com'));
    assert.equal(mail.length, 1);
    assert.equal(mail[0]!.from, 'checkout@pay.example');
    assert.match(mail[0]!.raw, /^Subject: Tu recibo de Mail Shop\r$/m);
    assert.match(mail[0]!.raw, /multipart\/alternative/);
    assert.equal(
      partOf(mail[0]!.raw, 'text/plain'),
      `Gracias por tu pago a Mail Shop.\r\n\r\nTu recibo: ${server.url}/receipt?id=${created.body.id}\r\n\r\nFactura: order-7\r\nImporte: 1 ETH\r\nFecha: 21 nov 2026, 10:15 UTC\r\n`,
    );
    assert.match(partOf(mail[0]!.raw, 'text/html')!, new RegExp(`<a href="${server.url}/receipt\\?id=${created.body.id}">`));
    assert.match(partOf(mail[0]!.raw, 'text/html')!, /<p>Factura: order-7<br>Importe: 1 ETH<br>Fecha: 21 nov 2026, 10:15 UTC<\/p>/);
    assert.match(partOf(mail[0]!.raw, 'text/html')!, /^<!doctype html><html lang="es" dir="ltr">/);
  });

  test('the receipt mail punctuates its facts as its language does: " : " in French, a full-width colon in Japanese', async () => {
    for (const [lang, email, facts] of [
      ['fr', 'fleur@example.com', 'Facture : order-fr\r\nMontant : 1 ETH\r\n'],
      ['ja', 'haru@example.com', '請求書番号：order-ja\r\n金額：1 ETH\r\n'],
    ] as const) {
      const created = await api.post('/payment', { amount: '1', asset: ETH, timeout: 600, invoice: `order-${lang}`, customer: { email } });
      assert.equal((await fetch(`${server.url}/pay?id=${created.body.id}&lang=${lang}`)).status, 200);
      await postJson(`${server.api}/dev/transactions`, { address: created.body.addressTo, amount: '1', asset: ETH, confirmations: 50 });
      assert.equal(await sendMail(), 1);
      const text = partOf(smtp.received.find((m) => m.to.includes(email))!.raw, 'text/plain')!;
      assert.ok(text.includes(`\r\n\r\n${facts}`), text);
    }
  });

  test('the receipt mail of a payment priced in fiat names its price beside the amount; only the service\'s own link is clickable', async () => {
    const created = await api.post('/payment', { price: { amount: '1000', currency: 'USD' }, asset: ETH, timeout: 600, invoice: 'https://shop.example/o/9', customer: { email: 'dee@example.com' } });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    await postJson(`${server.api}/dev/transactions`, { address: created.body.addressTo, amount: '0.5', asset: ETH, confirmations: 50 });
    assert.equal(await sendMail(), 1);
    const mail = smtp.received.filter((m) => m.to.includes('dee@example.com'));
    assert.equal(mail.length, 1);
    assert.equal(
      partOf(mail[0]!.raw, 'text/plain'),
      `Thank you for your payment to Mail Shop.\r\n\r\nYour receipt: ${server.url}/receipt?id=${created.body.id}\r\n\r\nInvoice: https://shop.example/o/9\r\nAmount: 0.5 ETH ($1,000.00)\r\nDate: Nov 21, 2026, 10:15 AM UTC\r\n`,
    );
    // Only the service's own link is made clickable: an invoice that is an address stays text.
    const htmlPart = partOf(mail[0]!.raw, 'text/html')!;
    assert.match(htmlPart, /<p>Invoice: https:\/\/shop\.example\/o\/9<br>Amount:/);
    assert.match(htmlPart, new RegExp(`<a href="${server.url}/receipt\\?id=${created.body.id}">`));
  });

  test('the payer gets the claim link of a refund awaiting their address; the merchant gets a payer\'s request', async () => {
    const overpaid = await payment('1', '1.2', 'bo@example.com');
    const refund = (await api.post(`/payment/${overpaid.id}/refund`, {})).body;
    const underpaid = await payment('1', '0.5', 'cy@example.com');
    server.clock.advance(600_000);
    await server.services.refundClaims.request(underpaid.id, { addressTo: ETH_ADDRESS });
    // The overpaid payment's receipt, its refund's claim link, the merchant's notice.
    assert.equal(await sendMail(), 3);
    server.clock.set(NOW);
    const claim = smtp.received.find((m) => m.to.includes('bo@example.com') && m.raw.includes('refund'));
    assert.ok(claim, 'claim mail');
    assert.match(claim.raw, /^Subject: Mail Shop is sending you a refund\r$/m);
    assert.equal(partOf(claim.raw, 'text/plain'), `Mail Shop is refunding 0.2 ETH to you.\r\n\r\nTell us where to send it: ${refund.claimUrl}\r\n\r\nThis link is personal: do not share it.\r\n`);
    // Once sent, the outbox keeps no body: the claim link is a bearer credential.
    const kept = await server.services.db.all<{ text_body: string; html_body: string }>('SELECT text_body, html_body FROM mail_outbox WHERE sent_at IS NOT NULL');
    assert.ok(kept.length >= 3);
    assert.deepEqual([...new Set(kept.flatMap((row) => [row.text_body, row.html_body]))], ['']);
    const request = smtp.received.find((m) => m.to.includes('owner@shop.example'));
    assert.ok(request, 'request mail');
    assert.match(request.raw, /^Subject: Refund requested: 0.5 ETH\r$/m);
    // Where to decide: the payment's page in the dashboard, or the API.
    const requested = (await api.get(`/refund?paymentIds=${underpaid.id}`)).body.data[0];
    assert.equal(
      partOf(request.raw, 'text/plain'),
      `A payer asks for a refund of 0.5 ETH for payment ${underpaid.id}, to ${ETH_ADDRESS}.\r\n\r\nApprove or cancel it in the dashboard, on the payment's page: ${server.url}/dashboard/payments/${underpaid.id}\r\n\r\nOr through the API: POST /v2/refund/${requested.id}/approve or /cancel.\r\n`,
    );
  });

  test('a server that is down delays the mail, never the request; it goes out once the server is back', async () => {
    await smtp.stop();
    const before = smtp.received.length;
    const started = Date.now();
    const paid = await payment('1', '1', 'dee@example.com');
    // The request committed without reaching for the mail server at all.
    assert.equal((await api.get(`/payment/${paid.id}`)).body.status, 'COMPLETE');
    assert.ok(Date.now() - started < 5_000);
    assert.equal(await sendMail(), 0);
    const waiting = (await server.services.uow.stores.mail.find(`receipt:${paid.id}`))!;
    assert.equal(waiting.attempts, 1);
    assert.equal(waiting.nextAttemptAt, NOW + MAIL_RETRY_MS[0]!);
    assert.match(waiting.lastError ?? '', /ECONNREFUSED/);
    await smtp.start();
    assert.equal(await sendMail(), 0, 'not before its retry is due');
    server.clock.advance(MAIL_RETRY_MS[0]!);
    assert.equal(await sendMail(), 1);
    server.clock.set(NOW);
    assert.equal(smtp.received.length, before + 1);
    assert.ok(smtp.received.at(-1)!.to.includes('dee@example.com'));
    assert.notEqual((await server.services.uow.stores.mail.find(`receipt:${paid.id}`))!.sentAt, null);
  });

  test('a recipient the server refuses for good is given up at once, its bodies dropped; one never reached, after three days', async () => {
    smtp.refuse.set('nobody@example.com', [550, '5.1.1 No such user here']);
    // Refused at RCPT TO for the installation's settings (a relay the login may not use): retried.
    smtp.refuse.set('relayed@example.com', [554, '5.7.1 Relay access denied']);
    const relayed = await payment('1', '1', 'relayed@example.com');
    assert.equal(await sendMail(), 0);
    const waiting = (await server.services.uow.stores.mail.find(`receipt:${relayed.id}`))!;
    assert.deepEqual([waiting.attempts, waiting.nextAttemptAt], [1, NOW + MAIL_RETRY_MS[0]!]);
    assert.notEqual(waiting.textBody, '');
    smtp.refuse.delete('relayed@example.com');
    server.clock.advance(MAIL_RETRY_MS[0]!);
    assert.equal(await sendMail(), 1, 'sent once the settings are right');
    server.clock.set(NOW);
    const before = smtp.received.length;
    const bounced = await payment('1', '1', 'nobody@example.com');
    assert.equal(await sendMail(), 0);
    const given = (await server.services.uow.stores.mail.find(`receipt:${bounced.id}`))!;
    assert.deepEqual([given.attempts, given.sentAt, given.textBody, given.htmlBody], [1, null, '', '']);
    assert.match(given.lastError ?? '', /550/);
    server.clock.advance(7 * 24 * 3600_000);
    assert.equal(await sendMail(), 0, 'never tried again');
    server.clock.set(NOW);
    assert.equal(smtp.received.length, before);
    // A server that never answers: retried on the schedule, then given up after MAX_MAIL_ATTEMPTS.
    await smtp.stop();
    try {
      const unreached = await payment('1', '1', 'later@example.com');
      for (let attempt = 1; attempt <= MAX_MAIL_ATTEMPTS; attempt++) {
        await sendMail();
        server.clock.advance(MAIL_RETRY_MS.at(-1)!);
      }
      const stored = (await server.services.uow.stores.mail.find(`receipt:${unreached.id}`))!;
      assert.deepEqual([stored.attempts, stored.textBody], [MAX_MAIL_ATTEMPTS, '']);
      assert.equal(await sendMail(), 0);
    } finally {
      server.clock.set(NOW);
      await smtp.start();
    }
  });

  test('reads SMTP_URL and SMTP_FROM, refusing what cannot be used', () => {
    assert.equal(loadConfig({}).smtpUrl, undefined);
    assert.equal(loadConfig({ PUBLIC_URL: 'https://pay.shop.example' }).smtpFrom, 'checkout@pay.shop.example');
    assert.throws(() => loadConfig({ SMTP_URL: 'http://mail.example' }), new ConfigError('SMTP_URL must start with smtp:// or smtps://, got "http://…"'));
    for (const typed of ['localhost:25', 'user:secret@mail.example:587']) {
      assert.throws(
        () => loadConfig({ SMTP_URL: typed }),
        new ConfigError('SMTP_URL must start with smtp:// or smtps://, got a value without "//" (write smtp://host:port, or smtp://user:password@host:port)'),
        typed,
      );
    }
    assert.throws(
      () => loadConfig({ SMTP_FROM: 'not an address' }),
      new ConfigError('SMTP_FROM must be an e-mail address (payments@shop.example) or a name and one (Shop <payments@shop.example>), got "not an address"'),
    );
  });
});
