/** The orders page: the store's payments, withdrawals and balances, straight from the API. */
import type { Payment, PaymentStatus, WebhookDelivery, Withdrawal } from '../../client/index.ts';
import { productOfInvoice } from '../catalogue.ts';
import { OVERVIEW_LIMIT, type Overview } from '../demo-store.ts';
import { html, type SafeHtml } from '../../api/http/html.ts';
import { networkName, trimAmount, utcText } from './format.ts';
import type { StoreFrame } from './layout.ts';
import { payoutForm, type RefusedPayout } from './payout-form.ts';

/** What the withdrawals section shows besides the records. */
export interface PayoutState {
  /** The withdrawal an action just changed (highlighted, with a notice). */
  changedId?: string;
  /** A payout the API just refused. */
  refused?: RefusedPayout;
}

const PAYMENT_STATUSES: readonly PaymentStatus[] = ['OPEN', 'CONFIRMING', 'COMPLETE', 'EXPIRED'];

function statusBadge(status: string): SafeHtml {
  return html`<span class="badge" data-status="${status}">${status}</span>`;
}

function paymentRow(frame: StoreFrame, payment: Payment): SafeHtml {
  const product = productOfInvoice(payment.invoice);
  const reference = payment.invoice ?? payment.id;
  return html`<tr>
  <th scope="row">${product ? html`<a href="${frame.basePath}/orders/${payment.id}">${reference}</a>` : reference}</th>
  <td>${product?.name ?? '—'}</td>
  <td class="number">${trimAmount(payment.amount)} ${payment.asset.short}</td>
  <td class="number">${trimAmount(payment.totalReceivedAmount)}</td>
  <td>${statusBadge(payment.status)}</td>
  <td><time datetime="${payment.createdAt}">${utcText(payment.createdAt)}</time></td>
</tr>`;
}

function withdrawalActions(frame: StoreFrame, withdrawal: Withdrawal): SafeHtml {
  if (withdrawal.status !== 'OPEN' || !frame.simulator) return html``;
  const action = (verb: 'approve' | 'cancel', label: string, primary: boolean) =>
    html`<form class="inline-form" method="post" action="${frame.basePath}/withdrawals/${withdrawal.id}/${verb}"><button type="submit" class="button compact${primary ? ' primary' : ''}">${label}<span class="visually-hidden"> ${withdrawal.invoice}</span></button></form>`;
  return html`${action('approve', 'Approve', true)} ${action('cancel', 'Cancel', false)}`;
}

function withdrawalRow(frame: StoreFrame, withdrawal: Withdrawal, changed: boolean): SafeHtml {
  return html`<tr${changed ? html` class="changed"` : ''}>
  <th scope="row">${withdrawal.invoice}</th>
  <td class="number">${trimAmount(withdrawal.amount)} ${withdrawal.asset.short}</td>
  <td><code class="address">${withdrawal.addressTo}</code></td>
  <td>${statusBadge(withdrawal.status)}</td>
  <td><time datetime="${withdrawal.createdAt}">${utcText(withdrawal.createdAt)}</time></td>
  <td class="actions">${withdrawalActions(frame, withdrawal)}</td>
</tr>`;
}

// The scrollable wrapper is a named region so keyboard users can scroll it; its name is the caption.
function table(caption: string, head: string[], rows: SafeHtml[]): SafeHtml {
  return html`<div class="table-wrap" role="region" aria-label="${caption}" tabindex="0">
  <table>
    <caption class="visually-hidden">${caption}</caption>
    <thead><tr>${head.map((cell) => html`<th scope="col">${cell}</th>`)}</tr></thead>
    <tbody>${rows}</tbody>
  </table>
</div>`;
}

function more(shown: number, isMore: boolean): SafeHtml {
  return isMore ? html`<p class="small">The newest ${shown} are shown (the client pages through ${OVERVIEW_LIMIT} at a time).</p>` : html``;
}

/** The store's webhook endpoint and its newest delivery attempts. */
export interface DeliveryLog {
  endpointUrl: string | undefined;
  attempts: WebhookDelivery[];
}

function deliveryRow(attempt: WebhookDelivery): SafeHtml {
  return html`<tr>
  <th scope="row"><code>${attempt.type}</code></th>
  <td class="number">${attempt.attempt}</td>
  <td>${attempt.statusCode ?? 'no answer'}${attempt.error ? html` <span class="small">${attempt.error}</span>` : ''}</td>
  <td class="number">${attempt.durationMs} ms</td>
  <td><code class="address">${attempt.eventId}</code></td>
  <td><time datetime="${attempt.createdAt}">${utcText(attempt.createdAt)}</time></td>
</tr>`;
}

function deliveriesSection(log: DeliveryLog): SafeHtml {
  return html`<section aria-labelledby="webhooks-title">
  <h2 id="webhooks-title">Webhook deliveries</h2>
  ${log.endpointUrl
    ? html`<p>The service signs each event and posts it to <code>${log.endpointUrl}</code>; the store verifies it with <code>verifyWebhook</code> and fulfils an order on <code>payment.completed</code> after checking the payment with <code>GET /v2/payment/:id</code>. From <code>client.listDeliveries()</code>:</p>`
    : html`<p>The store registers its webhook endpoint when it starts; it is not registered yet.</p>`}
  ${log.attempts.length === 0
    ? html`<p>No deliveries yet.</p>`
    : table('Webhook delivery attempts, newest first', ['Event', 'Attempt', 'Answer', 'Took', 'webhook-id', 'Sent'], log.attempts.map(deliveryRow))}
</section>`;
}

/** The orders page's main content. */
export function ordersPage(frame: StoreFrame, overview: Overview, status: PaymentStatus | undefined, payout: PayoutState = {}, deliveries: DeliveryLog = { endpointUrl: undefined, attempts: [] }): SafeHtml {
  const changed = overview.withdrawals.find((w) => w.id === payout.changedId);
  return html`<div class="orders-page">
<h1>Orders</h1>
<p>Everything here comes from the payment API through the client: <code>client.payments()</code>, <code>client.withdrawals()</code> and <code>client.getBalance()</code>.</p>

<section aria-labelledby="payments-title">
  <h2 id="payments-title">Payments</h2>
  <form class="filter" method="get" action="${frame.basePath}/orders">
    <label for="status-filter">Status</label>
    <select id="status-filter" name="status">
      <option value="">Any status</option>
      ${PAYMENT_STATUSES.map((s) => html`<option value="${s}"${s === status ? html` selected` : ''}>${s}</option>`)}
    </select>
    <button type="submit" class="button">Show</button>
  </form>
  ${overview.payments.length === 0
    ? html`<p>${status ? `No ${status} payments.` : 'No payments yet: buy something in the shop.'}</p>`
    : table('Payments, newest first', ['Order', 'Product', 'Amount', 'Received', 'Status', 'Created'], overview.payments.map((p) => paymentRow(frame, p)))}
  ${more(overview.payments.length, overview.morePayments)}
</section>

<section aria-labelledby="withdrawals-title">
  <h2 id="withdrawals-title">Withdrawals</h2>
  ${changed ? html`<p class="notice" role="status">Withdrawal ${changed.invoice} is now ${changed.status}.</p>` : ''}
  ${overview.withdrawals.length === 0
    ? html`<p>No withdrawals yet.</p>`
    : table(
        'Withdrawals, newest first',
        ['Invoice', 'Amount', 'To address', 'Status', 'Created', 'Actions'],
        overview.withdrawals.map((w) => withdrawalRow(frame, w, w.id === changed?.id)),
      )}
  ${more(overview.withdrawals.length, overview.moreWithdrawals)}
  ${payoutForm(frame, overview.balances, payout.refused)}
</section>

<section aria-labelledby="balances-title">
  <h2 id="balances-title">Balances</h2>
  ${overview.balances.length === 0
    ? html`<p>Nothing credited yet: balances grow as payments confirm.</p>`
    : table(
        'Balances per asset',
        ['Asset', 'Available', 'Reserved'],
        overview.balances.map(
          (row) => html`<tr><th scope="row">${row.asset.short} on ${networkName(row.asset.network)}</th><td class="number">${trimAmount(row.available)}</td><td class="number">${trimAmount(row.reserved)}</td></tr>`,
        ),
      )}
</section>

${deliveriesSection(deliveries)}
</div>`;
}

/** Reads the status filter of the orders page; anything else means no filter. */
export function statusFilter(value: unknown): PaymentStatus | undefined {
  return PAYMENT_STATUSES.find((status) => status === value);
}
