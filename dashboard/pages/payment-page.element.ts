/**
 * One payment: the record (its price and locked rate when priced in fiat, what arrived, what is
 * short or over, what may still be refunded, the customer), its transactions with confirmations,
 * its refunds, and the webhook deliveries of its events.
 */
import { html } from 'lit';
import { call } from '../api.ts';
import { elided } from '../elided.ts';
import { timeText } from '../format.ts';
import { PageElement } from '../page-element.ts';
import { REFUNDS_CHANGED } from './refunds-page.element.ts';

interface Payment {
  id: string;
  status: string;
  amount: string;
  amountDue: string;
  totalReceivedAmount: string;
  asset: { short: string; network: string };
  addressTo: string;
  destTag: string | null;
  confirmsNeeded: number;
  invoice: string | null;
  /** The fiat price it was created with, and the rate locked then (CONTRACT section 16); null when priced in the asset. */
  price: { amount: string; currency: string } | null;
  rate: { value: string; currency: string; sources: string[]; at: string } | null;
  createdAt: string;
  expiresAt: string;
  exception: 'OVERPAID' | 'UNDERPAID' | 'PAID_LATE' | null;
  overpaidAmount: string | null;
  refundableAmount: string;
  customer: { id?: number; name?: string; email?: string } | null;
  checkoutUrl: string | null;
  transactions: Array<{ txnId: string; receivedAmount: string; confirmations: number; date: string; late: boolean }>;
}

interface Delivery {
  id: string;
  type: string;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  createdAt: string;
  url: string;
}

/** The payment page. */
export class PaymentPage extends PageElement {
  static override properties = { ...PageElement.properties, paymentId: { type: String }, payment: { state: true }, deliveries: { state: true } };
  declare paymentId: string;
  declare payment: Payment | undefined;
  declare deliveries: Delivery[];

  constructor() {
    super();
    this.deliveries = [];
    // A refund made, cancelled or moved changes what is refundable: read the record again.
    this.addEventListener(REFUNDS_CHANGED, (event) => void this.refresh(event.detail.live).catch((err) => this.fail(err)));
  }

  async refresh(live = false): Promise<void> {
    const id = encodeURIComponent(this.paymentId);
    const read = Promise.all([call<Payment>('GET', `/payments/${id}`, undefined, { live }), call<{ data: Delivery[] }>('GET', `/payments/${id}/deliveries`, undefined, { live })]);
    const answer = await this.newest(read, live);
    if (!answer) return;
    [this.payment, { data: this.deliveries }] = answer;
  }

  // One heading element before and after the payment arrives: the app focuses it when the page
  // opens, and replacing it would drop the focus to the document.
  override render() {
    const p = this.payment;
    return html`<h1 tabindex="-1">Payment${p ? html` <span class="mono">${p.id}</span>` : ''}</h1>${p ? this.#details(p) : this.failure ? html`<p role="alert" class="failure">${this.failure}</p>` : html`<p role="status">Loading…</p>`}`;
  }

  #details(p: Payment) {
    return html`
      <p><a href="/dashboard/payments">Back to payments</a></p>
      <dl class="facts">
        <div><dt>Status</dt><dd><span class="status status-${p.status.toLowerCase()}" id="payment-status">${p.status}</span></dd></div>
        <div><dt>Exception</dt><dd id="payment-exception">${exceptionText(p)}</dd></div>
        <div><dt>Amount</dt><dd>${p.amount} ${p.asset.short} (${p.asset.network})</dd></div>
        ${p.price ? html`<div><dt>Price</dt><dd id="payment-price">${p.price.amount} ${p.price.currency}</dd></div>` : ''}
        ${p.rate
          ? html`<div><dt>Rate</dt><dd id="payment-rate">1 ${p.asset.short} = ${p.rate.value} ${p.rate.currency}, locked ${timeText(p.rate.at)} (${p.rate.sources.join(', ')})</dd></div>`
          : ''}
        <div><dt>Received</dt><dd>${p.totalReceivedAmount} ${p.asset.short}</dd></div>
        ${p.status === 'EXPIRED'
          ? html`<div><dt>Short at expiry</dt><dd>${p.amountDue} ${p.asset.short}</dd></div>`
          : html`<div><dt>Still due</dt><dd>${p.amountDue} ${p.asset.short}</dd></div>`}
        ${p.overpaidAmount ? html`<div><dt>Overpaid by</dt><dd>${p.overpaidAmount} ${p.asset.short}</dd></div>` : ''}
        <div><dt>Refundable</dt><dd id="payment-refundable">${p.refundableAmount} ${p.asset.short}</dd></div>
        ${p.customer ? html`<div><dt>Customer</dt><dd id="payment-customer">${customerText(p.customer)}</dd></div>` : ''}
        ${p.checkoutUrl ? html`<div><dt>Checkout page</dt><dd><a href=${p.checkoutUrl} rel="noopener noreferrer">${p.checkoutUrl}</a></dd></div>` : ''}
        <div><dt>Address</dt><dd class="mono">${p.addressTo}${p.destTag ? ` (tag ${p.destTag})` : ''}</dd></div>
        <div><dt>Invoice</dt><dd>${p.invoice ?? ''}</dd></div>
        <div><dt>Created</dt><dd>${timeText(p.createdAt)}</dd></div>
        <div><dt>Expires</dt><dd>${timeText(p.expiresAt)}</dd></div>
      </dl>
      <h2>Transactions</h2>
      ${p.transactions.length === 0
        ? html`<p>None yet.</p>`
        : html`<div class="table" role="region" aria-label="Transactions" tabindex="0"><table>
            <thead><tr><th scope="col">Transaction id</th><th scope="col">Amount</th><th scope="col">Confirmations</th><th scope="col">Seen</th></tr></thead>
            <tbody>${p.transactions.map(
              (t) => html`<tr><td class="mono txn">${t.txnId}</td><td class="amount">${t.receivedAmount}</td><td>${t.confirmations} of ${p.confirmsNeeded}${t.late ? ' (late)' : ''}</td><td>${timeText(t.date)}</td></tr>`,
            )}</tbody></table></div>`}
      <refunds-page .session=${this.session} paymentId=${p.id} nothingToRefund=${nothingToRefund(p)}></refunds-page>
      <h2>Webhook deliveries</h2>
      ${this.deliveries.length === 0
        ? html`<p>No deliveries of this payment's events.</p>`
        : html`<div class="table" role="region" aria-label="Webhook deliveries" tabindex="0"><table>
            <thead><tr><th scope="col">Event</th><th scope="col">Endpoint</th><th scope="col">Attempt</th><th scope="col">Answer</th><th scope="col">When</th></tr></thead>
            <tbody>${this.deliveries.map(
              (d) => html`<tr><td>${d.type}</td><td>${elided(d.url, 12)}</td><td>${d.attempt}</td><td>${d.statusCode ?? d.error ?? ''}</td><td>${timeText(d.createdAt)}</td></tr>`,
            )}</tbody></table></div>`}
      ${this.failure ? html`<p role="alert" class="failure">${this.failure}</p>` : ''}
    `;
  }
}
customElements.define('payment-page', PaymentPage);

const isZero = (amount: string) => /^0*(\.0*)?$/.test(amount);

// The exception with what it means for the shop: whether the order is paid, and what the payer may be owed.
function exceptionText(p: Payment): string {
  switch (p.exception) {
    case 'OVERPAID':
      return `Overpaid: ${p.overpaidAmount ?? 'more'} ${p.asset.short} more than asked arrived. The order is paid; the payer may be owed the difference (refund it below).`;
    case 'UNDERPAID':
      return 'Underpaid: the payment expired before enough arrived, so the order is not paid. Refund what arrived, or settle with the payer another way.';
    case 'PAID_LATE':
      return 'Paid late: funds arrived after the payment expired and do not pay it. Refund them, or settle with the payer another way.';
    default:
      return 'None';
  }
}

function customerText(customer: NonNullable<Payment['customer']>): string {
  return [customer.name, customer.email, customer.id === undefined ? undefined : `id ${customer.id}`].filter(Boolean).join(' · ');
}

// Why the refund form is left out, or '' while there is something to refund.
function nothingToRefund(p: Payment): string {
  if (!isZero(p.refundableAmount)) return '';
  if (isZero(p.totalReceivedAmount)) return 'Nothing to refund: nothing has arrived.';
  if (p.transactions.some((t) => t.confirmations < p.confirmsNeeded)) return 'Nothing to refund until what arrived is confirmed.';
  return 'Nothing left to refund.';
}
