/**
 * The amount is always whole on a phone: in every language, at 390 px and 320 px, a long amount is
 * never covered by its Copy button nor cut off. Boxes are measured in real Chromium.
 */
import { expect, fixture, fixtureCleanup, html } from '@open-wc/testing';
import { setViewport } from '@web/test-runner-commands';
import type { CheckoutView } from '../../widget/checkout-view.ts';
import type { CryptoCheckout } from '../../widget/crypto-checkout.element.ts';
import { LOCALES } from '../../widget/i18n/locales.ts';
import { $, API_BASE, type FakeNetwork, fakeNetwork, openView, PAYMENT_ID, until, untilWithin, viewResponse } from './support.ts';

/** Amounts that reached the edge of the card: a small one with many digits, a large one, the largest there can be (1e9, 8 decimals). */
const AMOUNTS: Array<{ name: string; view: CheckoutView }> = [
  { name: 'small BTC', view: openView({ amount: '0.00123450', amountDue: '0.00123450' }) },
  { name: 'large BTC', view: openView({ amount: '12345678.12345678', amountDue: '12345678.12345678' }) },
  {
    name: 'largest ETH',
    view: openView({
      amount: '999999999.99999999',
      amountDue: '999999999.99999999',
      asset: { short: 'ETH', network: 'ethereum', name: 'Ether', logoUrl: openView().asset.logoUrl, decimals: 8 },
    }),
  },
];
const WIDTHS = [390, 320];

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

const overlaps = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
const inside = (inner: Box, outer: Box) => inner.left >= outer.left && inner.right <= outer.right && inner.top >= outer.top && inner.bottom <= outer.bottom;
const show = (b: Box) => `[${Math.round(b.left)}..${Math.round(b.right)} x ${Math.round(b.top)}..${Math.round(b.bottom)}]`;

/** The element as the hosted page places it: the page's side padding around it. */
async function renderOnPhone(locale: string): Promise<CryptoCheckout> {
  const wrapper = await fixture<HTMLDivElement>(
    html`<div style="padding-inline: clamp(0.5rem, 3vw, 1.5rem)"><crypto-checkout payment-id=${PAYMENT_ID} api-base=${API_BASE} lang=${locale}></crypto-checkout></div>`,
  );
  const el = wrapper.querySelector('crypto-checkout')!;
  await until(() => el.checkout !== undefined, 'the first view arrived');
  await untilWithin(() => el.shadowRoot?.querySelector('[part~="base"]')?.getAttribute('data-status') === 'OPEN', 'the view in its language');
  await el.updateComplete;
  return el;
}

describe('<crypto-checkout> amount on a phone', () => {
  let network: FakeNetwork | undefined;
  after(() => setViewport({ width: 800, height: 600 }));
  afterEach(() => {
    network?.restore();
    fixtureCleanup();
  });

  for (const width of WIDTHS) {
    for (const { name, view } of AMOUNTS) {
      it(`${width} px, ${name}: the amount is whole and clear of the Copy button in every language`, async () => {
        await setViewport({ width, height: 800 });
        const problems: string[] = [];
        for (const locale of LOCALES) {
          network = fakeNetwork(() => viewResponse(view));
          const el = await renderOnPhone(locale);
          const amount = $(el, '.amount-value');
          const copy = $(el, '[part~="amount"] [part~="copy-button"]');
          const card = $(el, '[part~="base"]').getBoundingClientRect();
          const button = copy.getBoundingClientRect();
          // The glyphs themselves, line by line (the span's own box may be wider than its text).
          const range = document.createRange();
          range.selectNodeContents(amount);
          for (const line of range.getClientRects()) {
            if (overlaps(line, button)) problems.push(`${locale}: "${amount.textContent}" line ${show(line)} under the Copy button ${show(button)}`);
            if (!inside(line, card)) problems.push(`${locale}: "${amount.textContent}" line ${show(line)} outside the card ${show(card)}`);
          }
          if (amount.scrollWidth > amount.clientWidth) problems.push(`${locale}: "${amount.textContent}" clipped (scrollWidth ${amount.scrollWidth} > clientWidth ${amount.clientWidth})`);
          network.restore();
          network = undefined;
          fixtureCleanup();
        }
        expect(problems).to.deep.equal([]);
      });
    }
  }
});
