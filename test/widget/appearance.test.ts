/** What the payer scans and sees: a valid QR symbol, upper-cased where that makes it denser; palettes and motion. */
import { expect } from '@open-wc/testing';
import { emulateMedia } from '@web/test-runner-commands';
import type { CryptoCheckout } from '../../widget/crypto-checkout.element.ts';
import { $, $$, type FakeNetwork, fakeNetwork, openView, partialView, renderLoaded, viewResponse, xrpView } from './support.ts';

/** Reads the QR's path back into a matrix of dark modules (quiet zone included). */
function qrMatrix(el: CryptoCheckout): boolean[][] {
  const svg = $(el, '[part~="qr-code"] svg');
  const size = Number(svg.getAttribute('viewBox')!.split(' ')[2]);
  const matrix = Array.from({ length: size }, () => Array<boolean>(size).fill(false));
  for (const [, x, y, width] of svg.querySelector('path')!.getAttribute('d')!.matchAll(/M(\d+) (\d+)h(\d+)v1h-\d+z/g)) {
    for (let i = 0; i < Number(width); i++) matrix[Number(y)]![Number(x) + i] = true;
  }
  return matrix;
}

/** Whether a 7×7 finder pattern (dark ring, light ring, dark 3×3 core) sits at (left, top). */
function isFinder(m: boolean[][], left: number, top: number): boolean {
  for (let y = 0; y < 7; y++) {
    for (let x = 0; x < 7; x++) {
      const ring = Math.max(Math.abs(x - 3), Math.abs(y - 3));
      if (m[top + y]![left + x] !== (ring !== 2)) return false;
    }
  }
  return true;
}

describe('<crypto-checkout> appearance', () => {
  let network: FakeNetwork | undefined;
  afterEach(async () => {
    network?.restore();
    await emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });
  });

  it('draws a well-formed QR symbol: quiet zone, three finder patterns, timing patterns', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    const el = await renderLoaded();
    const m = qrMatrix(el);
    const size = m.length;
    const modules = size - 8;
    expect((modules - 17) % 4).to.equal(0);
    expect(m[0]!.some(Boolean) || m[3]!.some(Boolean) || m.some((row) => row[size - 1])).to.equal(false);
    expect(isFinder(m, 4, 4) && isFinder(m, size - 11, 4) && isFinder(m, 4, size - 11)).to.equal(true);
    expect(isFinder(m, size - 11, size - 11)).to.equal(false);
    for (let i = 8; i < modules - 8; i++) {
      expect(m[4 + 6]![4 + i]).to.equal(i % 2 === 0);
      expect(m[4 + i]![4 + 6]).to.equal(i % 2 === 0);
    }
  });

  it('upper-cases a bitcoin URI for the QR so it fits a smaller symbol (33 modules, 37 in lower case)', async () => {
    network = fakeNetwork(() => viewResponse(partialView()));
    const el = await renderLoaded();
    expect(qrMatrix(el).length - 8).to.equal(33);
    // The link still carries the URI exactly as the server sent it.
    expect($(el, 'a.primary').getAttribute('href')).to.equal(partialView().paymentUri);
  });

  it('keeps case-sensitive URIs as they are (an XRP address in lower case would be another address)', async () => {
    network = fakeNetwork(() => viewResponse(xrpView()));
    const el = await renderLoaded();
    // 59 characters in byte mode need version 4 (33 modules) at level M.
    expect(qrMatrix(el).length - 8).to.equal(33);
  });

  it('fits a 320 px phone: a long invoice and amount wrap, and a transaction\'s amount never runs into its progress', async () => {
    const partial = partialView();
    network = fakeNetwork(() =>
      viewResponse({
        ...partial,
        invoice: 'INV2026112300000000001234567890ABCDEFGHIJ',
        amount: '987654321.12345678',
        amountDue: '987654320.12345678',
        transactions: [{ ...partial.transactions[0]!, receivedAmount: '1.00012345' }],
      }),
    );
    const el = await renderLoaded();
    el.style.display = 'block';
    el.style.inlineSize = '320px';
    await el.updateComplete;
    const base = $(el, '[part~="base"]');
    expect(base.scrollWidth, 'nothing wider than the card').to.be.at.most(base.clientWidth);
    const amount = $(el, '.txn-amount').getBoundingClientRect();
    const progress = $(el, '.txn-progress').getBoundingClientRect();
    const overlap = amount.right > progress.left && progress.right > amount.left && amount.bottom > progress.top && progress.bottom > amount.top;
    expect(overlap, 'amount and progress overlap').to.equal(false);
    for (const node of $$(el, '.merchant-invoice, .amount-value')) expect(node.getBoundingClientRect().right).to.be.at.most(base.getBoundingClientRect().right);
  });

  it('follows prefers-color-scheme, unless theme forces a palette', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    await emulateMedia({ colorScheme: 'dark' });
    const auto = await renderLoaded();
    expect(getComputedStyle($(auto, '[part~="base"]')).backgroundColor).to.equal('rgb(22, 24, 29)');
    const forced = await renderLoaded({ theme: 'light' });
    expect(getComputedStyle($(forced, '[part~="base"]')).backgroundColor).to.equal('rgb(255, 255, 255)');
    // The QR stays dark on white in both, as scanners expect.
    expect(getComputedStyle($(auto, '[part~="qr-code"]')).backgroundColor).to.equal('rgb(255, 255, 255)');
  });

  it('rounds the boxes inside the card with --checkout-radius, two thirds of the card\'s', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    const el = await renderLoaded();
    const corners = () => ['[part~="base"]', '[part~="copy-button"]', '.field', '[part~="qr-code"]'].map((selector) => getComputedStyle($(el, selector)).borderTopLeftRadius);
    expect(corners()).to.deep.equal(['12px', '8px', '8px', '8px']);
    el.style.setProperty('--checkout-radius', '18px');
    expect(corners()).to.deep.equal(['18px', '12px', '12px', '12px']);
    el.style.setProperty('--checkout-radius', '0px');
    expect(corners()).to.deep.equal(['0px', '0px', '0px', '0px']);
  });

  it('animates the waiting icon only without prefers-reduced-motion', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    const el = await renderLoaded();
    expect(getComputedStyle($(el, '.status-icon')).animationName).to.equal('pulse');
    await emulateMedia({ reducedMotion: 'reduce' });
    expect(getComputedStyle($(el, '.status-icon')).animationName).to.equal('none');
  });

  it('fits a 320 px wide screen without horizontal scrolling', async () => {
    network = fakeNetwork(() => viewResponse(xrpView()));
    const host = document.createElement('div');
    host.style.setProperty('width', '320px');
    document.body.append(host);
    const el = await renderLoaded();
    host.append(el);
    await el.updateComplete;
    const base = $(el, '[part~="base"]');
    expect(base.getBoundingClientRect().width).to.be.at.most(320);
    expect(base.scrollWidth).to.be.at.most(base.clientWidth);
    host.remove();
  });
});
