/** Payments: newest first, a status filter, a search (id, invoice, transaction id, address), pages, the CSV export. */
import { html } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { call, type ListOf } from '../api.ts';
import { countOf } from '../count-text.ts';
import { formFields, timeText } from '../format.ts';
import { ListPageElement } from '../page-element.ts';
import { PAGE_LIMIT, pageCount, pagerNav } from '../pager.ts';
import './payments-page.css';

interface PaymentRow {
  id: string;
  status: string;
  /** OVERPAID, UNDERPAID, PAID_LATE or null (CONTRACT section 17). */
  exception: string | null;
  amount: string;
  asset: { short: string; network: string };
  /** The fiat price, when the payment was priced in one. */
  price: { amount: string; currency: string } | null;
  invoice: string | null;
  createdAt: string;
}

const STATUSES = ['', 'OPEN', 'CONFIRMING', 'COMPLETE', 'EXPIRED'];
// The API's largest page number.
const MAX_PAGE = 999_999_999;

/** The payments list page. */
export class PaymentsPage extends ListPageElement {
  static override properties = { ...ListPageElement.properties, list: { state: true }, search: { state: true }, status: { state: true } };
  declare list: ListOf<PaymentRow> | undefined;
  declare search: string;
  declare status: string;

  constructor() {
    super();
    // The filters and the page are kept in the address too (replaced, never pushed), so Back from a
    // payment finds the list as it was left, and a link or a reload shows the same list.
    const query = new URLSearchParams(location.search);
    this.search = query.get('search') ?? '';
    const status = query.get('status') ?? '';
    this.status = STATUSES.includes(status) ? status : '';
    const page = Number(query.get('page'));
    this.page = Number.isSafeInteger(page) && page >= 1 && page <= MAX_PAGE ? page : 1;
  }

  #remember(): void {
    const query = new URLSearchParams();
    if (this.search) query.set('search', this.search);
    if (this.status) query.set('status', this.status);
    if (this.page > 1) query.set('page', String(this.page));
    const text = query.toString();
    history.replaceState(history.state, '', text ? `${location.pathname}?${text}` : location.pathname);
  }

  async refresh(live = false): Promise<void> {
    const query = new URLSearchParams({ page: String(this.page), limit: String(PAGE_LIMIT) });
    if (this.search) query.set('search', this.search);
    if (this.status) query.set('statuses', this.status);
    const list = await this.newest(call<ListOf<PaymentRow>>('GET', `/payments?${query}`, undefined, { live }), live);
    if (!list) return;
    // A page past the end (an old link, or an address edited by hand) shows the last page instead.
    if (list.data.length === 0 && this.page > pageCount(list)) {
      this.page = pageCount(list);
      this.#remember();
      await this.refresh(live);
      return;
    }
    this.list = list;
  }

  #filter(event: Event): void {
    const fields = formFields(event);
    this.search = (fields.search ?? '').trim();
    this.status = fields.status ?? '';
    this.page = 1;
    this.#remember();
    void this.refresh().catch((err) => this.fail(err));
  }

  protected override go(page: number): void {
    super.go(page);
    this.#remember();
  }

  override render() {
    const list = this.list;
    const pages = pageCount(list);
    const now = new Date();
    const today = localDate(now);
    const monthAgo = localDate(new Date(now.getFullYear(), now.getMonth(), now.getDate() - 30));
    return html`
      <h1 tabindex="-1">Payments</h1>
      <form class="filters" role="search" @input=${this.clearFailure} @invalid=${this.clearFailure} @submit=${(e: Event) => this.#filter(e)}>
        <label>Search <input name="search" type="search" .value=${this.search} placeholder="id, invoice, transaction id or address" autocomplete="off" /></label>
        <label>Status
          <select name="status">${STATUSES.map((s) => html`<option value=${s} ?selected=${s === this.status}>${s || 'Any'}</option>`)}</select>
        </label>
        <button type="submit">Find</button>
      </form>
      <div class="table" role="region" aria-label="Payments" tabindex="0">
        <table class="payments">
          <thead><tr><th scope="col">Created</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">Invoice</th><th scope="col">Payment</th></tr></thead>
          <tbody>
            ${repeat(
              list?.data ?? [],
              (p) => p.id,
              (p) => html`<tr>
                <td class="created">${timeText(p.createdAt)}</td>
                <td class="state"><span class="status status-${p.status.toLowerCase()}">${p.status}</span>${p.exception ? html` <span class="exception">${p.exception.replace('_', ' ')}</span>` : ''}</td>
                <td class="amount">${p.amount} ${p.asset.short}${p.price ? html`<br><span class="price">${p.price.amount} ${p.price.currency}</span>` : ''}</td>
                <td class="invoice">${p.invoice ?? ''}</td>
                <td class="link nowrap"><a href="/dashboard/payments/${p.id}">${p.id.slice(0, 8)}<span class="visually-hidden"> (open payment ${p.id})</span></a></td>
              </tr>`,
            )}
          </tbody>
        </table>
      </div>
      <p role="status">${list ? `${countOf(list.total, 'payment', 'payments')}; page ${list.page} of ${pages}.` : 'Loading…'}</p>
      ${pagerNav('Payment pages', this.page, pages, (page) => this.go(page))}
      <h2>Export</h2>
      <form class="export" method="get" action="/dashboard/api/reports/payments.csv" @input=${this.clearFailure} @invalid=${this.clearFailure} @submit=${(e: Event) => this.#export(e)}>
        <label>From <input name="from" type="date" required .value=${monthAgo} /></label>
        <label>To <input name="to" type="date" required .value=${today} /></label>
        <button type="submit">Download CSV</button>
      </form>
      ${this.failure ? html`<p role="alert" class="failure">${this.failure}</p>` : ''}
    `;
  }

  // Dates are the browser's local days, as the list shows its times: from the start of `from` to the
  // end of `to`, each bound sent with its local offset (the server names the file by those days).
  // A range the server would refuse is said here, rather than leaving the app for its JSON answer.
  #export(event: Event): void {
    const fields = formFields(event);
    this.failure = '';
    if (fields.to! < fields.from!) {
      this.failure = 'The export range ends before it starts: pick a "To" date on or after the "From" date.';
      return;
    }
    const from = localDayStart(fields.from!, 0);
    const to = localDayStart(fields.to!, 1);
    location.assign(`/dashboard/api/reports/payments.csv?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
  }
}
customElements.define('payments-page', PaymentsPage);

const twoDigits = (n: number) => String(n).padStart(2, '0');

// A date input's value (YYYY-MM-DD) for the local day of `time`.
function localDate(time: Date): string {
  return `${String(time.getFullYear()).padStart(4, '0')}-${twoDigits(time.getMonth() + 1)}-${twoDigits(time.getDate())}`;
}

// The first local instant of the day `days` after a date input's value, in ISO 8601 with the local
// offset of that instant (its own: a range may cross a change to or from summer time).
function localDayStart(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const start = new Date(2000, 0, 1);
  // Not new Date(year, …): that reads a year below 100 as 19xx.
  start.setFullYear(year, month - 1, day + days);
  const east = -Math.round(start.getTimezoneOffset());
  const offset = `${east < 0 ? '-' : '+'}${twoDigits(Math.floor(Math.abs(east) / 60))}:${twoDigits(Math.abs(east) % 60)}`;
  return `${localDate(start)}T${twoDigits(start.getHours())}:${twoDigits(start.getMinutes())}:00${offset}`;
}
