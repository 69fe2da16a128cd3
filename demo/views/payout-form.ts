/** The store owner's payout form on the orders page, with the API's field errors next to it. */
import Decimal from 'decimal.js';
import type { AssetBalance } from '../../client/index.ts';
import { html, type SafeHtml } from '../../api/http/html.ts';
import type { PayoutForm, PayoutResult } from '../payouts.ts';
import { networkName, trimAmount } from './format.ts';
import type { StoreFrame } from './layout.ts';

/** A payout the API refused, with what the owner typed. */
export interface RefusedPayout {
  result: Extract<PayoutResult, { ok: false }>;
  form: PayoutForm;
}

// Which form field an error's path belongs to.
const FIELD_OF_PATH: Record<string, string> = { amount: 'amount', addressTo: 'addressTo', destTag: 'destTag' };
const LABELS: Record<string, string> = { asset: 'Coin', amount: 'Amount', addressTo: 'To address', destTag: 'Destination tag' };

function fieldOf(path: string): string {
  return FIELD_OF_PATH[path] ?? (path.startsWith('asset') ? 'asset' : '');
}

function problems(refused: RefusedPayout | undefined): SafeHtml {
  if (!refused) return html``;
  const details = refused.result.details;
  return html`<div class="form-error" role="alert">
  <p>${details.length > 0 ? 'The payment service refused the payout. Fix these fields and try again:' : refused.result.message}</p>
  ${details.length > 0 ? html`<ul>${details.map((d) => html`<li>${LABELS[fieldOf(d.path)] ?? d.path} ${d.message}</li>`)}</ul>` : ''}
</div>`;
}

/** The form; a note instead while nothing can be paid out, or without the simulator (the demo has no owner login). */
export function payoutForm(frame: StoreFrame, balances: AssetBalance[], refused: RefusedPayout | undefined): SafeHtml {
  if (!frame.simulator) return html`<p class="small">This demo store pays out only on simulated networks (SIMULATOR=on): it has no owner login.</p>`;
  const payable = balances.filter((row) => new Decimal(row.available).gt(0));
  if (payable.length === 0) return html`<p class="small">Payouts open here once a payment has credited the balance.</p>`;
  const values = refused?.form ?? { asset: '', amount: '', addressTo: '', destTag: '' };
  const invalid = new Set(refused?.result.details.map((d) => fieldOf(d.path)) ?? []);
  const invalidAttr = (field: string) => (invalid.has(field) ? html` aria-invalid="true"` : '');
  return html`<form class="payout-form" method="post" action="${frame.basePath}/withdrawals" aria-labelledby="payout-title">
  <h3 id="payout-title">Pay out from the balance</h3>
  ${problems(refused)}
  <div class="field">
    <label for="payout-asset">Coin</label>
    <select id="payout-asset" name="asset"${invalidAttr('asset')}>
      ${payable.map((row) => {
        const key = `${row.asset.short}:${row.asset.network}`;
        return html`<option value="${key}"${key === values.asset ? html` selected` : ''}>${row.asset.short} on ${networkName(row.asset.network)} (${trimAmount(row.available)} available)</option>`;
      })}
    </select>
  </div>
  <div class="field">
    <label for="payout-amount">Amount</label>
    <input id="payout-amount" name="amount" inputmode="decimal" autocomplete="off" required value="${values.amount}"${invalidAttr('amount')}>
  </div>
  <div class="field wide">
    <label for="payout-address">To address</label>
    <input id="payout-address" name="addressTo" autocomplete="off" spellcheck="false" required value="${values.addressTo}"${invalidAttr('addressTo')}>
  </div>
  <div class="field">
    <label for="payout-tag">Destination tag <span class="small">(XRP only)</span></label>
    <input id="payout-tag" name="destTag" inputmode="numeric" autocomplete="off" value="${values.destTag}"${invalidAttr('destTag')}>
  </div>
  <p class="small wide">The API reserves the amount now. Approve the withdrawal to send it (the network fee comes out of the amount), or cancel it to release the reservation.</p>
  <p class="wide"><button type="submit" class="button primary">Create withdrawal</button></p>
</form>`;
}
