/** One payment: the record, its transactions with confirmations, and the webhook deliveries of its events. */
import { html } from 'lit';
import { call } from '../api.ts';
import { elided } from '../elided.ts';
import { timeText } from '../format.ts';
import { PageElement } from '../page-element.ts';
import './refunds-page.element.ts';

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
  createdAt: string;
  expiresAt: string;
  exception?: string | null;
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
        <div><dt>Exception</dt><dd>${p.exception ?? 'None'}</dd></div>
        <div><dt>Amount</dt><dd>${p.amount} ${p.asset.short} (${p.asset.network})</dd></div>
        <div><dt>Received</dt><dd>${p.totalReceivedAmount} ${p.asset.short}</dd></div>
        <div><dt>Still due</dt><dd>${p.amountDue} ${p.asset.short}</dd></div>
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
      <refunds-page .session=${this.session} paymentId=${p.id}></refunds-page>
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
