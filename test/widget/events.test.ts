/** The element's events: names, bubbling out of the shadow root, details, and when they must not fire. */
import { expect, oneEvent } from '@open-wc/testing';
import sinon from 'sinon';
import type { CheckoutStatusChangeEvent } from '../../widget/events.ts';
import type { CheckoutView } from '../../widget/checkout-view.ts';
import {
  completeView,
  confirmingView,
  expiredView,
  FakeEventSource,
  type FakeNetwork,
  fakeNetwork,
  notFoundResponse,
  openView,
  PAYMENT_ID,
  renderCheckout,
  renderLoaded,
  until,
  viewResponse,
} from './support.ts';

const EVENT_NAMES = ['checkout-status-change', 'checkout-paid', 'checkout-expired', 'checkout-error', 'checkout-copy'] as const;

/** Records every checkout event that reaches `document` (so bubbling and composed are checked too). */
function recordEvents() {
  const events: CustomEvent[] = [];
  const listener = (event: Event) => events.push(event as CustomEvent);
  for (const name of EVENT_NAMES) document.addEventListener(name, listener);
  return {
    events,
    /** The first recorded event of that name, waiting for it if needed. */
    async first(name: (typeof EVENT_NAMES)[number]): Promise<CustomEvent> {
      await until(() => events.some((e) => e.type === name), `${name} fired`);
      return events.find((e) => e.type === name)!;
    },
    stop: () => EVENT_NAMES.forEach((name) => document.removeEventListener(name, listener)),
  };
}

describe('<crypto-checkout> events', () => {
  let network: FakeNetwork | undefined;
  let recorder: ReturnType<typeof recordEvents>;
  beforeEach(() => {
    recorder = recordEvents();
  });
  afterEach(() => {
    recorder.stop();
    network?.restore();
  });

  it('fires checkout-status-change for the first status learned, with previousStatus null', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    await renderCheckout();
    const event = (await recorder.first('checkout-status-change')) as CheckoutStatusChangeEvent;

    expect(event.bubbles && event.composed).to.equal(true);
    expect(event.cancelable).to.equal(false);
    expect(event.detail.status).to.equal('OPEN');
    expect(event.detail.previousStatus).to.equal(null);
    expect(event.detail.checkout.id).to.equal(PAYMENT_ID);
    expect(recorder.events.map((e) => e.type)).to.deep.equal(['checkout-status-change']);
  });

  it('fires checkout-status-change then checkout-paid as the stream moves the payment to COMPLETE', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    const el = await renderLoaded();
    await until(() => FakeEventSource.instances.length === 1, 'the stream opened');
    recorder.events.length = 0;

    FakeEventSource.last.send(confirmingView(1));
    await until(() => recorder.events.length === 1, 'one event');
    FakeEventSource.last.send(confirmingView(1)); // same status again: nothing to report
    FakeEventSource.last.send(completeView());
    await until(() => recorder.events.length === 3, 'three events');

    expect(recorder.events.map((e) => [e.type, e.detail.previousStatus, e.detail.status ?? e.detail.checkout.status])).to.deep.equal([
      ['checkout-status-change', 'OPEN', 'CONFIRMING'],
      ['checkout-status-change', 'CONFIRMING', 'COMPLETE'],
      ['checkout-paid', undefined, 'COMPLETE'],
    ]);
    expect(recorder.events[2]!.detail.checkout.totalReceivedAmount).to.equal('0.01000000');
    expect(recorder.events.every((e) => e.target === el)).to.equal(true);
  });

  it('fires checkout-update for every view rendered, also when the status stays (funds seen late on an EXPIRED payment)', async () => {
    network = fakeNetwork(() => viewResponse(expiredView(false, { expiresAt: '2026-11-22T02:52:01.987Z' })));
    const updates: CheckoutView[] = [];
    const listener = (event: Event) => updates.push((event as CustomEvent<{ checkout: CheckoutView }>).detail.checkout);
    document.addEventListener('checkout-update', listener);
    try {
      const el = await renderLoaded();
      await until(() => FakeEventSource.instances.length === 1, 'the stream opened');
      const late = expiredView(true).transactions[1]!;
      FakeEventSource.last.send(expiredView(false, { expiresAt: '2026-11-22T02:52:01.987Z', totalReceivedAmount: late.receivedAmount, transactions: [late] }));
      await until(() => updates.length === 2, 'two updates');
      await el.updateComplete;
      expect(updates.map((v) => [v.status, v.transactions.length])).to.deep.equal([['EXPIRED', 0], ['EXPIRED', 1]]);
      expect(recorder.events.filter((e) => e.type === 'checkout-status-change')).to.have.length(1);
    } finally {
      document.removeEventListener('checkout-update', listener);
    }
  });

  it('fires checkout-expired when the server reports EXPIRED', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    await renderLoaded();
    await until(() => FakeEventSource.instances.length === 1, 'the stream opened');
    recorder.events.length = 0;

    FakeEventSource.last.send(expiredView());
    await until(() => recorder.events.length === 2, 'two events');
    expect(recorder.events.map((e) => e.type)).to.deep.equal(['checkout-status-change', 'checkout-expired']);
    expect(recorder.events[1]!.detail.checkout.status).to.equal('EXPIRED');
  });

  it('fires checkout-error with code not-found for an unknown payment', async () => {
    network = fakeNetwork(() => notFoundResponse());
    await renderCheckout();
    const event = await recorder.first('checkout-error');
    expect(event.detail.code).to.equal('not-found');
    expect(event.detail.message).to.be.a('string').and.have.length.above(0);
    expect(event.composed).to.equal(true);
  });

  it('fires checkout-error with code network once, not on every retry', async () => {
    network = fakeNetwork(() => Promise.reject(new TypeError('Failed to fetch')));
    const el = await renderCheckout();
    const event = await recorder.first('checkout-error');
    expect(event.detail.code).to.equal('network');
    expect(event.detail.message).to.contain('could not be reached');

    (el.shadowRoot!.querySelector('button') as HTMLButtonElement).click(); // "Try again", still offline
    await until(() => network!.fetch.callCount >= 2, 'the retry was made');
    await el.updateComplete;
    expect(recorder.events.filter((e) => e.type === 'checkout-error')).to.have.length(1);
  });

  it('fires nothing when the page sets a property that does not change the payment', async () => {
    network = fakeNetwork(() => viewResponse(openView()));
    const el = await renderLoaded();
    await until(() => FakeEventSource.instances.length === 1, 'the stream opened');
    recorder.events.length = 0;
    const fetches = network.fetch.callCount;

    el.theme = 'dark';
    el.paymentId = PAYMENT_ID;
    await el.updateComplete;
    expect(recorder.events).to.deep.equal([]);
    expect(network.fetch.callCount).to.equal(fetches);
    expect(FakeEventSource.instances).to.have.length(1);
  });

  it('declares the events in GlobalEventHandlersEventMap with typed details', async () => {
    network = fakeNetwork(() => new Promise((resolve) => setTimeout(() => resolve(viewResponse(completeView())), 0)));
    const el = await renderCheckout();
    const paid = sinon.spy();
    // Compiles only because the map types event.detail; the spy proves it ran.
    el.addEventListener('checkout-paid', (event) => paid(event.detail.checkout.status));
    await oneEvent(el, 'checkout-paid');
    expect(paid.calledOnceWith('COMPLETE')).to.equal(true);
  });
});
