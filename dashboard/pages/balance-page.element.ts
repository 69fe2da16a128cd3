/** Balance: available and reserved per asset. */
import { html } from 'lit';
import { call } from '../api.ts';
import { FOLLOW_EVERY_MS, PageElement } from '../page-element.ts';

interface BalanceRow {
  asset: { short: string; network: string; name: string };
  available: string;
  reserved: string;
}

/** The balance page. */
export class BalancePage extends PageElement {
  static override properties = { ...PageElement.properties, rows: { state: true } };
  declare rows: BalanceRow[] | undefined;

  static override followEveryMs = FOLLOW_EVERY_MS;
  async refresh(live = false): Promise<void> {
    this.rows = (await this.newest(call<{ data: BalanceRow[] }>('GET', '/balance', undefined, { live }), live))?.data ?? this.rows;
  }

  override render() {
    return html`
      <h1 tabindex="-1">Balance</h1>
      <div class="table" role="region" aria-label="Balance per asset" tabindex="0">
        <table>
          <thead><tr><th scope="col">Asset</th><th scope="col">Available</th><th scope="col">Reserved</th></tr></thead>
          <tbody>${(this.rows ?? []).map((r) => html`<tr><td>${r.asset.name} (${r.asset.short}, ${r.asset.network})</td><td class="amount">${r.available}</td><td class="amount">${r.reserved}</td></tr>`)}</tbody>
        </table>
      </div>
      ${this.failure ? html`<p role="alert" class="failure">${this.failure}</p>` : ''}
    `;
  }
}
customElements.define('balance-page', BalancePage);
