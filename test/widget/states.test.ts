/** Every state <crypto-checkout> can show, each checked with axe (light and dark palettes). */
import { expect, fixture, fixtureCleanup, html } from '@open-wc/testing';
import type { CheckoutView } from '../../widget/checkout-view.ts';
import {
  $,
  $$,
  BTC_ADDRESS,
  completeView,
  confirmingView,
  expiredView,
  type FakeNetwork,
  fakeNetwork,
  notFoundResponse,
  openView,
  partialView,
  partText,
  renderCheckout,
  renderLoaded,
  text,
  until,
  viewResponse,
  xrpView,
} from './support.ts';

describe('<crypto-checkout> states', () => {
  let network: FakeNetwork | undefined;
  afterEach(() => network?.restore());

  function serve(view: CheckoutView): void {
    network = fakeNetwork(() => viewResponse(view));
  }

  it('open: shows merchant, amount with asset, QR, wallet link, address and time left', async () => {
    serve(openView());
    const el = await renderLoaded();

    expect(text($(el, '.merchant'))).to.equal('Demo Store Invoice INV-1042');
    expect(partText(el, 'status')).to.contain('Waiting for payment').and.contain('Send exactly 0.01 BTC on the Bitcoin network');
    expect(partText(el, 'amount')).to.contain('Amount to pay 0.01 BTC Bitcoin on the Bitcoin network');
    expect($(el, '[part~="amount"] img').getAttribute('src')).to.match(/^data:image\/svg/);
    expect($(el, '[part~="qr-code"] svg').getAttribute('aria-label')).to.equal('QR code to pay 0.01 BTC from a wallet app');
    expect($(el, 'a[href^="bitcoin:"]').getAttribute('href')).to.equal(`bitcoin:${BTC_ADDRESS}?amount=0.01`);
    expect(partText(el, 'address')).to.contain(`Bitcoin address ${BTC_ADDRESS}`);
    expect(partText(el, 'timer')).to.match(/^Time left to pay \d+:\d\d(:\d\d)?$/);
    expect($$(el, '[part~="transactions"]')).to.have.length(0);
    expect($$(el, '[part~="return-link"]')).to.have.length(0);
    await expect(el).to.be.accessible();
  });

  it('open XRP: shows the destination tag as required, with its own copy button', async () => {
    serve(xrpView());
    const el = await renderLoaded();

    const tag = $(el, '[part~="dest-tag"]');
    expect(text(tag)).to.contain('Destination tag 4817').and.contain('Required');
    expect(tag.querySelector('[part~="copy-button"]')).to.not.equal(null);
    expect(partText(el, 'amount')).to.contain('25 XRP');
    expect($(el, 'a[href^="ripple:"]').getAttribute('href')).to.equal('ripple:rJr7jLSYYeGYeezsTCwSoRHYgQKEJzHq2K?dt=4817&amount=25');
    await expect(el).to.be.accessible();
  });

  it('open on a network without a URI scheme: no wallet link, the QR holds the address', async () => {
    serve(openView({ asset: { short: 'USDT', network: 'tron', name: 'Tether USD (TRC-20)', logoUrl: 'data:,', decimals: 6 }, addressTo: 'TV6tXcuTP7Jkz44sd6SFg1P3eorfBcrP5i', paymentUri: 'TV6tXcuTP7Jkz44sd6SFg1P3eorfBcrP5i' }));
    const el = await renderLoaded();

    expect($$(el, 'a.primary')).to.have.length(0);
    expect(partText(el, 'address')).to.contain('Tron address TV6tXcuTP7Jkz44sd6SFg1P3eorfBcrP5i');
    await expect(el).to.be.accessible();
  });

  it('open on a simulated network: says no real funds move, before the amount, in the page language', async () => {
    serve(openView({ testNetwork: true }));
    const el = await renderLoaded();

    const notice = $(el, '[part~="test-network"]');
    expect(text(notice)).to.equal('Test network: no real funds move');
    expect(notice.compareDocumentPosition($(el, '[part~="amount"]')) & Node.DOCUMENT_POSITION_FOLLOWING).to.not.equal(0);
    await expect(el).to.be.accessible();
    fixtureCleanup();

    const dark = await renderLoaded({ theme: 'dark', lang: 'de' });
    expect(text($(dark, '[part~="test-network"]'))).to.equal('Testnetzwerk: Es wird kein echtes Geld bewegt');
    await expect(dark).to.be.accessible();
  });

  it('a real network, or a server that does not say: no test-network notice', async () => {
    serve(openView({ testNetwork: false }));
    const real = await renderLoaded();
    expect($$(real, '[part~="test-network"]')).to.have.length(0);
    network!.restore();
    fixtureCleanup();

    const { testNetwork: _omitted, ...older } = openView();
    serve(older as CheckoutView);
    const el = await renderLoaded();
    expect(el.checkout?.status).to.equal('OPEN');
    expect($$(el, '[part~="test-network"]')).to.have.length(0);
  });

  it('partial: says what arrived, asks for the rest, and lists the transaction', async () => {
    serve(partialView());
    const el = await renderLoaded();

    expect(partText(el, 'status')).to.contain('Partly paid').and.contain('0.004 BTC has arrived. Send the remaining 0.006 BTC');
    expect(partText(el, 'amount')).to.contain('Still to pay 0.006 BTC');
    expect($(el, 'a[href^="bitcoin:"]').getAttribute('href')).to.equal(`bitcoin:${BTC_ADDRESS}?amount=0.006`);
    expect(partText(el, 'transactions')).to.contain('0.004 BTC').and.contain('0 of 2 confirmations');
    await expect(el).to.be.accessible();
  });

  it('confirming: no QR or address any more, confirmations out of confirmsNeeded', async () => {
    serve(confirmingView(1));
    const el = await renderLoaded();

    expect(partText(el, 'status')).to.contain('Payment received').and.contain('needs 2 confirmations');
    expect($$(el, '[part~="qr-code"], [part~="address"], [part~="timer"]')).to.have.length(0);
    expect(partText(el, 'transactions')).to.contain('0.01 BTC').and.contain('1 of 2 confirmations');
    expect($$(el, '.dot[data-on]')).to.have.length(1);
    await expect(el).to.be.accessible();
  });

  it('complete: thanks the payer and links back to the merchant', async () => {
    serve(completeView());
    const el = await renderLoaded();

    expect(partText(el, 'status')).to.contain('Payment complete').and.contain('Demo Store has received 0.01 BTC');
    expect(partText(el, 'transactions')).to.contain('Confirmed');
    const back = $(el, '[part~="return-link"]');
    expect(back.getAttribute('href')).to.equal('https://shop.example/thanks');
    expect(text(back)).to.equal('Return to Demo Store');
    await expect(el).to.be.accessible();
  });

  it('complete and overpaid: says how much more than asked arrived and that the shop can refund it, in English and Arabic', async () => {
    // 12.5 USDT arrived on a payment of 10 USDT.
    const usdt = { ...completeView().asset, short: 'USDT', network: 'ethereum', name: 'Tether USD', decimals: 6 };
    const overpaid: CheckoutView = {
      ...completeView(),
      asset: usdt,
      amount: '10.000000',
      amountDue: '0.000000',
      totalReceivedAmount: '12.500000',
      transactions: [{ ...completeView().transactions[0]!, receivedAmount: '12.500000' }],
      exception: 'OVERPAID',
      overpaidAmount: '2.500000',
    };
    serve(overpaid);
    const en = await renderLoaded();
    expect(text($(en, '.status-detail'))).to.equal('Demo Store has received 12.5 USDT. Thank you! You sent 2.5 USDT more than was asked for; Demo Store can refund the difference to you.');
    await expect(en).to.be.accessible();
    fixtureCleanup();
    const ar = await renderLoaded({ lang: 'ar' });
    expect(text($(ar, '.status-detail'))).to.contain('أرسلتَ \u20662.5 USDT\u2069 زيادةً على المبلغ المطلوب؛ ويمكن لـ Demo Store أن يردّ إليك الفرق.');
    await expect(ar).to.be.accessible();
    fixtureCleanup();
    // Paid, then more arrived after it expired (PAID_LATE): that, too, is more than was asked for.
    network!.restore();
    const paidThenLate: CheckoutView = {
      ...completeView(),
      totalReceivedAmount: '0.01400000',
      transactions: [completeView().transactions[0]!, { ...completeView().transactions[0]!, txnId: 'f'.repeat(64), receivedAmount: '0.00400000', late: true }],
      exception: 'PAID_LATE',
    };
    serve(paidThenLate);
    const late = await renderLoaded();
    expect(text($(late, '.status-detail'))).to.equal('Demo Store has received 0.014 BTC. Thank you! You sent 0.004 BTC more than was asked for; Demo Store can refund the difference to you.');
    fixtureCleanup();
    // Paid exactly: no such line.
    network!.restore();
    serve(completeView());
    const exact = await renderLoaded();
    expect(text($(exact, '.status-detail'))).to.equal('Demo Store has received 0.01 BTC. Thank you!');
  });

  it('complete with a checkoutUrl that is not http(s): no link back', async () => {
    serve({ ...completeView(), checkoutUrl: 'javascript:alert(1)' });
    const el = await renderLoaded();
    expect($$(el, '[part~="return-link"]')).to.have.length(0);
  });

  it('expired without funds: tells the payer not to send anything', async () => {
    serve(expiredView());
    const el = await renderLoaded();

    expect(partText(el, 'status')).to.contain('Payment expired').and.contain('Do not send anything to this address');
    expect($$(el, '[part~="qr-code"], [part~="address"]')).to.have.length(0);
    await expect(el).to.be.accessible();
  });

  it('expired with funds: says what arrived and marks the late transaction', async () => {
    serve(expiredView(true));
    const el = await renderLoaded();

    expect(partText(el, 'status')).to.contain(
      'This request for 0.01 BTC expired before the full amount arrived. 0.004 BTC arrived in time and 0.001 BTC arrived after it expired: contact Demo Store',
    );
    expect(partText(el, 'transactions')).to.contain('Arrived after the payment expired');
    await expect(el).to.be.accessible();
  });

  it('expired with only late funds: says they came after it expired, and what was asked', async () => {
    const late = expiredView(true).transactions[1]!;
    serve({ ...expiredView(), totalReceivedAmount: late.receivedAmount, transactions: [late] });
    const el = await renderLoaded();

    expect(partText(el, 'status')).to.contain('This request for 0.01 BTC expired before the full amount arrived. 0.001 BTC arrived after it expired: contact Demo Store');
  });

  it('refunded: a refund the shop decided on replaces the offer, on its way and then sent', async () => {
    const overpaid: CheckoutView = { ...completeView(), totalReceivedAmount: '0.0125', exception: 'OVERPAID', overpaidAmount: '0.0025' };
    serve({ ...overpaid, refund: { amount: '0.00250000', sent: false } });
    const underway = await renderLoaded();
    expect(text($(underway, '.status-detail'))).to.equal('Demo Store has received 0.0125 BTC. Thank you! Demo Store is refunding 0.0025 BTC to you (less the network fee).');
    await expect(underway).to.be.accessible();
    fixtureCleanup();
    network!.restore();
    serve({ ...overpaid, refund: { amount: '0.00250000', sent: true } });
    const sent = await renderLoaded({ lang: 'fr' });
    expect(text($(sent, '.status-detail'))).to.contain('Demo Store vous a remboursé 0,0025 BTC (moins les frais de réseau).');
    fixtureCleanup();
    network!.restore();
    // After what arrived on an expired payment.
    serve({ ...expiredView(true), refund: { amount: '0.00500000', sent: true } });
    const expired = await renderLoaded();
    expect(partText(expired, 'status')).to.contain('do not send more to this address. Demo Store has refunded 0.005 BTC to you (less the network fee).');
  });

  it('not found: a clear message and no retry button', async () => {
    network = fakeNetwork(() => notFoundResponse());
    const el = await renderCheckout();
    await until(() => el.shadowRoot!.querySelector('[part~="status"]') !== null, 'the not-found view rendered');

    expect(partText(el, 'status')).to.contain('Payment not found');
    expect($$(el, 'button')).to.have.length(0);
    await expect(el).to.be.accessible();
  });

  it('network error before any view: explains and offers to try again', async () => {
    network = fakeNetwork(() => Promise.reject(new TypeError('Failed to fetch')));
    const el = await renderCheckout();
    await until(() => el.shadowRoot!.querySelector('[part~="status"]') !== null, 'the error view rendered');

    expect(partText(el, 'status')).to.contain('Cannot reach the payment server');
    expect(text($(el, 'button'))).to.equal('Try again');
    await expect(el).to.be.accessible();
  });

  it('a response that is not a checkout: says so instead of rendering garbage', async () => {
    network = fakeNetwork(() => new Response('<html>proxy page</html>', { status: 200, headers: { 'Content-Type': 'text/html' } }));
    const el = await renderCheckout();
    await until(() => el.shadowRoot!.querySelector('[part~="status"]') !== null, 'the error view rendered');
    expect(partText(el, 'status')).to.contain('Something went wrong');
    await expect(el).to.be.accessible();
  });

  it('loading: shows its light-DOM children (the hosted page puts the server-rendered payment there)', async () => {
    network = fakeNetwork(() => new Promise<Response>(() => {}));
    const el = await fixture(html`<crypto-checkout payment-id="x" api-base="https://pay.test/v2"><p id="ssr">Send 0.01 BTC</p></crypto-checkout>`);
    const slot = el.shadowRoot!.querySelector('slot')!;
    expect(slot.assignedElements().map((node) => node.id)).to.deep.equal(['ssr']);
    await expect(el).to.be.accessible();
  });

  for (const theme of ['light', 'dark'] as const) {
    it(`theme="${theme}" forces that palette and stays accessible in every payment state`, async () => {
      for (const view of [openView(), partialView(), confirmingView(), completeView(), expiredView(true), xrpView()]) {
        network?.restore();
        fixtureCleanup();
        serve(view);
        const el = await renderLoaded({ theme });
        const background = getComputedStyle($(el, '[part~="base"]')).backgroundColor;
        expect(background).to.equal(theme === 'dark' ? 'rgb(22, 24, 29)' : 'rgb(255, 255, 255)');
        await expect(el).to.be.accessible();
      }
    });
  }

  it('public --checkout-* properties restyle the internals', async () => {
    serve(openView());
    const el = await renderLoaded();
    el.style.setProperty('--checkout-accent', 'rgb(10, 20, 30)');
    el.style.setProperty('--checkout-radius', '3px');
    expect(getComputedStyle($(el, 'a.primary')).backgroundColor).to.equal('rgb(10, 20, 30)');
    expect(getComputedStyle($(el, '[part~="base"]')).borderTopLeftRadius).to.equal('3px');
  });
});
