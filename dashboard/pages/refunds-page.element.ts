/**
 * Refunds: every refund by pages, or one payment's (`paymentId`, inside the payment page); owners approve and
 * cancel them, and on a payment refund it (an amount or what the payer is owed; an address or a claim link).
 */
import { html } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { call, type ListOf } from '../api.ts';
import { confirmAction } from '../confirm-dialog.ts';
import { countOf } from '../count-text.ts';
import { elided } from '../elided.ts';
import { formFields, timeText } from '../format.ts';
import { FOLLOW_EVERY_MS, ListPageElement } from '../page-element.ts';
import { PAGE_LIMIT, pageCount, pagerNav, rowFocus } from '../pager.ts';

interface Refund {
  id: string;
  paymentId: string;
  amount: string;
  asset: { short: string; network: string };
  addressTo: string | null;
  destTag: string | null;
  status: string;
  /** Owners only: the payer's link to give the address. */
  claimUrl?: string;
  reason: string | null;
  createdAt: string;
  failureReason?: string;
  /** The payout transaction, once one is out: the refund can no longer be cancelled. */
  txnId: string | null;
}

/** Fired (bubbling) by a payment's refunds section when its refunds change: what is refundable changed too. */
export const REFUNDS_CHANGED = 'payment-refunds-changed';
declare global {
  interface HTMLElementEventMap {
    [REFUNDS_CHANGED]: CustomEvent<{ live: boolean }>;
  }
}

/** The refunds page, or a payment's refunds section. */
export class RefundsPage extends ListPageElement {
  static override properties = { ...ListPageElement.properties, paymentId: { type: String }, nothingToRefund: { type: String }, list: { state: true } };
  declare paymentId: string | undefined;
  /** In a payment's section: why there is nothing to refund (the form is left out then); empty: there is. */
  declare nothingToRefund: string | undefined;
  declare list: ListOf<Refund> | undefined;
  static override followEveryMs = FOLLOW_EVERY_MS;
  async refresh(live = false): Promise<void> {
    const only = this.paymentId ? `&paymentIds=${encodeURIComponent(this.paymentId)}` : '';
    const before = this.list;
    this.list = (await this.newest(call<ListOf<Refund>>('GET', `/refunds?page=${this.page}&limit=${PAGE_LIMIT}${only}`, undefined, { live }), live)) ?? this.list;
    if (this.paymentId && before && this.list && refundsText(before) !== refundsText(this.list)) this.dispatchEvent(new CustomEvent(REFUNDS_CHANGED, { bubbles: true, detail: { live } }));
  }

  #refund(event: Event): void {
    const f = formFields(event);
    const body = {
      ...(f.amount ? { amount: f.amount } : {}),
      // A pasted address often brings a space or a line break at either end.
      ...(f.addressTo?.trim() ? { addressTo: f.addressTo.trim() } : {}),
      ...(f.destTag?.trim() ? { destTag: f.destTag.trim() } : {}),
      ...(f.reason ? { reason: f.reason } : {}),
    };
    void this.act('Refund created.', async () => {
      await call('POST', `/payments/${encodeURIComponent(this.paymentId!)}/refund`, body);
      (event.target as HTMLFormElement).reset();
      this.page = 1; // where the new one is
    });
  }

  // Approving sends the refund: the dialog names what goes where before anything moves.
  async #approve(r: Refund): Promise<void> {
    const sure = await confirmAction({
      title: `Approve refund ${r.id.slice(0, 8)}?`,
      facts: [
        ['Amount', `${r.amount} ${r.asset.short}`],
        ['Asset', `${r.asset.short} on ${r.asset.network}`],
        ['To', r.addressTo ?? ''],
        ...(r.destTag ? ([['Destination tag', r.destTag]] as [string, string][]) : []),
      ],
      note: 'Approving sends these funds to this address. A payout cannot be taken back.',
      confirm: 'Approve and send',
      keep: "Don't approve",
    });
    if (sure) await this.act('Refund approved.', () => call('POST', `/refunds/${r.id}/approve`), rowFocus(r.id));
  }

  async #cancel(r: Refund): Promise<void> {
    const sure = await confirmAction({
      title: `Cancel refund ${r.id.slice(0, 8)}?`,
      facts: [['Amount', `${r.amount} ${r.asset.short}`]],
      note: 'A cancelled refund cannot be approved again.',
      confirm: 'Cancel refund',
      keep: 'Keep it',
      destructive: true,
    });
    if (sure) await this.act('Refund cancelled.', () => call('POST', `/refunds/${r.id}/cancel`), rowFocus(r.id));
  }

  override render() {
    const heading = this.paymentId ? html`<h2 tabindex="-1">Refunds</h2>` : html`<h1 tabindex="-1">Refunds</h1>`;
    const rows = this.list?.data ?? [];
    return html`
      ${heading}
      ${this.paymentId && this.nothingToRefund ? html`<p id="nothing-to-refund">${this.nothingToRefund}</p>` : ''}
      ${this.paymentId && this.canChange && !this.nothingToRefund
        ? html`<form class="stacked" @input=${this.clearFailure} @invalid=${this.clearFailure} @submit=${(e: Event) => this.#refund(e)}>
            <label>Amount (empty: what the payer is owed) <input name="amount" inputmode="decimal" pattern="[0-9]+(\\.[0-9]+)?" /></label>
            <label>Payer's address (empty: a claim link for the payer) <input name="addressTo" autocomplete="off" /></label>
            <label>Destination tag (with an address, if the network needs one) <input name="destTag" autocomplete="off" inputmode="numeric" /></label>
            <label>Reason <input name="reason" maxlength="200" /></label>
            <button type="submit">Refund this payment</button>
          </form>`
        : ''}
      <p role="status">${this.message}</p>
      ${this.failure ? html`<p role="alert" class="failure">${this.failure}</p>` : ''}
      ${rows.length === 0
        ? html`<p>No refunds.</p>`
        : html`<div class="table" role="region" aria-label="Refunds" tabindex="0"><table>
            <thead><tr><th scope="col">Created</th><th scope="col">Refund</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">To</th>${this.paymentId ? '' : html`<th scope="col">Payment</th>`}${this.canChange ? html`<th scope="col">Actions</th>` : ''}</tr></thead>
            <tbody>${repeat(
              rows,
              (r) => r.id,
              (r) => html`<tr data-id=${r.id}>
                <td>${timeText(r.createdAt)}</td>
                <td class="mono nowrap" title=${r.id}>${r.id.slice(0, 8)}</td>
                <td class="status-cell" tabindex="-1"><span class="status status-${r.status.toLowerCase()}">${r.status}</span>${r.failureReason ? html`<br /><small>${r.failureReason}</small>` : ''}</td>
                <td class="amount">${r.amount} ${r.asset.short}</td>
                <td>${r.addressTo ? elided(r.addressTo) : (r.claimUrl ? html`<a href=${r.claimUrl}>claim link</a>` : 'awaiting the payer')}${r.txnId ? html`<br /><small>tx ${elided(r.txnId, 6)}</small>` : ''}</td>
                ${this.paymentId ? '' : html`<td class="nowrap"><a href="/dashboard/payments/${r.paymentId}">${r.paymentId.slice(0, 8)}<span class="visually-hidden"> (payment ${r.paymentId})</span></a></td>`}
                ${this.canChange
                  ? html`<td>
                      <div class="actions">${r.status === 'REQUESTED' ? html`<button type="button" @click=${() => void this.#approve(r)}>Approve<span class="visually-hidden"> refund ${r.id.slice(0, 8)}</span></button>` : ''}
                      ${['AWAITING_ADDRESS', 'REQUESTED', 'APPROVED'].includes(r.status) && !r.txnId ? html`<button type="button" class="secondary" @click=${() => void this.#cancel(r)}>Cancel<span class="visually-hidden"> refund ${r.id.slice(0, 8)}</span></button>` : ''}</div>
                    </td>`
                  : ''}
              </tr>`,
            )}</tbody></table></div>`}
      ${this.#pager()}
    `;
  }

  // The refunds page always says where its list is; a payment's section only once it has more than one page.
  #pager() {
    const pages = pageCount(this.list);
    if (!this.list || (this.paymentId && pages === 1)) return '';
    return html`<p aria-live="polite">${countOf(this.list.total, 'refund', 'refunds')}; page ${this.list.page} of ${pages}.</p>
      ${pagerNav('Refund pages', this.page, pages, (page) => this.go(page))}`;
  }
}
customElements.define('refunds-page', RefundsPage);

// What of a list decides what is refundable: which refunds there are, and their statuses.
const refundsText = (list: ListOf<Refund>) => `${list.total} ${list.data.map((r) => `${r.id}:${r.status}`).join(' ')}`;
