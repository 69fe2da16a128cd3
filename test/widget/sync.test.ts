/** Live updates: the stream, the polling fallback with If-None-Match, re-syncs, and stopping at a final status. */
import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import {
  $,
  $$,
  API_BASE,
  CHECKOUT_URL,
  announced,
  completeView,
  confirmingView,
  expiredView,
  FakeEventSource,
  type FakeNetwork,
  fakeNetwork,
  liveRegion,
  nextTask,
  openView,
  partialView,
  partText,
  PAYMENT_ID,
  renderCheckout,
  renderLoaded,
  text,
  until,
  viewResponse,
} from './support.ts';

function requestOf(network: FakeNetwork, call: number): { url: string; ifNoneMatch: string | null; signal: AbortSignal | undefined } {
  const [url, init] = network.fetch.getCall(call).args;
  return { url: String(url), ifNoneMatch: new Headers(init?.headers).get('If-None-Match'), signal: init?.signal ?? undefined };
}

describe('<crypto-checkout> live updates', () => {
  let network: FakeNetwork | undefined;
  let clock: sinon.SinonFakeTimers | undefined;
  // The test page's own visibility depends on how the runner arranged its tabs; pin it.
  let visibility: DocumentVisibilityState = 'visible';
  beforeEach(() => {
    visibility = 'visible';
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => visibility });
  });
  afterEach(() => {
    delete (document as { visibilityState?: unknown }).visibilityState;
    clock?.restore();
    clock = undefined;
    network?.restore();
  });

  function fakeTimers(): sinon.SinonFakeTimers {
    clock = sinon.useFakeTimers({ now: Date.now(), toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'], shouldClearNativeTimers: true });
    return clock;
  }

  it('loads GET /checkout/:id, then opens /checkout/:id/events', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    await renderLoaded();
    await until(() => FakeEventSource.instances.length === 1, 'the stream opened');

    expect(requestOf(network, 0).url).to.equal(CHECKOUT_URL);
    expect(requestOf(network, 0).ifNoneMatch).to.equal(null);
    expect(FakeEventSource.last.url).to.equal(`${CHECKOUT_URL}/events`);
  });

  it('replaces the whole view with each streamed one: amount, QR and wallet link follow a partial payment', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    const el = await renderLoaded();
    await until(() => FakeEventSource.instances.length === 1, 'the stream opened');
    const qrBefore = $(el, '[part~="qr-code"] path').getAttribute('d');

    FakeEventSource.last.send(partialView());
    await el.updateComplete;

    expect(partText(el, 'amount')).to.contain('Still to pay 0.006 BTC');
    expect($(el, 'a.primary').getAttribute('href')).to.match(/amount=0\.006$/);
    expect($(el, '[part~="qr-code"] path').getAttribute('d')).to.not.equal(qrBefore);
    expect(partText(el, 'transactions')).to.contain('0.004 BTC');
    expect(el.checkout).to.deep.equal(partialView());
  });

  it('says so when a transaction it showed is dropped and the payment asks for the amount again', async () => {
    network = fakeNetwork(() => viewResponse(confirmingView(0)));
    const el = await renderLoaded();
    await until(() => FakeEventSource.instances.length === 1, 'the stream opened');

    FakeEventSource.last.send(openView());
    await el.updateComplete;

    const dropped = 'The 0.01 BTC sent earlier was dropped by the Bitcoin network before it confirmed, so it does not count.';
    expect(partText(el, 'status')).to.contain(`${dropped} Send exactly 0.01 BTC`);
    await announced(el, dropped);
    FakeEventSource.last.send(openView({ serverTime: '2026-11-22T02:54:01.987Z' }));
    await el.updateComplete;
    expect(partText(el, 'status')).to.contain(dropped, 'still said on the next update');
  });

  it('falls back to polling with If-None-Match when the stream is refused, and takes 304 as "unchanged"', async () => {
    network = fakeNetwork(() => viewResponse(openView(), '"v1"'));
    const el = await renderLoaded();
    await until(() => FakeEventSource.instances.length === 1, 'the stream opened');
    const timers = fakeTimers();

    network.fetch.callsFake(async () => new Response(null, { status: 304 }));
    FakeEventSource.last.fail(true);
    expect(FakeEventSource.last.readyState).to.equal(FakeEventSource.CLOSED);
    await timers.tickAsync(5_000);
    await until(() => network!.fetch.callCount === 2, 'the first poll');
    expect(requestOf(network, 1).ifNoneMatch).to.equal('"v1"');
    expect(partText(el, 'amount')).to.contain('Amount to pay 0.01 BTC');

    network.fetch.callsFake(async () => viewResponse(partialView(), '"v2"'));
    await timers.tickAsync(5_000);
    await until(() => el.checkout?.amountDue === '0.00600000', 'the polled view arrived');
    await el.updateComplete;
    expect(requestOf(network, 2).ifNoneMatch).to.equal('"v1"');
    expect(partText(el, 'amount')).to.contain('Still to pay 0.006 BTC');
  });

  it('gives up a stream that sends nothing for 10 s and polls instead', async () => {
    fakeTimers();
    network = fakeNetwork(() => viewResponse(openView()));
    await renderLoaded();
    await until(() => FakeEventSource.instances.length === 1, 'the stream opened');

    await clock!.tickAsync(10_000);
    expect(FakeEventSource.last.readyState).to.equal(FakeEventSource.CLOSED);
    await clock!.tickAsync(5_000);
    await until(() => network!.fetch.callCount === 2, 'a poll');
  });

  it('looks again when the tab becomes visible (not when hidden) and when the network comes back', async () => {
    network = fakeNetwork(() => viewResponse(openView(), '"v1"'));
    const el = await renderLoaded();
    await until(() => FakeEventSource.instances.length === 1, 'the stream opened');

    network.fetch.callsFake(async () => viewResponse(partialView(), '"v2"'));
    visibility = 'hidden';
    document.dispatchEvent(new Event('visibilitychange'));
    await nextTask();
    expect(network.fetch.callCount).to.equal(1);
    visibility = 'visible';
    document.dispatchEvent(new Event('visibilitychange'));
    await until(() => el.checkout?.amountDue === '0.00600000', 'the re-synced view arrived');
    expect(requestOf(network, 1).ifNoneMatch).to.equal('"v1"');

    window.dispatchEvent(new Event('online'));
    await until(() => network!.fetch.callCount === 3, 'a second re-sync');
    expect(requestOf(network, 2).ifNoneMatch).to.equal('"v2"');
  });

  it('reopens the stream on re-sync after it had fallen back to polling', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    await renderLoaded();
    await until(() => FakeEventSource.instances.length === 1, 'the stream opened');
    FakeEventSource.last.fail(true);

    window.dispatchEvent(new Event('online'));
    await until(() => FakeEventSource.instances.length === 2, 'a new stream');
    expect(FakeEventSource.last.readyState).to.equal(FakeEventSource.CONNECTING);
  });

  it('closes the stream when the page is left for the back/forward cache, and reopens it re-synced on return', async () => {
    network = fakeNetwork(() => viewResponse(openView(), '"v1"'));
    const el = await renderLoaded();
    await until(() => FakeEventSource.instances.length === 1, 'the stream opened');
    const cached = FakeEventSource.last;

    network.fetch.callsFake(async () => viewResponse(partialView(), '"v2"'));
    window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: true }));
    expect(cached.readyState).to.equal(FakeEventSource.CLOSED);
    await nextTask();
    expect(network.fetch.callCount).to.equal(1);

    window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }));
    await until(() => el.checkout?.amountDue === '0.00600000', 'the re-synced view arrived');
    expect(network.fetch.callCount).to.equal(2);
    expect(requestOf(network, 1).ifNoneMatch).to.equal('"v1"');
    await until(() => FakeEventSource.instances.length === 2, 'a new stream');
    expect(FakeEventSource.last.url).to.equal(`${CHECKOUT_URL}/events`);
    expect(FakeEventSource.last.readyState).to.equal(FakeEventSource.CONNECTING);
  });

  it('a page shown for the first time (not from the cache) asks nothing more', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    await renderLoaded();
    await until(() => FakeEventSource.instances.length === 1, 'the stream opened');

    window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: false }));
    await nextTask();
    expect(network.fetch.callCount).to.equal(1);
    expect(FakeEventSource.instances).to.have.length(1);
    expect(FakeEventSource.last.readyState).to.equal(FakeEventSource.CONNECTING);
  });

  it('stops at COMPLETE: closes the stream and asks nothing more, even on visibility, online or a return from the cache', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    const el = await renderLoaded();
    await until(() => FakeEventSource.instances.length === 1, 'the stream opened');
    const timers = fakeTimers();

    FakeEventSource.last.send(completeView());
    await el.updateComplete;
    expect(FakeEventSource.last.readyState).to.equal(FakeEventSource.CLOSED);

    document.dispatchEvent(new Event('visibilitychange'));
    window.dispatchEvent(new Event('online'));
    window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }));
    await timers.tickAsync(120_000);
    await nextTask();
    expect(network.fetch.callCount).to.equal(1);
    expect(FakeEventSource.instances).to.have.length(1);
  });

  it('follows an EXPIRED payment half an hour past its expiry, by the server\'s clock, so funds seen late show up; then stops', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    const el = await renderLoaded();
    await until(() => FakeEventSource.instances.length === 1, 'the stream opened');
    const timers = fakeTimers();
    // Expired a minute ago by the server's clock (the device's own says nothing here).
    const expiresAt = '2026-11-22T02:52:01.987Z';
    FakeEventSource.last.send(expiredView(false, { expiresAt }));
    await el.updateComplete;
    expect(FakeEventSource.last.readyState).to.not.equal(FakeEventSource.CLOSED);
    // Funds sent before the end, seen after it: counted, late, on the page still open.
    const late = expiredView(true).transactions[1]!;
    FakeEventSource.last.send(expiredView(false, { expiresAt, totalReceivedAmount: late.receivedAmount, transactions: [late] }));
    await el.updateComplete;
    expect(partText(el, 'status')).to.contain('0.001 BTC arrived after it expired');
    await timers.tickAsync(28 * 60_000);
    expect(FakeEventSource.last.readyState).to.not.equal(FakeEventSource.CLOSED);
    await timers.tickAsync(60_000);
    expect(FakeEventSource.last.readyState).to.equal(FakeEventSource.CLOSED);
    window.dispatchEvent(new Event('online'));
    await timers.tickAsync(120_000);
    await nextTask();
    expect(network.fetch.callCount).to.equal(1);
  });

  it('still stops half an hour past the expiry after a return from the back/forward cache that brought only a 304', async () => {
    const expired = expiredView(false, { expiresAt: '2026-11-22T02:52:01.987Z' });
    network = fakeNetwork(() => viewResponse(expired, '"e1"'));
    await renderLoaded();
    await until(() => FakeEventSource.instances.length === 1, 'the stream opened');
    // The device's clock moves with the timers here: the end is kept as a time, across the page's absence.
    const timers = (clock = sinon.useFakeTimers({ now: Date.now(), toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'], shouldClearNativeTimers: true }));
    window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: true }));
    network.fetch.callsFake(async () => new Response(null, { status: 304, headers: { ETag: '"e1"' } }));
    await timers.tickAsync(10 * 60_000);
    window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }));
    await timers.tickAsync(1_000);
    expect(FakeEventSource.instances).to.have.length(2);
    await timers.tickAsync(20 * 60_000);
    expect(FakeEventSource.last.readyState).to.equal(FakeEventSource.CLOSED);
    const asked = network.fetch.callCount;
    await timers.tickAsync(10 * 60_000);
    expect(network.fetch.callCount).to.equal(asked);
  });

  it('stops at once at an EXPIRED payment that expired more than half an hour ago', async () => {
    network = fakeNetwork(() => viewResponse(expiredView(false, { expiresAt: '2026-11-22T02:20:00.000Z' })));
    await renderLoaded();
    await nextTask();
    expect(FakeEventSource.instances).to.have.length(0);
  });

  it('keeps showing the payment while the connection is down, says so, and recovers', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    const el = await renderLoaded();
    await until(() => FakeEventSource.instances.length === 1, 'the stream opened');

    network.fetch.callsFake(() => Promise.reject(new TypeError('Failed to fetch')));
    FakeEventSource.last.fail(false);
    await until(() => el.shadowRoot!.querySelector('.notice') !== null, 'the reconnecting notice');
    expect($(el, '.notice').textContent).to.contain('Reconnecting');
    expect(partText(el, 'amount')).to.contain('0.01 BTC');

    FakeEventSource.last.send(openView());
    await el.updateComplete;
    expect($$(el, '.notice')).to.have.length(0);
  });

  it('a stream dropped while the server still answers is no outage: nothing is shown or said', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    const el = await renderLoaded();
    await until(() => FakeEventSource.instances.length === 1, 'the stream opened');
    FakeEventSource.last.send(openView());
    await el.updateComplete;
    const before = network.fetch.callCount;
    const shown: boolean[] = [];
    const observer = new MutationObserver(() => shown.push(el.shadowRoot!.querySelector('.notice:not(.test-network)') !== null));
    observer.observe(el.shadowRoot!, { childList: true, subtree: true, characterData: true });
    FakeEventSource.last.fail(false);
    await until(() => network!.fetch.callCount > before, 'the look after the drop');
    await nextTask();
    await el.updateComplete;
    observer.disconnect();
    expect(shown.some(Boolean)).to.equal(false, 'the notice never showed');
    expect(liveRegion(el)).to.not.equal('Live updates are interrupted. Reconnecting…');
  });

  it('says once that updates are interrupted and keeps saying so for as long as the server is down, through every retry', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    const el = await renderLoaded();
    await until(() => FakeEventSource.instances.length === 1, 'the stream opened');
    FakeEventSource.last.send(openView());
    await el.updateComplete;
    const timers = fakeTimers();
    // Every text the live region takes, in order (Lit changes its text node in place).
    const region = $(el, '.visually-hidden[role="status"]');
    const said: string[] = [];
    const observer = new MutationObserver((records) => {
      for (const record of records) if (record.type === 'characterData') said.push(record.oldValue ?? '');
    });
    observer.observe(region, { characterData: true, characterDataOldValue: true, subtree: true });
    const reconnecting = 'Live updates are interrupted. Reconnecting…';

    // The server goes down for 40 s: reads fail, and the browser retries the stream every 3 s
    // until the element gives it up for polling.
    network.fetch.callsFake(() => Promise.reject(new TypeError('Failed to fetch')));
    const shown: boolean[] = [];
    for (let second = 0; second < 40; second++) {
      if (second % 3 === 0 && FakeEventSource.last.readyState !== FakeEventSource.CLOSED) FakeEventSource.last.fail(false);
      await timers.tickAsync(1_000);
      await nextTask();
      await el.updateComplete;
      shown.push(el.shadowRoot!.querySelector('.notice:not(.test-network)') !== null);
    }
    expect(FakeEventSource.last.readyState).to.equal(FakeEventSource.CLOSED, 'the stream was given up for polling meanwhile');
    expect(shown.map((on, second) => (on ? '' : `${second + 1}s`)).filter(Boolean).join(' ')).to.equal('', 'seconds without the notice');
    expect(text($(el, '.notice'))).to.equal(reconnecting);
    await nextTask();
    const announcements = [...said, liveRegion(el)].filter((words) => words === reconnecting);
    expect(announcements).to.have.length(1);

    // Back: the notice goes once a read succeeds, not before.
    network.fetch.callsFake(async () => viewResponse(openView()));
    await timers.tickAsync(30_000);
    await until(() => el.shadowRoot!.querySelector('.notice') === null, 'the notice gone after a successful read');
    observer.disconnect();
  });

  it('retries by itself after a network error and shows the payment once the server answers', async () => {
    fakeTimers();
    network = fakeNetwork(() => Promise.reject(new TypeError('Failed to fetch')));
    const el = await renderCheckout();
    await until(() => el.shadowRoot!.querySelector('[part~="status"]') !== null, 'the error view');

    network.fetch.callsFake(async () => viewResponse(openView()));
    await clock!.tickAsync(2_500);
    await until(() => el.checkout !== undefined, 'the view after the retry');
    await el.updateComplete;
    expect(partText(el, 'status')).to.contain('Waiting for payment');
  });

  it('defaults api-base to the origin that served the script, plus /v2', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    await renderLoaded({ apiBase: '' });
    expect(requestOf(network, 0).url).to.equal(`${location.origin}/v2/checkout/${PAYMENT_ID}`);
  });

  it('drops a trailing slash of api-base and encodes the id', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    const el = await renderLoaded({ apiBase: `${API_BASE}/` });
    expect(requestOf(network, 0).url).to.equal(CHECKOUT_URL);
    el.paymentId = 'a/b?c';
    await until(() => network!.fetch.callCount === 2, 'the second load');
    expect(requestOf(network, 1).url).to.equal(`${API_BASE}/checkout/a%2Fb%3Fc`);
  });

  it('following another payment aborts the first one: its request, its stream and its view', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    const el = await renderLoaded();
    await until(() => FakeEventSource.instances.length === 1, 'the stream opened');
    const firstStream = FakeEventSource.last;

    network.fetch.callsFake(() => new Promise<Response>(() => {}));
    el.paymentId = '2e1c4f6a-5b7d-4e8f-9a0b-1c2d3e4f5a6b';
    await el.updateComplete;
    expect(firstStream.readyState).to.equal(FakeEventSource.CLOSED);
    expect(el.checkout).to.equal(undefined);
    await until(() => network!.fetch.callCount === 2, 'the new load');
    expect(requestOf(network, 1).url).to.contain('2e1c4f6a-5b7d-4e8f-9a0b-1c2d3e4f5a6b');

    el.remove();
    expect(requestOf(network, 1).signal?.aborted).to.equal(true);
  });
});
