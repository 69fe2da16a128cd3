/**
 * The payer's server-rendered refund, request and receipt pages (contract section 17): escaped by
 * construction, no inline script, in the payer's language, with the claim link usable once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { rateEnv, type SourceServer, startSourceServer } from '../helpers/rate-source-servers.ts';
import { merchantApi, postJson, startTestServer, type TestServer } from '../helpers/test-server.ts';

const NOW = Date.parse('2026-11-21T10:15:30.123Z');
const ETH = { short: 'ETH', network: 'ethereum' };
const XRP = { short: 'XRP', network: 'ripple' };
const ETH_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const XRP_ADDRESS = 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh';

let server: TestServer;
let api: ReturnType<typeof merchantApi>;
let sources: SourceServer[];

before(async () => {
  // Loopback rate sources, for the receipt of a payment priced in a fiat currency.
  sources = [await startSourceServer('coinbase', { 'ETH/USD': '2000' }), await startSourceServer('kraken', { 'ETH/USD': '2000' })];
  server = await startTestServer({ env: rateEnv(sources) });
  server.clock.set(NOW);
  const shop = await server.createMerchant('Bob\'s <b>Shop</b>');
  api = merchantApi(server, shop);
});

after(async () => {
  await server.close();
  for (const source of sources) await source.close();
});

async function paid(amount: string, received: string, asset = ETH, lateAfterExpiry = false) {
  const created = await api.post('/payment', { amount, asset, timeout: 600, invoice: `<i>inv</i>-${Math.random()}` });
  if (lateAfterExpiry) {
    server.clock.advance(600_000);
    await server.services.expirySweep.run();
  }
  const sent = await postJson(`${server.api}/dev/transactions`, { address: created.body.addressTo, destTag: created.body.destTag ?? undefined, amount: received, asset, confirmations: 50 });
  assert.equal(sent.status, 200);
  server.clock.set(NOW);
  return created.body as { id: string };
}

const page = (path: string, headers: Record<string, string> = {}) => fetch(`${server.url}${path}`, { headers, redirect: 'manual' });
const postForm = (path: string, fields: Record<string, string>) =>
  fetch(`${server.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString(), redirect: 'manual' });

function assertPageSafety(response: Response, body: string) {
  assert.match(response.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  assert.equal(/<script(?![^>]*\ssrc="\/)/i.test(body), false, 'no inline script');
  assert.equal(body.includes('<b>Shop</b>'), false, 'the shop name is escaped');
  assert.equal(body.includes('<i>inv</i>'), false, 'the invoice is escaped');
}

describe('the claim page', () => {
  test('shows the refund, refuses a wrong token, a wrong address and a second address, and follows it after the right one', async () => {
    const payment = await paid('1', '1.5');
    const refund = (await api.post(`/payment/${payment.id}/refund`, {})).body;
    const claim = new URL(refund.claimUrl);
    const token = claim.searchParams.get('token')!;
    const wrong = await page(`/refund?id=${refund.id}&token=${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`);
    assert.equal(wrong.status, 404);
    assert.match(await wrong.text(), /This link is not valid/);

    const shown = await page(`${claim.pathname}${claim.search}`, { 'Accept-Language': 'de-DE,de;q=0.9' });
    const html = await shown.text();
    assert.equal(shown.status, 200);
    assertPageSafety(shown, html);
    assert.match(html, /<html lang="de" dir="ltr">/);
    assert.match(html, /Erstattung von Bob&#39;s &lt;b&gt;Shop&lt;\/b&gt;/);
    assert.match(html, /Wartet auf Ihre Adresse/);
    assert.match(html, /<form class="pay-form" method="post" action="\/refund">/);

    const bad = await postForm('/refund', { id: refund.id, token, lang: 'en', addressTo: XRP_ADDRESS });
    assert.equal(bad.status, 400);
    const badHtml = await bad.text();
    assert.match(badHtml, /<p class="pay-warning" role="alert" id="pay-form-error">This is not a valid Ethereum address.<\/p>/);
    assert.match(badHtml, new RegExp(`value="${XRP_ADDRESS}" aria-describedby="pay-form-error" aria-invalid="true" autofocus>`));
    // Left empty (or blank), the field asks for an address rather than calling it invalid.
    const empty = await postForm('/refund', { id: refund.id, token, lang: 'es', addressTo: '  ' });
    assert.equal(empty.status, 400);
    assert.match(await empty.text(), /<p class="pay-warning" role="alert" id="pay-form-error">Introduce tu dirección de Ethereum.<\/p>/);
    // One of the service's own receiving addresses is a valid address: the payer is told why it is refused.
    const ownAddress = (await api.post('/payment', { amount: '1', asset: ETH })).body.addressTo as string;
    const own = await postForm('/refund', { id: refund.id, token, lang: 'en', addressTo: ownAddress.toLowerCase() });
    assert.equal(own.status, 400);
    assert.match(
      await own.text(),
      /<p class="pay-warning" role="alert" id="pay-form-error">This address belongs to the payment service itself: a refund sent there would not reach you. Enter an address of your own Ethereum wallet.<\/p>/,
    );
    assert.equal((await api.get(`/refund/${refund.id}`)).body.addressTo, null);

    const good = await postForm('/refund', { id: refund.id, token, lang: 'en', addressTo: ETH_ADDRESS });
    assert.equal(good.status, 303);
    assert.equal(good.headers.get('location'), `/refund?id=${refund.id}&token=${token}&lang=en`);
    const followed = await (await page(good.headers.get('location')!)).text();
    assert.match(followed, /Approved: being sent/);
    assert.match(followed, /<script type="module" src="\/refund\/follow.js"><\/script>\n<noscript><meta http-equiv="refresh" content="10"><\/noscript>/);
    const script = await page('/refund/follow.js');
    assert.equal(script.status, 200);
    assert.match(script.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.match(followed, new RegExp(`<dt>Refund address</dt><dd><code dir="ltr">${ETH_ADDRESS}</code>`));
    assert.equal(followed.includes('<form class="pay-form"'), false);

    const again = await postForm('/refund', { id: refund.id, token, lang: 'en', addressTo: '0x0000000000000000000000000000000000000001' });
    assert.equal(again.status, 409);
    assert.match(await again.text(), /This refund already has an address; it cannot be changed./);
    assert.equal((await api.get(`/refund/${refund.id}`)).body.addressTo, ETH_ADDRESS);
  });

  test('an address sent on the link of a refund the shop cancelled is told that, not "already has an address"', async () => {
    const payment = await paid('1', '1.5');
    const refund = (await api.post(`/payment/${payment.id}/refund`, {})).body;
    const token = new URL(refund.claimUrl).searchParams.get('token')!;
    assert.equal((await api.post(`/refund/${refund.id}/cancel`, {})).status, 200);
    const late = await postForm('/refund', { id: refund.id, token, lang: 'en', addressTo: ETH_ADDRESS });
    assert.equal(late.status, 409);
    const html = await late.text();
    assert.match(html, /The shop cancelled this refund, so it takes no address. Ask the shop if you expected it./);
    assert.equal(html.includes('already has an address'), false);
    assert.equal((await api.get(`/refund/${refund.id}`)).body.addressTo, null);
  });

  test('asks for a tag on a network that routes by one', async () => {
    const payment = await paid('100', '150', XRP);
    const refund = (await api.post(`/payment/${payment.id}/refund`, {})).body;
    const token = new URL(refund.claimUrl).searchParams.get('token')!;
    assert.match(await (await page(`/refund?id=${refund.id}&token=${token}`)).text(), /<label for="pay-tag">Destination tag<\/label>/);
    const untagged = await postForm('/refund', { id: refund.id, token, addressTo: XRP_ADDRESS, destTag: '' });
    assert.equal(untagged.status, 400);
    const untaggedHtml = await untagged.text();
    assert.match(untaggedHtml, /This network needs a destination tag./);
    // The tag is what to fix: it is marked, described by the error and focused; the address is not.
    assert.match(untaggedHtml, /<input id="pay-address" name="addressTo" required autocomplete="off" spellcheck="false" dir="ltr" value="[^"]+">/);
    assert.match(untaggedHtml, /<input id="pay-tag" [^>]*aria-describedby="pay-form-error pay-tag-hint" value="" aria-invalid="true" autofocus>/);
    const tagged = await postForm('/refund', { id: refund.id, token, addressTo: XRP_ADDRESS, destTag: '12345' });
    assert.equal(tagged.status, 303);
    assert.equal((await api.get(`/refund/${refund.id}`)).body.destTag, '12345');
  });
});

describe('the payer asks for a refund', () => {
  test('from the page of an underpaid payment, once', async () => {
    const created = await api.post('/payment', { amount: '1', asset: ETH, timeout: 600 });
    await postJson(`${server.api}/dev/transactions`, { address: created.body.addressTo, amount: '0.4', asset: ETH, confirmations: 50 });
    server.clock.advance(600_000);
    const payPage = await (await page(`/pay?id=${created.body.id}`)).text();
    assert.match(payPage, new RegExp(`<a href="/refund/request\\?payment=${created.body.id}&amp;lang=en">This payment did not go through as expected: request a refund</a>`));
    const form = await page(`/refund/request?payment=${created.body.id}&lang=fr`);
    const formHtml = await form.text();
    assert.equal(form.status, 200);
    assertPageSafety(form, formHtml);
    assert.match(formHtml, /Demander un remboursement à Bob&#39;s/);
    const asked = await postForm('/refund/request', { payment: created.body.id, lang: 'fr', addressTo: ETH_ADDRESS });
    assert.equal(asked.status, 303);
    const location = asked.headers.get('location')!;
    assert.match(await (await page(location)).text(), /Demandé : en attente de la boutique/);
    // The request waits for the shop: the payment's page says so instead of offering another.
    const waiting = await (await page(`/pay?id=${created.body.id}`)).text();
    assert.match(waiting, /<p data-link="refund" class="pay-requested">A refund of this payment was already requested and waits for the shop.<\/p>/);
    assert.doesNotMatch(waiting, /href="\/refund\/request/);
    // More arriving late, still confirming, does not bring the link back while the request waits.
    await postJson(`${server.api}/dev/transactions`, { address: created.body.addressTo, amount: '0.1', asset: ETH, confirmations: 0 });
    const stillWaiting = await (await page(`/pay?id=${created.body.id}`)).text();
    assert.match(stillWaiting, /class="pay-requested">A refund of this payment was already requested/);
    assert.doesNotMatch(stillWaiting, /href="\/refund\/request/);
    const twice = await page(`/refund/request?payment=${created.body.id}`);
    assert.equal(twice.status, 409);
    assert.match(twice.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await twice.text(), /A refund of this payment was already requested and waits for the shop./);
    const again = await postForm('/refund/request', { payment: created.body.id, lang: 'en', addressTo: ETH_ADDRESS });
    assert.equal(again.status, 409);
    assert.match(await again.text(), /A refund of this payment was already requested and waits for the shop./);
    server.clock.set(NOW);
  });

  test('owed less than the network fee lets go out: a page saying there is nothing to refund, never raw JSON', async () => {
    const created = await api.post('/payment', { amount: '1', asset: ETH, timeout: 600 });
    // Less than ETH's minimum payout: a refund of it could never be sent.
    await postJson(`${server.api}/dev/transactions`, { address: created.body.addressTo, amount: '0.00000001', asset: ETH, confirmations: 50 });
    server.clock.advance(600_000);
    for (const response of [
      await page(`/refund/request?payment=${created.body.id}&lang=fr`),
      await postForm('/refund/request', { payment: created.body.id, lang: 'fr', addressTo: ETH_ADDRESS }),
    ]) {
      assert.equal(response.status, 409);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
      const text = await response.text();
      assertPageSafety(response, text);
      assert.doesNotMatch(text, /"error"/);
    }
    // Its page links to no such form, not even hidden for the page's script to show.
    const payPage = await (await page(`/pay?id=${created.body.id}`)).text();
    assert.match(payPage, /<p data-link="receipt"/);
    assert.doesNotMatch(payPage, /data-link="refund"/);
    server.clock.set(NOW);
  });

  test('expired: without JavaScript the page still reloads for half an hour, for funds seen late, then stops', async () => {
    const created = await api.post('/payment', { amount: '1', asset: ETH, timeout: 600 });
    server.clock.advance(600_000);
    const reloading = await (await page(`/pay?id=${created.body.id}`)).text();
    assert.match(reloading, /<noscript><meta http-equiv="refresh" content="30"><\/noscript>/);
    assert.match(reloading, /This page reloads every 30 seconds/);
    server.clock.advance(30 * 60_000);
    const settled = await (await page(`/pay?id=${created.body.id}`)).text();
    assert.doesNotMatch(settled, /http-equiv="refresh"|reloads every/);
    server.clock.set(NOW);
  });

  test('still confirming when it expired: the page keeps the link, since what arrived will be owed', async () => {
    const created = await api.post('/payment', { amount: '1', asset: ETH, timeout: 600 });
    await postJson(`${server.api}/dev/transactions`, { address: created.body.addressTo, amount: '0.4', asset: ETH, confirmations: 0 });
    server.clock.advance(600_000);
    await server.services.expirySweep.run();
    assert.match(await (await page(`/pay?id=${created.body.id}`)).text(), /<p data-link="refund"><a href="\/refund\/request/);
    // Followed now, the link says the funds still confirm and to come back, not that it is wrong.
    const early = await page(`/refund/request?payment=${created.body.id}&lang=en`);
    assert.equal(early.status, 409);
    const text = await early.text();
    assert.match(text, /Your funds are still being confirmed/);
    assert.match(text, /Come back to this link once it is/);
    assert.doesNotMatch(text, /nothing to refund|Check the link/);
    // Funds confirming on a payment no payer can ask a refund of (paid exactly, still confirming): nothing to come back for.
    const exact = await api.post('/payment', { amount: '1', asset: ETH, timeout: 600 });
    await postJson(`${server.api}/dev/transactions`, { address: exact.body.addressTo, amount: '1', asset: ETH, confirmations: 0 });
    const none = await (await page(`/refund/request?payment=${exact.body.id}&lang=en`)).text();
    assert.match(none, /This payment has nothing to refund/);
    assert.doesNotMatch(none, /Come back/);
    // Once they confirm, the same link shows the form.
    await postJson(`${server.api}/dev/blocks`, { network: 'ethereum', count: 50 });
    const form = await page(`/refund/request?payment=${created.body.id}&lang=en`);
    assert.equal(form.status, 200);
    assert.match(await form.text(), /<form/);
    server.clock.set(NOW);
  });

  test('refunded in full by the shop: the payment\'s page no longer offers a request, and offers it again if more arrives', async () => {
    const created = await api.post('/payment', { amount: '1', asset: ETH, timeout: 600 });
    await postJson(`${server.api}/dev/transactions`, { address: created.body.addressTo, amount: '0.4', asset: ETH, confirmations: 50 });
    server.clock.advance(600_000);
    await server.services.expirySweep.run();
    const offered = /<p data-link="refund"><a href="\/refund\/request/;
    assert.match(await (await page(`/pay?id=${created.body.id}`)).text(), offered);
    const refund = await api.post(`/payment/${created.body.id}/refund`, { addressTo: ETH_ADDRESS });
    assert.equal(refund.status, 200, JSON.stringify(refund.body));
    assert.equal(refund.body.amount, '0.40000000');
    const after = await (await page(`/pay?id=${created.body.id}`)).text();
    assert.doesNotMatch(after, /data-link="refund"/);
    // An old request link says it is refunded, not that the link is wrong.
    for (const response of [await page(`/refund/request?payment=${created.body.id}&lang=en`), await postForm('/refund/request', { payment: created.body.id, lang: 'en', addressTo: ETH_ADDRESS })]) {
      assert.equal(response.status, 409);
      const text = await response.text();
      assert.match(text, /This payment has already been refunded./);
      assert.doesNotMatch(text, /nothing to refund|Check the link/);
    }
    // A late transaction owes the payer again: while it confirms, the request page says to come back
    // (not that it is refunded); once confirmed, the link is back.
    await postJson(`${server.api}/dev/transactions`, { address: created.body.addressTo, amount: '0.3', asset: ETH, confirmations: 0 });
    const confirming = await (await page(`/refund/request?payment=${created.body.id}&lang=en`)).text();
    assert.match(confirming, /Your funds are still being confirmed/);
    assert.doesNotMatch(confirming, /already been refunded/);
    assert.match(await (await page(`/pay?id=${created.body.id}`)).text(), offered);
    await postJson(`${server.api}/dev/blocks`, { network: 'ethereum', count: 50 });
    assert.match(await (await page(`/pay?id=${created.body.id}`)).text(), offered);
    assert.equal((await page(`/refund/request?payment=${created.body.id}&lang=en`)).status, 200);
    server.clock.set(NOW);
  });

  test('refunded by the shop to an address the payer still has to give: the request link points to the shop\'s link', async () => {
    const created = await api.post('/payment', { amount: '1', asset: ETH, timeout: 600 });
    await postJson(`${server.api}/dev/transactions`, { address: created.body.addressTo, amount: '0.4', asset: ETH, confirmations: 50 });
    server.clock.advance(600_000);
    await server.services.expirySweep.run();
    const refund = await api.post(`/payment/${created.body.id}/refund`, {});
    assert.equal(refund.body.status, 'AWAITING_ADDRESS');
    assert.doesNotMatch(await (await page(`/pay?id=${created.body.id}`)).text(), /data-link="refund"/);
    for (const response of [await page(`/refund/request?payment=${created.body.id}&lang=de`), await postForm('/refund/request', { payment: created.body.id, lang: 'de', addressTo: ETH_ADDRESS })]) {
      assert.equal(response.status, 409);
      const text = await response.text();
      assertPageSafety(response, text);
      assert.match(text, /Der Shop erstattet diese Zahlung bereits\./);
      assert.match(text, /Nutzen Sie den Link, den der Shop Ihnen geschickt hat/);
      assert.doesNotMatch(text, /nichts zu erstatten/);
    }
    // Nothing was created by the form: the shop's refund is the only one.
    assert.equal((await api.get(`/refund?paymentIds=${created.body.id}`)).body.data.length, 1);
    server.clock.set(NOW);
  });
});

describe('the receipt', () => {
  test('of a COMPLETE payment, linked from its page, in the language last chosen there; 404 before', async () => {
    const created = await api.post('/payment', { amount: '1', asset: ETH, timeout: 600, invoice: '<i>inv</i>-7' });
    assert.equal((await page(`/receipt?id=${created.body.id}`)).status, 404);
    assert.equal((await page(`/pay?id=${created.body.id}&lang=ja`)).status, 200);
    await postJson(`${server.api}/dev/transactions`, { address: created.body.addressTo, amount: '1', asset: ETH, confirmations: 50 });
    const payPage = await (await page(`/pay?id=${created.body.id}`)).text();
    assert.match(payPage, new RegExp(`<a href="/receipt\\?id=${created.body.id}&amp;lang=en">View your receipt</a>`));
    const receipt = await page(`/receipt?id=${created.body.id}`);
    const html = await receipt.text();
    assert.equal(receipt.status, 200);
    assertPageSafety(receipt, html);
    assert.match(html, /<html lang="ja" dir="ltr">/);
    assert.match(html, /Bob&#39;s &lt;b&gt;Shop&lt;\/b&gt; の領収書/);
    assert.match(html, /&lt;i&gt;inv&lt;\/i&gt;-7/);
    assert.equal((await page(`/receipt?id=${created.body.id}&lang=ar`)).status, 200);
    assert.match(await (await page(`/receipt?id=${created.body.id}&lang=ar`)).text(), /<html lang="ar" dir="rtl">/);
    assert.equal((await page('/receipt?id=not-a-payment')).status, 404);
  });

  test('of an expired payment paid late says first that it expired and what arrived after, in the payer\'s language', async () => {
    const late = await paid('1', '0.4', ETH, true);
    const record = (await api.get(`/payment/${late.id}`)).body;
    assert.deepEqual({ status: record.status, exception: record.exception }, { status: 'EXPIRED', exception: 'PAID_LATE' });
    const facts = async (lang: string) => /<dl class="pay-facts"><div class="pay-fact">(.*?)<\/div>/s.exec(await (await page(`/receipt?id=${late.id}&lang=${lang}`)).text())?.[1];
    assert.equal(await facts('en'), '<dt>Status</dt><dd><strong id="receipt-expired">Payment expired</strong>: 0.4 ETH arrived after it expired</dd>');
    assert.match((await facts('de'))!, /^<dt>Status<\/dt><dd><strong id="receipt-expired">Zahlung abgelaufen<\/strong>: /);
    // Some in time and some late: each said as it came.
    const both = await api.post('/payment', { amount: '1', asset: ETH, timeout: 600 });
    await postJson(`${server.api}/dev/transactions`, { address: both.body.addressTo, amount: '0.6', asset: ETH, confirmations: 50 });
    server.clock.advance(600_000);
    await server.services.expirySweep.run();
    await postJson(`${server.api}/dev/transactions`, { address: both.body.addressTo, amount: '0.3', asset: ETH, confirmations: 50 });
    server.clock.set(NOW);
    const bothFacts = /<dl class="pay-facts"><div class="pay-fact">(.*?)<\/div>/s.exec(await (await page(`/receipt?id=${both.body.id}&lang=en`)).text())?.[1];
    assert.equal(bothFacts, '<dt>Status</dt><dd><strong id="receipt-expired">Payment expired</strong>: 0.6 ETH arrived in time and 0.3 ETH arrived after it expired</dd>');
    // A payment paid on time has no such line.
    const onTime = await paid('1', '1');
    assert.doesNotMatch(await (await page(`/receipt?id=${onTime.id}`)).text(), /receipt-expired/);
  });

  test('of a payment priced in fiat: the price beside the amount, and the locked rate with its sources and time, in the payer\'s locale', async () => {
    const created = await api.post('/payment', { price: { amount: '1000', currency: 'USD' }, asset: ETH, timeout: 600, invoice: 'fiat-receipt' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.deepEqual({ amount: created.body.amount, price: created.body.price, rate: created.body.rate }, {
      amount: '0.50000000',
      price: { amount: '1000', currency: 'USD' },
      rate: { value: '2000', currency: 'USD', sources: ['coinbase', 'kraken'], at: new Date(NOW).toISOString() },
    });
    await postJson(`${server.api}/dev/transactions`, { address: created.body.addressTo, amount: '0.5', asset: ETH, confirmations: 50 });
    const facts = async (lang: string) => /<dl class="pay-facts">(.*?)<\/dl>/s.exec(await (await page(`/receipt?id=${created.body.id}&lang=${lang}`)).text())?.[1];
    assert.equal(
      await facts('en'),
      '<div class="pay-fact"><dt>Invoice</dt><dd><bdi dir="ltr">fiat-receipt</bdi></dd></div>' +
        '<div class="pay-fact"><dt>Amount</dt><dd><strong dir="ltr">0.5 ETH</strong> <span class="pay-price">$1,000.00</span></dd></div>' +
        '<div class="pay-fact"><dt>Exchange rate</dt><dd><span dir="ltr">1 ETH = $2,000.00</span><br><span class="pay-small">quoted by coinbase and kraken at Nov 21, 2026, 10:15 AM UTC</span></dd></div>' +
        '<div class="pay-fact"><dt>Total received</dt><dd><span dir="ltr">0.5 ETH</span></dd></div>',
    );
    // German puts the currency after the number, behind a no-break space (U+00A0).
    assert.equal(
      await facts('de'),
      '<div class="pay-fact"><dt>Rechnung</dt><dd><bdi dir="ltr">fiat-receipt</bdi></dd></div>' +
        '<div class="pay-fact"><dt>Betrag</dt><dd><strong dir="ltr">0,5 ETH</strong> <span class="pay-price">1.000,00\u00a0$</span></dd></div>' +
        '<div class="pay-fact"><dt>Wechselkurs</dt><dd><span dir="ltr">1 ETH = 2.000,00\u00a0$</span><br><span class="pay-small">laut coinbase und kraken, Stand 21.11.2026, 10:15 UTC</span></dd></div>' +
        '<div class="pay-fact"><dt>Insgesamt erhalten</dt><dd><span dir="ltr">0,5 ETH</span></dd></div>',
    );
  });
});

describe('the payment page', () => {
  test("offers an 'Open in wallet' link on every network whose payment URI a wallet opens, Monero's too", async () => {
    for (const asset of [ETH, { short: 'BTC', network: 'bitcoin' }, { short: 'XMR', network: 'monero' }]) {
      const created = (await api.post('/payment', { amount: '1', asset, timeout: 600 })).body as { id: string; paymentUri: string };
      const body = await (await page(`/pay?id=${created.id}`)).text();
      const href = created.paymentUri.replaceAll('&', '&amp;');
      assert.ok(body.includes(`<a class="pay-button" href="${href}">`), `${asset.short}: ${created.paymentUri}`);
    }
  });
});
