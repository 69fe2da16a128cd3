/** The countdown: server clock, not the device's; once per second; announced only at milestones. */
import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import type { CryptoCheckout } from '../../widget/crypto-checkout.element.ts';
import { $$, confirmingView, FakeEventSource, type FakeNetwork, fakeNetwork, liveRegion, openView, partText, renderLoaded, until, viewResponse } from './support.ts';

const SERVER_NOW = Date.parse('2026-11-22T02:53:01.987Z');
const at = (ms: number) => new Date(ms).toISOString();

describe('<crypto-checkout> countdown', () => {
  let network: FakeNetwork | undefined;
  let clock: sinon.SinonFakeTimers;
  afterEach(() => {
    clock.restore();
    network?.restore();
  });

  /** Renders an open payment expiring `secondsLeft` after the server's now, on a device clock `skewMs` off. */
  async function renderCountdown(secondsLeft: number, skewMs: number): Promise<CryptoCheckout> {
    clock = sinon.useFakeTimers({ now: SERVER_NOW + skewMs, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'], shouldClearNativeTimers: true });
    const expiresAt = at(SERVER_NOW + secondsLeft * 1000);
    // Like the real server, every answer carries the server's clock at that moment.
    network = fakeNetwork(() => viewResponse(openView({ serverTime: at(Date.now() - skewMs), expiresAt })));
    const el = await renderLoaded();
    await until(() => FakeEventSource.instances.length === 1, 'the stream opened');
    return el;
  }

  async function tick(el: CryptoCheckout, ms: number): Promise<void> {
    await clock.tickAsync(ms);
    // An announcement takes two renders (the region empties first); settle them all.
    while (!(await el.updateComplete));
  }

  it('counts from expiresAt against serverTime, whatever the device clock says', async () => {
    const el = await renderCountdown(125, 3_600_000); // the device is an hour ahead
    expect(partText(el, 'timer')).to.equal('Time left to pay 2:05');
    await tick(el, 1_000);
    expect(partText(el, 'timer')).to.equal('Time left to pay 2:04');
    await tick(el, 5_000);
    expect(partText(el, 'timer')).to.equal('Time left to pay 1:59');
  });

  it('works the same with the device clock behind, and shows hours for long timeouts', async () => {
    const el = await renderCountdown(3_600, -7_200_000);
    expect(partText(el, 'timer')).to.equal('Time left to pay 1:00:00');
    await tick(el, 1_000);
    expect(partText(el, 'timer')).to.equal('Time left to pay 59:59');
  });

  it('takes the server\'s word on every view instead of counting on from page load', async () => {
    const el = await renderCountdown(600, 0);
    await tick(el, 1_000);
    expect(partText(el, 'timer')).to.equal('Time left to pay 9:59');
    // The device slept: only 1 s passed locally, but the server says 5 minutes did.
    FakeEventSource.last.send(openView({ serverTime: at(SERVER_NOW + 300_000), expiresAt: at(SERVER_NOW + 600_000) }));
    await el.updateComplete;
    expect(partText(el, 'timer')).to.equal('Time left to pay 5:00');
  });

  it('announces five minutes and one minute left, and not every second', async () => {
    const el = await renderCountdown(302, 0);
    await tick(el, 1_000);
    expect(liveRegion(el)).to.equal('');
    await tick(el, 1_000);
    expect(liveRegion(el)).to.equal('5 minutes left to pay.');
    expect($$(el, '[part~="timer"][data-soon]')).to.have.length(1);
    await tick(el, 10_000);
    expect(liveRegion(el)).to.equal('5 minutes left to pay.');
    await tick(el, 229_000);
    expect(liveRegion(el)).to.equal('5 minutes left to pay.');
    await tick(el, 1_000);
    expect(partText(el, 'timer')).to.equal('Time left to pay 1:00');
    expect(liveRegion(el)).to.equal('1 minute left to pay.');
    expect($$(el, '[part~="timer"]')[0]!.getAttribute('role')).to.equal('timer');
  });

  it('at zero says time is up and asks the server instead of declaring the payment expired', async () => {
    const el = await renderCountdown(3, 0);
    const loads = network!.fetch.callCount;
    await tick(el, 3_000);
    expect(partText(el, 'timer')).to.equal('Time is up. Checking with the server…');
    expect(partText(el, 'status')).to.contain('Waiting for payment');
    await until(() => network!.fetch.callCount === loads + 1, 'a look at the server');
  });

  it('stops counting once the payment is no longer open', async () => {
    const el = await renderCountdown(600, 0);
    FakeEventSource.last.send(confirmingView());
    await el.updateComplete;
    expect($$(el, '[part~="timer"]')).to.have.length(0);
    expect(clock.countTimers()).to.equal(0);
  });
});
