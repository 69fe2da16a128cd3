/**
 * The order page: the order as the store's server last checked it, the two ways to pay side by
 * side (redirect to the hosted page, or the embedded <crypto-checkout>), the payer simulator, and
 * the rule the store follows to fulfil.
 */
import type { Order } from '../fulfilment.ts';
import type { Fulfilment } from '../store-webhooks.ts';
import { html, httpHref, type SafeHtml } from '../../api/http/html.ts';
import { networkName, trimAmount, usd, utcText, utcTime } from './format.ts';
import type { StoreFrame } from './layout.ts';

/** What the order page shows besides the order. */
export interface OrderPageOptions {
  /** Base URL of the API for the widget, like "http://localhost:3000/v2". */
  apiBase: string;
  /** A notice after a simulated payment without JavaScript. */
  simulated: boolean;
  /** The fulfilment a payment.completed webhook led to, if any. */
  fulfilment?: Fulfilment | undefined;
}

/** The server-checked status box; store.js refreshes the same fields from the status endpoint. */
function statusBox(order: Order): SafeHtml {
  return html`<div id="order-status" class="order-status" data-state="${order.state.kind}" role="status">
  <p><span class="badge" data-field="label">${order.state.label}</span></p>
  <p data-field="message">${order.state.message}</p>
  <p class="small">Checked by the store's server with <code>GET /v2/payment/:id</code> at <time data-field="checked" datetime="${order.checkedAt}">${utcTime(order.checkedAt)}</time>: <span data-field="payment-status">${order.payment.status}</span>.</p>
</div>`;
}

function thankYou(order: Order): SafeHtml {
  return html`<section id="thank-you" class="thank-you" aria-labelledby="thank-you-title" tabindex="-1"${order.state.kind === 'paid' ? '' : html` hidden`}>
  <h2 id="thank-you-title">Thank you, your order is paid</h2>
  <p>Your ${order.product.name} is being packed. The store marked order ${order.payment.invoice} paid after its server saw the payment record say <code>COMPLETE</code>.</p>
</section>`;
}

function hostedOption(order: Order): SafeHtml {
  const href = httpHref(order.payment.paymentRedirectUrl);
  return html`<section class="pay-option" aria-labelledby="hosted-title">
  <h2 id="hosted-title">Pay on the hosted page</h2>
  <p>Redirect the shopper to the payment service's own page. After paying, its button brings them back to this order.</p>
  ${href ? html`<p><a class="button primary" href="${href}">Pay on the hosted page</a></p>` : ''}
  <p class="small">Backend: <code>res.redirect(payment.paymentRedirectUrl)</code></p>
</section>`;
}

function embeddedOption(order: Order, apiBase: string): SafeHtml {
  const href = httpHref(order.payment.paymentRedirectUrl);
  return html`<section class="pay-option" aria-labelledby="embedded-title">
  <h2 id="embedded-title">Pay here, embedded</h2>
  <p>The <code>&lt;crypto-checkout&gt;</code> element on the store's own page, in the store's colours.</p>
  <crypto-checkout payment-id="${order.payment.id}" api-base="${apiBase}" theme="light">
    <p class="widget-fallback">Loading the payment…${href ? html` Without JavaScript, <a href="${href}">pay on the hosted page</a>.` : ''}</p>
  </crypto-checkout>
</section>`;
}

function simulator(frame: StoreFrame, order: Order, simulated: boolean): SafeHtml {
  if (!frame.simulator) return html``;
  const open = order.payment.status === 'OPEN';
  return html`<section class="simulate" aria-labelledby="simulate-title">
  <h2 id="simulate-title">Play the payer</h2>
  <p>The store's server sends the payer's transaction on the simulated ${networkName(order.payment.asset.network)} network,
  then mines the ${order.payment.confirmsNeeded} block${order.payment.confirmsNeeded === 1 ? '' : 's'} it needs, one every two seconds. Watch both integrations follow it.</p>
  <form id="simulate-form" method="post" action="${frame.basePath}/orders/${order.payment.id}/simulate">
    <button type="submit" class="button"${open ? '' : html` disabled`}>Simulate payment</button>
  </form>
  <p id="simulate-result" class="small" role="status">${simulated ? 'The payer\'s transaction was sent; blocks are being mined. Reload to follow.' : open ? '' : 'Only a payment that is still open can be simulated.'}</p>
</section>`;
}

const FULFILMENT_NOTE = html`<aside class="note" aria-labelledby="fulfil-title">
  <h2 id="fulfil-title">Fulfil from the server-side record</h2>
  <p>This page listens for the widget's <code>checkout-paid</code> event, but only as a cue to ask the store's server.
  The server calls <code>GET /v2/payment/:id</code> with its API key and marks the order paid only when that record says
  <code>COMPLETE</code> for the right amount and coin. A browser event, a return URL or a query string can be forged by anyone; the record cannot.</p>
</aside>`;

/** The order page's main content. */
export function orderPage(frame: StoreFrame, order: Order, options: OrderPageOptions): SafeHtml {
  const { payment, product } = order;
  const statusUrl = `${frame.basePath}/orders/${payment.id}/status`;
  return html`<nav class="breadcrumb" aria-label="Breadcrumb"><a href="${frame.basePath}/">Shop</a> <span aria-hidden="true">›</span> <a href="${frame.basePath}/orders">Orders</a></nav>
<div class="order" data-order-id="${payment.id}" data-status-url="${statusUrl}">
  <section class="order-summary" aria-labelledby="order-title">
    <h1 id="order-title">Order ${payment.invoice}</h1>
    <dl class="facts">
      <div><dt>Product</dt><dd>${product.name} · ${usd(product.priceUsd)}</dd></div>
      <div><dt>To pay</dt><dd><strong>${trimAmount(payment.amount)} ${payment.asset.short}</strong> on ${networkName(payment.asset.network)}</dd></div>
      <div><dt>Rate</dt><dd>${payment.rate ? `${usd(payment.rate.value)} per ${payment.asset.short} (${payment.rate.sources.join(', ')}), locked for this order` : 'No rate source was reachable, so the store priced this order in the coin at its fixed demo rate'}</dd></div>
      <div><dt>Received</dt><dd data-field="received">${trimAmount(payment.totalReceivedAmount)} ${payment.asset.short}</dd></div>
      <div><dt>Ordered</dt><dd><time datetime="${payment.createdAt}">${utcText(payment.createdAt)}</time></dd></div>
      <div><dt>Payment id</dt><dd><code>${payment.id}</code></dd></div>
    </dl>
    ${statusBox(order)}
    ${options.fulfilment
      ? html`<p class="small" data-field="fulfilment">Fulfilled on webhook <code>${options.fulfilment.webhookId}</code> (payment.completed) at <time datetime="${options.fulfilment.fulfilledAt}">${utcTime(options.fulfilment.fulfilledAt)}</time>, after the store checked the payment record.</p>`
      : ''}
    <p class="no-script-only"><a href="${frame.basePath}/orders/${payment.id}">Check the payment again</a></p>
  </section>
  ${thankYou(order)}
  <div class="pay-options">
    ${hostedOption(order)}
    ${embeddedOption(order, options.apiBase)}
  </div>
  ${simulator(frame, order, options.simulated)}
  ${FULFILMENT_NOTE}
</div>`;
}
