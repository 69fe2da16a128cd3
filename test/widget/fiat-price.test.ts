/** <crypto-checkout> shows a fiat-priced payment's price beside the asset amount, in the payer's locale. */
import { expect, fixtureCleanup } from '@open-wc/testing';
import type { CheckoutView } from '../../widget/checkout-view.ts';
import { $, type FakeNetwork, fakeNetwork, openView, renderLoaded, text, viewResponse } from './support.ts';

// 19.99 EUR converted at 59012.5 EUR per BTC, rounded up.
const fiatView = (): CheckoutView =>
  openView({
    amount: '0.00033875',
    amountDue: '0.00033875',
    paymentUri: 'bitcoin:bc1qwq7l48zkjdu47c26fvkjtv64xpthcajw3mw55z?amount=0.00033875',
    price: { amount: '19.99', currency: 'EUR' },
    rate: { value: '59012.5', currency: 'EUR', sources: ['coinbase', 'kraken'], at: '2026-11-22T02:52:30.000Z' },
  });

describe('<crypto-checkout> fiat price', () => {
  let network: FakeNetwork | undefined;
  afterEach(() => {
    network?.restore();
    fixtureCleanup();
  });

  it('shows the price beside the asset amount in German (19,99 €) and in English (€19.99)', async () => {
    network = fakeNetwork(() => viewResponse(fiatView()));
    const de = await renderLoaded({ lang: 'de' });
    expect(text($(de, '.amount-value'))).to.equal('0,00033875 BTC');
    expect(text($(de, '[data-value="price"]'))).to.equal('19,99 €');
    const en = await renderLoaded({ lang: 'en' });
    expect(text($(en, '[data-value="price"]'))).to.equal('€19.99');
    await expect(en).to.be.accessible();
  });

  it('once part has arrived, labels the price as the order total beside the full amount, never beside the remainder', async () => {
    // 25.00 USD converted to 0.00833195 ETH; 0.004 ETH arrived, 0.00433195 ETH still to pay.
    const eth = { short: 'ETH', network: 'ethereum', name: 'Ether', logoUrl: fiatView().asset.logoUrl, decimals: 8 };
    const partly = openView({
      amount: '0.00833195',
      amountDue: '0.00433195',
      totalReceivedAmount: '0.00400000',
      asset: eth,
      addressTo: '0x52908400098527886E0F7030069857D2E4169EE7',
      paymentUri: 'ethereum:0x52908400098527886E0F7030069857D2E4169EE7?value=4331950000000000',
      price: { amount: '25.00', currency: 'USD' },
      rate: { value: '3000.5', currency: 'USD', sources: ['coinbase'], at: '2026-11-22T02:52:30.000Z' },
      transactions: [{ txnId: '0x'.padEnd(66, 'a'), receivedAmount: '0.00400000', confirmations: 0, date: '2026-11-22T02:53:01.987Z', late: false }],
    });
    network = fakeNetwork(() => viewResponse(partly));
    const en = await renderLoaded({ lang: 'en' });
    expect(text($(en, '.amount-value'))).to.equal('0.00433195 ETH');
    expect(en.shadowRoot!.querySelectorAll('[data-value="price"]').length).to.equal(0, 'no price beside the remainder');
    expect(text($(en, '[data-value="order-total"]'))).to.equal('Order total: 0.00833195 ETH ($25.00)');
    await expect(en).to.be.accessible();
    const de = await renderLoaded({ lang: 'de' });
    expect(text($(de, '[data-value="order-total"]'))).to.equal('Bestellsumme: 0,00833195 ETH (25,00 $)');
  });

  it('keeps a currency without minor digits whole, and shows nothing for a payment priced in the asset', async () => {
    network = fakeNetwork(() => viewResponse({ ...fiatView(), price: { amount: '3000', currency: 'JPY' } }));
    const ja = await renderLoaded({ lang: 'ja' });
    expect(text($(ja, '[data-value="price"]'))).to.equal('￥3,000');
    network.restore();
    fixtureCleanup();
    network = fakeNetwork(() => viewResponse(openView()));
    const plain = await renderLoaded({ lang: 'de' });
    expect(plain.shadowRoot!.querySelector('[data-value="price"]')).to.equal(null);
  });
});
