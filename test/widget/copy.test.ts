/** Copy buttons: what they copy, that they say so (visibly and to screen readers), keyboard use, and failure. */
import { expect } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import sinon from 'sinon';
import type { CryptoCheckout } from '../../widget/crypto-checkout.element.ts';
import type { CheckoutCopyEvent } from '../../widget/events.ts';
import { $, announced, BTC_ADDRESS, type FakeNetwork, fakeNetwork, liveRegion, openView, renderLoaded, text, until, viewResponse, xrpView } from './support.ts';

function copyButton(el: CryptoCheckout, part: string): HTMLButtonElement {
  return $(el, `[part~="${part}"] [part~="copy-button"]`) as HTMLButtonElement;
}

describe('<crypto-checkout> copy buttons', () => {
  let network: FakeNetwork | undefined;
  let writeText: sinon.SinonStub;
  let copies: CheckoutCopyEvent[];
  const record = (event: CheckoutCopyEvent) => copies.push(event);

  beforeEach(() => {
    writeText = sinon.stub(navigator.clipboard, 'writeText').resolves();
    copies = [];
    document.addEventListener('checkout-copy', record);
  });
  afterEach(() => {
    document.removeEventListener('checkout-copy', record);
    sinon.restore();
    network?.restore();
  });

  it('copies the address, says "Copied", announces it and fires checkout-copy', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    const el = await renderLoaded();
    const button = copyButton(el, 'address');
    expect(text(button)).to.equal('Copy');
    expect(button.getAttribute('aria-label')).to.equal('Copy address');

    button.click();
    await announced(el, 'Address copied.');
    expect(writeText.calledOnceWithExactly(BTC_ADDRESS)).to.equal(true);
    expect(text(button)).to.equal('Copied');
    expect(button.getAttribute('aria-label')).to.equal('Address copied.');
    expect(copies.map((e) => e.detail)).to.deep.equal([{ field: 'address', value: BTC_ADDRESS }]);
    expect(copies[0]!.composed && copies[0]!.bubbles).to.equal(true);
  });

  it('copies the amount as wallets want it (no trailing zeros)', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    const el = await renderLoaded();
    copyButton(el, 'amount').click();
    await announced(el, 'Amount copied.');
    expect(writeText.calledOnceWithExactly('0.01')).to.equal(true);
    expect(copies[0]!.detail).to.deep.equal({ field: 'amount', value: '0.01' });
  });

  it('copies the destination tag of an XRP payment', async () => {
    network = fakeNetwork(() => viewResponse(xrpView()));
    const el = await renderLoaded();
    copyButton(el, 'dest-tag').click();
    await announced(el, 'Destination tag copied.');
    expect(writeText.calledOnceWithExactly('4817')).to.equal(true);
    expect(copies[0]!.detail).to.deep.equal({ field: 'destTag', value: '4817' });
  });

  it('goes back to "Copy" after two seconds', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    const el = await renderLoaded();
    const clock = sinon.useFakeTimers({ now: Date.now(), toFake: ['setTimeout', 'clearTimeout'], shouldClearNativeTimers: true });
    const button = copyButton(el, 'address');
    button.click();
    await until(() => text(button) === 'Copied', 'the button says Copied');
    await clock.tickAsync(1_999);
    await el.updateComplete;
    expect(text(button)).to.equal('Copied');
    await clock.tickAsync(1);
    await el.updateComplete;
    expect(text(button)).to.equal('Copy');
    expect(button.getAttribute('aria-label')).to.equal('Copy address');
  });

  it('works from the keyboard: Tab to the address button, Enter copies', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    const el = await renderLoaded();
    const target = copyButton(el, 'address');
    for (let i = 0; i < 10 && el.shadowRoot!.activeElement !== target; i++) await sendKeys({ press: 'Tab' });
    expect(el.shadowRoot!.activeElement).to.equal(target);
    await sendKeys({ press: 'Enter' });
    await announced(el, 'Address copied.');
    expect(writeText.calledOnceWithExactly(BTC_ADDRESS)).to.equal(true);
  });

  it('when the clipboard refuses: selects the address, says how to copy it, fires nothing', async () => {
    writeText.rejects(new DOMException('Write permission denied.', 'NotAllowedError'));
    sinon.stub(document, 'execCommand').returns(false);
    network = fakeNetwork(() => viewResponse(openView()));
    const el = await renderLoaded();
    const button = copyButton(el, 'address');
    button.click();

    await announced(el, 'Could not copy. The text is selected');
    expect(text(button)).to.equal('Copy');
    expect(String(window.getSelection())).to.equal(BTC_ADDRESS);
    expect(copies).to.deep.equal([]);
  });

  it('falls back to execCommand where the Clipboard API is refused (plain-http pages, frames)', async () => {
    writeText.rejects(new DOMException('Write permission denied.', 'NotAllowedError'));
    const execCommand = sinon.stub(document, 'execCommand').returns(true);
    network = fakeNetwork(() => viewResponse(openView()));
    const el = await renderLoaded();
    copyButton(el, 'address').click();
    await announced(el, 'Address copied.');
    expect(execCommand.calledOnceWith('copy')).to.equal(true);
    expect(copies).to.have.length(1);
    expect(document.querySelector('textarea')).to.equal(null);
    expect(liveRegion(el)).to.equal('Address copied.');
  });
});
