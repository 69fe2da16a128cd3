/** <crypto-checkout> in every language: text, lang and dir, numbers, right to left, switching, and axe in Arabic and Japanese. */
import { expect, fixtureCleanup } from '@open-wc/testing';
import { ALL_MESSAGES } from '../../widget/i18n/all-messages.ts';
import { LOCALES } from '../../widget/i18n/locales.ts';
import type { CheckoutView } from '../../widget/checkout-view.ts';
import {
  $,
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
  untilWithin,
  viewResponse,
  xrpView,
} from './support.ts';

describe('<crypto-checkout> languages', () => {
  let network: FakeNetwork | undefined;
  afterEach(() => {
    network?.restore();
    fixtureCleanup();
  });

  function serve(view: CheckoutView): void {
    network = fakeNetwork(() => viewResponse(view));
  }

  for (const locale of LOCALES) {
    it(`${locale}: speaks the language, with lang and dir set, addresses left to right`, async () => {
      serve(openView());
      const el = await renderLoaded({ lang: locale });
      const m = ALL_MESSAGES[locale];
      const base = $(el, '[part~="base"]');
      expect(base.getAttribute('lang')).to.equal(locale);
      expect(base.getAttribute('dir')).to.equal(locale === 'ar' ? 'rtl' : 'ltr');
      expect(partText(el, 'status')).to.contain(m.waiting);
      expect(partText(el, 'amount')).to.contain(m.amountToPay);
      expect(partText(el, 'timer')).to.contain(m.timeLeft);
      const address = $(el, '[data-value="address"]');
      expect(address.getAttribute('dir')).to.equal('ltr');
      expect(text(address)).to.equal(BTC_ADDRESS);
      expect(getComputedStyle(address).direction).to.equal('ltr');
    });
  }

  it('changing lang re-renders in the new language, and back', async () => {
    serve(openView());
    const el = await renderLoaded({ lang: 'en' });
    expect(partText(el, 'status')).to.contain('Waiting for payment');
    el.setAttribute('lang', 'ja');
    await untilWithin(() => partText(el, 'status').includes(ALL_MESSAGES.ja.waiting), 'the Japanese title');
    el.lang = 'de';
    await untilWithin(() => partText(el, 'status').includes(ALL_MESSAGES.de.waiting), 'the German title');
    expect(el.getAttribute('lang')).to.equal('de');
    el.removeAttribute('lang');
    await untilWithin(() => partText(el, 'status').includes('Waiting for payment'), 'English again (the browser\'s language)');
  });

  it('matches tags by BCP 47 lookup: pt → pt-BR, zh-Hans → zh-CN, es-MX → es, unknown → the browser\'s', async () => {
    for (const [asked, expected] of [['pt', 'pt-BR'], ['zh-Hans', 'zh-CN'], ['es-MX', 'es'], ['AR', 'ar'], ['ko', 'en']] as const) {
      serve(openView());
      const el = await renderLoaded({ lang: asked });
      expect($(el, '[part~="base"]').getAttribute('lang'), asked).to.equal(expected);
      network?.restore();
      fixtureCleanup();
    }
  });

  it('follows navigator.languages without a lang attribute', async () => {
    const original = Object.getOwnPropertyDescriptor(Navigator.prototype, 'languages')!;
    Object.defineProperty(navigator, 'languages', { get: () => ['fr-CA', 'en-US'], configurable: true });
    try {
      serve(openView());
      const el = await renderLoaded();
      expect(partText(el, 'status')).to.contain(ALL_MESSAGES.fr.waiting);
    } finally {
      delete (navigator as unknown as Record<string, unknown>).languages;
      Object.defineProperty(Navigator.prototype, 'languages', original);
    }
  });

  it('shows amounts in the locale\'s grouping and decimal mark, and copies the exact string', async () => {
    serve(xrpView());
    const el = await renderLoaded({ lang: 'de' });
    const view = el.checkout!;
    expect(view.amountDue).to.equal('25.000000');
    expect(text($(el, '.amount-value'))).to.equal('25 XRP');
    network?.restore();
    fixtureCleanup();
    serve({ ...openView(), amount: '1234.50000000', amountDue: '1234.50000000', paymentUri: 'bitcoin:x?amount=1234.5' });
    const big = await renderLoaded({ lang: 'de' });
    expect(text($(big, '.amount-value'))).to.equal('1.234,5 BTC');
    const writeText = (navigator.clipboard.writeText = async (value: string) => void copied.push(value));
    const copied: string[] = [];
    $(big, '[part~="amount"] button').click();
    await until(() => copied.length === 1, 'the amount copied');
    expect(copied).to.deep.equal(['1234.5']);
    expect(writeText).to.be.a('function');
    const hi = await renderLoaded({ lang: 'hi' });
    expect(text($(hi, '.amount-value'))).to.equal('1,234.5 BTC');
  });

  it('counts confirmations with the language\'s plural forms', async () => {
    serve(confirmingView(1));
    const el = await renderLoaded({ lang: 'ru' });
    expect(partText(el, 'transactions')).to.contain('1 из 2 подтверждений');
    expect(partText(el, 'status')).to.contain('2 подтверждения');
  });

  for (const locale of ['ar', 'ja'] as const) {
    describe(`${locale}: every state passes axe`, () => {
      const states: Array<[string, () => Response]> = [
        ['open', () => viewResponse(openView())],
        ['partly paid', () => viewResponse(partialView())],
        ['confirming', () => viewResponse(confirmingView(1))],
        ['complete', () => viewResponse(completeView())],
        ['expired with funds', () => viewResponse(expiredView(true))],
        ['expired', () => viewResponse(expiredView(false))],
        ['destination tag', () => viewResponse(xrpView())],
        ['not found', () => notFoundResponse()],
      ];
      for (const [state, answer] of states) {
        it(state, async () => {
          network = fakeNetwork(answer);
          const el = await renderCheckout({ lang: locale });
          await untilWithin(() => {
            const status = el.shadowRoot?.querySelector('[part~="base"]')?.getAttribute('data-status');
            return status !== undefined && status !== null && status !== 'loading';
          }, `the ${state} view`);
          await el.updateComplete;
          expect($(el, '[part~="base"]').getAttribute('lang')).to.equal(locale);
          await expect(el).to.be.accessible();
        });
      }
    });
  }
});
