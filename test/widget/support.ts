/** Fixtures for the <crypto-checkout> tests: checkout views, a scripted fetch and EventSource, shadow-DOM queries. */
import { fixture, html } from '@open-wc/testing';
import { nothing } from 'lit';
import sinon from 'sinon';
import type { CheckoutView } from '../../widget/checkout-view.ts';
import type { CryptoCheckout } from '../../widget/crypto-checkout.element.ts';

/** The api-base the fixtures use (nothing listens there: fetch and EventSource are fakes). */
export const API_BASE = 'https://pay.test/v2';
/** The test payment's id. */
export const PAYMENT_ID = '1d69ab2b-8b5b-4839-b5c3-9aa387ac5e66';
/** GET /v2/checkout/:id of the test payment. */
export const CHECKOUT_URL = `${API_BASE}/checkout/${PAYMENT_ID}`;
/** The test payment's bech32 address. */
export const BTC_ADDRESS = 'bc1qwq7l48zkjdu47c26fvkjtv64xpthcajw3mw55z';
const LOGO = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="16" fill="#f7931a"/></svg>')}`;
const SERVER_NOW = '2026-11-22T02:53:01.987Z';

/** An open bitcoin payment of 0.01 BTC, nothing received; `overrides` replace fields. */
export function openView(overrides: Partial<CheckoutView> = {}): CheckoutView {
  return {
    id: PAYMENT_ID,
    status: 'OPEN',
    amount: '0.01000000',
    amountDue: '0.01000000',
    totalReceivedAmount: '0.00000000',
    asset: { short: 'BTC', network: 'bitcoin', name: 'Bitcoin', logoUrl: LOGO, decimals: 8 },
    addressTo: BTC_ADDRESS,
    destTag: null,
    paymentUri: `bitcoin:${BTC_ADDRESS}?amount=0.01`,
    confirmsNeeded: 2,
    timeout: 3600,
    expiresAt: '2026-11-22T03:53:01.987Z',
    createdAt: SERVER_NOW,
    invoice: 'INV-1042',
    checkoutUrl: 'https://shop.example/thanks',
    merchant: { name: 'Demo Store', siteUrl: 'https://shop.example', logoUrl: null },
    transactions: [],
    testNetwork: false,
    price: null,
    rate: null,
    serverTime: SERVER_NOW,
    ...overrides,
  };
}

const txn = (confirmations: number, receivedAmount: string, late = false) => ({
  txnId: `${late ? 'b' : 'a'}${confirmations}${receivedAmount.replace('.', '')}`.padEnd(64, 'f'),
  receivedAmount,
  confirmations,
  date: SERVER_NOW,
  late,
});

/** 0.004 BTC arrived (unconfirmed); 0.006 BTC still due, and the URI asks for it. */
export function partialView(): CheckoutView {
  return openView({
    amountDue: '0.00600000',
    totalReceivedAmount: '0.00400000',
    paymentUri: `bitcoin:${BTC_ADDRESS}?amount=0.006`,
    transactions: [txn(0, '0.00400000')],
  });
}

/** The full amount arrived with `confirmations` of 2. */
export function confirmingView(confirmations = 1): CheckoutView {
  return openView({
    status: 'CONFIRMING',
    amountDue: '0.00000000',
    totalReceivedAmount: '0.01000000',
    paymentUri: `bitcoin:${BTC_ADDRESS}?amount=0`,
    transactions: [txn(confirmations, '0.01000000')],
  });
}

/** Paid and confirmed. */
export function completeView(): CheckoutView {
  return { ...confirmingView(2), status: 'COMPLETE' };
}

/** Expired; with `received` some funds arrived before expiry and one after. */
export function expiredView(received = false, overrides: Partial<CheckoutView> = {}): CheckoutView {
  return openView({
    status: 'EXPIRED',
    ...(received
      ? { amountDue: '0.00600000', totalReceivedAmount: '0.00500000', transactions: [txn(2, '0.00400000'), txn(0, '0.00100000', true)] }
      : {}),
    ...overrides,
  });
}

/** An open XRP payment: shared address plus destination tag. */
export function xrpView(): CheckoutView {
  return openView({
    amount: '25.000000',
    amountDue: '25.000000',
    totalReceivedAmount: '0.000000',
    asset: { short: 'XRP', network: 'ripple', name: 'XRP', logoUrl: LOGO, decimals: 6 },
    addressTo: 'rJr7jLSYYeGYeezsTCwSoRHYgQKEJzHq2K',
    destTag: '4817',
    paymentUri: 'ripple:rJr7jLSYYeGYeezsTCwSoRHYgQKEJzHq2K?dt=4817&amount=25',
    confirmsNeeded: 1,
  });
}

/** A JSON 200 with an ETag, as GET /v2/checkout/:id answers. */
export function viewResponse(view: CheckoutView, etag = `"${view.status}-${view.totalReceivedAmount}"`): Response {
  return new Response(JSON.stringify(view), { status: 200, headers: { 'Content-Type': 'application/json', ETag: etag } });
}

/** The API's 404 body. */
export function notFoundResponse(): Response {
  return new Response(JSON.stringify({ error: { code: 'payment-not-found', message: 'No payment.' } }), { status: 404, headers: { 'Content-Type': 'application/json' } });
}

/** A stand-in for EventSource that the test drives: `send` a payment event, `fail` the connection. */
export class FakeEventSource extends EventTarget {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  static instances: FakeEventSource[] = [];
  readyState = 0;

  constructor(readonly url: string) {
    super();
    FakeEventSource.instances.push(this);
  }

  /** The latest one created. */
  static get last(): FakeEventSource {
    const source = FakeEventSource.instances.at(-1);
    if (!source) throw new Error('no EventSource was opened');
    return source;
  }

  close(): void {
    this.readyState = FakeEventSource.CLOSED;
  }

  /** The server sends `event: payment` with this view. */
  send(view: CheckoutView): void {
    this.readyState = FakeEventSource.OPEN;
    this.dispatchEvent(new MessageEvent('payment', { data: JSON.stringify(view), lastEventId: `"${view.status}"` }));
  }

  /** The connection fails; `closed` means the browser gave up (a non-200 answer). */
  fail(closed: boolean): void {
    this.readyState = closed ? FakeEventSource.CLOSED : FakeEventSource.CONNECTING;
    this.dispatchEvent(new Event('error'));
  }
}

/** The network as the element sees it: a fetch stub and the fake EventSource, restored by `restore`. */
export interface FakeNetwork {
  fetch: sinon.SinonStub<Parameters<typeof fetch>, ReturnType<typeof fetch>>;
  restore(): void;
}

/** Replaces fetch (answering `firstAnswer` until told otherwise) and EventSource. */
export function fakeNetwork(firstAnswer: () => Response | Promise<Response>): FakeNetwork {
  const realEventSource = window.EventSource;
  FakeEventSource.instances = [];
  window.EventSource = FakeEventSource as unknown as typeof EventSource;
  const stub = sinon.stub(window, 'fetch').callsFake(async () => firstAnswer());
  return {
    fetch: stub,
    restore() {
      stub.restore();
      window.EventSource = realEventSource;
    },
  };
}

/** Lets real tasks run (fetch bodies, events) even while sinon fakes the timers. */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(null);
  });
}

/** Waits, task by task, until `condition` holds; fails with `what` after 500 tasks. */
export async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (condition()) return;
    await nextTask();
  }
  throw new Error(`timed out waiting until ${what}`);
}

/** Waits until `condition` holds, for up to `ms` of real time (a language chunk is a network fetch). */
export async function untilWithin(condition: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Renders <crypto-checkout> for the test payment; it starts loading at once. */
export async function renderCheckout(attributes: { theme?: 'light' | 'dark'; apiBase?: string; lang?: string } = {}): Promise<CryptoCheckout> {
  const el = await fixture<CryptoCheckout>(
    html`<crypto-checkout payment-id=${PAYMENT_ID} api-base=${attributes.apiBase ?? API_BASE} theme=${attributes.theme ?? nothing} lang=${attributes.lang ?? nothing}></crypto-checkout>`,
  );
  return el;
}

/** Renders the element and waits for its first view (from the fetch stub). */
export async function renderLoaded(attributes: Parameters<typeof renderCheckout>[0] = {}): Promise<CryptoCheckout> {
  const el = await renderCheckout(attributes);
  await until(() => el.checkout !== undefined, 'the first view arrived');
  // A language other than English arrives as its own chunk; the view shows once it has.
  await untilWithin(() => el.shadowRoot?.querySelector('[part~="base"]')?.getAttribute('data-status') !== 'loading', 'the view in its language');
  await el.updateComplete;
  return el;
}

/** A shadow-DOM element by CSS selector; fails when missing. */
export function $(el: CryptoCheckout, selector: string): HTMLElement {
  const found = el.shadowRoot!.querySelector<HTMLElement>(selector);
  if (!found) throw new Error(`no ${selector} in <crypto-checkout>`);
  return found;
}

/** All shadow-DOM elements matching a selector. */
export function $$(el: CryptoCheckout, selector: string): HTMLElement[] {
  return [...el.shadowRoot!.querySelectorAll<HTMLElement>(selector)];
}

/** Rendered text of a part, whitespace collapsed. */
export function partText(el: CryptoCheckout, part: string): string {
  return text($(el, `[part~="${part}"]`));
}

/** Text content, whitespace collapsed. */
export function text(node: Element): string {
  return (node.textContent ?? '').replace(/\s+/g, ' ').trim();
}

/** What the live region currently says. */
export function liveRegion(el: CryptoCheckout): string {
  return text($(el, '[role="status"]'));
}

/** Waits until the live region says something containing `words`. */
export async function announced(el: CryptoCheckout, words: string): Promise<void> {
  await until(() => liveRegion(el).includes(words), `the live region says "${words}" (it says "${liveRegion(el)}")`);
}
