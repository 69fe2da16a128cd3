/** Withdrawals: the list, newest first and by pages, and for owners create, approve and cancel. */
import { html } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { call, type ListOf } from '../api.ts';
import { confirmAction } from '../confirm-dialog.ts';
import { countOf } from '../count-text.ts';
import { elided } from '../elided.ts';
import { formFields, timeText } from '../format.ts';
import { FOLLOW_EVERY_MS, ListPageElement } from '../page-element.ts';
import { PAGE_LIMIT, pageCount, pagerNav, rowFocus } from '../pager.ts';

interface Withdrawal {
  id: string;
  status: string;
  amount: string;
  asset: { short: string; network: string };
  addressTo: string;
  destTag: string | null;
  invoice: string;
  txnId: string | null;
  /** The network fee, taken from `amount`: the recipient gets the rest. */
  fee: string;
  failureReason?: string | null;
  createdAt: string;
}

interface ServedAsset {
  short: string;
  network: string;
  name: string;
}

/** The withdrawals page. */
export class WithdrawalsPage extends ListPageElement {
  static override properties = { ...ListPageElement.properties, list: { state: true }, assets: { state: true } };
  declare list: ListOf<Withdrawal> | undefined;
  /** The assets the service serves (the public GET /v2/assets), offered by the form. */
  declare assets: ServedAsset[];

  constructor() {
    super();
    this.assets = [];
  }

  override connectedCallback(): void {
    super.connectedCallback();
    if (this.canChange) void this.#loadAssets().catch((err) => this.fail(err));
  }

  async #loadAssets(): Promise<void> {
    const response = await fetch('/v2/assets', { headers: { Accept: 'application/json' } });
    if (!response.ok) throw new Error(`The served assets could not be read (the server answered ${response.status}).`);
    this.assets = ((await response.json()) as { data: ServedAsset[] }).data;
  }

  static override followEveryMs = FOLLOW_EVERY_MS;
  async refresh(live = false): Promise<void> {
    // Withdrawals count their pages from 0 (contract section 7); the page shows them from 1.
    this.list = (await this.newest(call<ListOf<Withdrawal>>('GET', `/withdrawals?page=${this.page - 1}&limit=${PAGE_LIMIT}`, undefined, { live }), live)) ?? this.list;
  }

  #create(event: Event): void {
    const f = formFields(event);
    const [short, network] = (f.asset ?? '').split('/');
    // A pasted address often brings a space or a line break at either end.
    const body = { amount: f.amount, asset: { short, network }, addressTo: (f.addressTo ?? '').trim(), invoice: f.invoice, ...(f.destTag?.trim() ? { destTag: f.destTag.trim() } : {}) };
    void this.act('Withdrawal created.', async () => {
      await call('POST', '/withdrawals', body);
      (event.target as HTMLFormElement).reset();
      this.page = 1; // where the new one is
    });
  }

  // Approving sends the funds: the dialog names what goes where before anything moves.
  async #approve(w: Withdrawal): Promise<void> {
    const sure = await confirmAction({
      title: `Approve withdrawal ${w.invoice}?`,
      facts: [
        ['Amount', `${w.amount} ${w.asset.short}`],
        ['Asset', `${w.asset.short} on ${w.asset.network}`],
        ['To', w.addressTo],
        ...(w.destTag ? ([['Destination tag', w.destTag]] as [string, string][]) : []),
      ],
      note: 'Approving sends these funds to this address. A payout cannot be taken back.',
      confirm: 'Approve and send',
      keep: "Don't approve",
    });
    if (sure) await this.act(`Withdrawal ${w.invoice} approved.`, () => call('POST', `/withdrawals/${w.id}/approve`), rowFocus(w.id));
  }

  async #cancel(w: Withdrawal): Promise<void> {
    const sure = await confirmAction({
      title: `Cancel withdrawal ${w.invoice}?`,
      facts: [['Amount', `${w.amount} ${w.asset.short}`], ['To', w.addressTo]],
      note: 'A cancelled withdrawal cannot be approved again; its amount returns to the balance.',
      confirm: 'Cancel withdrawal',
      keep: 'Keep it',
      destructive: true,
    });
    if (sure) await this.act(`Withdrawal ${w.invoice} cancelled.`, () => call('POST', `/withdrawals/${w.id}/cancel`), rowFocus(w.id));
  }

  override render() {
    return html`
      <h1 tabindex="-1">Withdrawals</h1>
      ${this.canChange
        ? html`<form class="stacked" @input=${this.clearFailure} @invalid=${this.clearFailure} @submit=${(e: Event) => this.#create(e)}>
            <h2>New withdrawal</h2>
            <label>Amount <input name="amount" required inputmode="decimal" pattern="[0-9]+(\\.[0-9]+)?" /></label>
            <label>Asset
              <select name="asset" required>${this.assets.map((a) => html`<option value="${a.short}/${a.network}" ?selected=${a.short === 'BTC' && a.network === 'bitcoin'}>${a.name} (${a.short} on ${a.network})</option>`)}</select>
            </label>
            <label>Address <input name="addressTo" required autocomplete="off" /></label>
            <label>Destination tag (if the network needs one) <input name="destTag" autocomplete="off" /></label>
            <label>Invoice <input name="invoice" required /></label>
            <button type="submit">Create withdrawal</button>
          </form>`
        : ''}
      <p role="status">${this.message}</p>
      ${this.failure ? html`<p role="alert" class="failure">${this.failure}</p>` : ''}
      <div class="table" role="region" aria-label="Withdrawals" tabindex="0">
        <table>
          <thead><tr><th scope="col">Created</th><th scope="col">Invoice</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">To</th>${this.canChange ? html`<th scope="col">Actions</th>` : ''}</tr></thead>
          <tbody>
            ${repeat(
              this.list?.data ?? [],
              (w) => w.id,
              (w) => html`<tr data-id=${w.id}>
                <td>${timeText(w.createdAt)}</td>
                <td>${w.invoice}</td>
                <td class="status-cell" tabindex="-1"><span class="status status-${w.status.toLowerCase()}">${w.status}</span>${w.failureReason ? html`<br /><small>${w.failureReason}</small>` : ''}</td>
                <td class="amount">${w.amount} ${w.asset.short}<br /><small>fee ${w.fee} ${w.asset.short}</small></td>
                <td>${elided(w.addressTo)}${w.txnId ? html`<br /><small>tx ${elided(w.txnId, 6)}</small>` : ''}</td>
                ${this.canChange
                  ? html`<td>${w.status === 'OPEN'
                      ? html`<div class="actions"><button type="button" @click=${() => void this.#approve(w)}>Approve<span class="visually-hidden"> ${w.invoice}</span></button>
                          <button type="button" class="secondary" @click=${() => void this.#cancel(w)}>Cancel<span class="visually-hidden"> ${w.invoice}</span></button></div>`
                      : ''}</td>`
                  : ''}
              </tr>`,
            )}
          </tbody>
        </table>
      </div>
      <p aria-live="polite">${this.list ? `${countOf(this.list.total, 'withdrawal', 'withdrawals')}; page ${this.list.page + 1} of ${pageCount(this.list)}.` : 'Loading…'}</p>
      ${pagerNav('Withdrawal pages', this.page, pageCount(this.list), (page) => this.go(page))}
    `;
  }
}
customElements.define('withdrawals-page', WithdrawalsPage);
