/**
 * @module The payer's refund pages: the claim page (what the shop refunds, a form for the address
 * while the refund awaits one, then its progress to COMPLETE) and the request page of an UNDERPAID
 * or PAID_LATE payment. Only the shop's name, the amount and the refund's own progress are shown.
 */
import { amountText, networkName } from '../../widget/checkout-format.ts';
import type { PageAssets } from '../checkout/pay-page.ts';
import { html, type SafeHtml } from '../http/html.ts';
import type { Asset } from '../networks/asset-registry.ts';
import type { ClaimView, RequestView } from '../refunds/refund-claims.ts';
import type { PayerMessages } from './payer-messages.ts';
import { REFUND_REFRESH_SECONDS, renderPayerPage } from './page-shell.ts';

/** What the payer typed, shown again beside the reason it was refused. */
export interface FormState {
  error?: string;
  /** The field the error is about: it is marked invalid and takes the focus. */
  errorField?: 'addressTo' | 'destTag';
  addressTo?: string;
  destTag?: string;
}

function fact(label: string, value: SafeHtml | string): SafeHtml {
  return html`<div class="pay-fact"><dt>${label}</dt><dd>${value}</dd></div>`;
}

function destinationFields(asset: Asset, needsTag: boolean, m: PayerMessages, state: FormState): SafeHtml {
  const error = state.error ? html`<p class="pay-warning" role="alert" id="pay-form-error">${state.error}</p>` : '';
  // The field the error is about takes the focus as the page loads, so a keyboard or screen reader
  // user lands on what to fix rather than at the top of the page.
  const invalid = (field: FormState['errorField']) => (state.error && state.errorField === field ? html` aria-invalid="true" autofocus` : '');
  const addressDescribed = state.error && state.errorField !== 'destTag' ? html` aria-describedby="pay-form-error"` : '';
  const tagDescribed = state.errorField === 'destTag' ? 'pay-form-error pay-tag-hint' : 'pay-tag-hint';
  return html`${error}<label for="pay-address">${m.yourAddress(networkName(asset.network))}</label>
<input id="pay-address" name="addressTo" required autocomplete="off" spellcheck="false" dir="ltr" value="${state.addressTo ?? ''}"${addressDescribed}${invalid('addressTo')}>
${needsTag ? html`<label for="pay-tag">${m.destTag}</label><input id="pay-tag" name="destTag" required inputmode="numeric" pattern="[0-9]{1,10}" dir="ltr" aria-describedby="${tagDescribed}" value="${state.destTag ?? ''}"${invalid('destTag')}><p class="pay-small" id="pay-tag-hint">${m.tagHint}</p>` : ''}`;
}

function header(shop: string, title: string): SafeHtml {
  return html`<header class="pay-merchant"><div><p class="pay-merchant-name">${shop}</p></div></header><div class="pay-status"><h1>${title}</h1></div>`;
}

/** The claim page of a refund, in the payer's language. */
export function renderClaimPage(view: ClaimView, token: string, m: PayerMessages, assets: PageAssets, state: FormState = {}): string {
  const amount = amountText(view.amount, view.asset, m.locale);
  const facts = [
    fact(m.amount, html`<strong dir="ltr">${amount}</strong> <span class="pay-small">${m.feeNote}</span>`),
    fact(m.status, html`<span data-refund-status="${view.status}">${m.statuses[view.status]}</span>`),
  ];
  if (view.addressTo) facts.push(fact(m.refundAddress, html`<code dir="ltr">${view.addressTo}</code>`));
  if (view.destTag) facts.push(fact(m.destTag, html`<code dir="ltr">${view.destTag}</code>`));
  if (view.txnId) facts.push(fact(m.transaction, html`<code dir="ltr">${view.txnId}</code>`));
  const form =
    view.status === 'AWAITING_ADDRESS'
      ? html`<form class="pay-form" method="post" action="/refund"><input type="hidden" name="id" value="${view.id}"><input type="hidden" name="token" value="${token}"><input type="hidden" name="lang" value="${m.locale}">${destinationFields(view.asset, view.needsTag, m, state)}<button class="pay-button" type="submit">${m.send}</button></form>`
      : state.error
        ? html`<p class="pay-warning" role="alert">${state.error}</p>`
        : '';
  const moving = view.status === 'REQUESTED' || view.status === 'APPROVED';
  const body = html`${header(view.merchantName, m.refundFrom(view.merchantName))}
<div id="refund-progress" aria-live="polite"><dl class="pay-facts">${facts}</dl></div>
${form}
${moving ? html`<p class="pay-small" id="refund-follow-note">${m.updatesEvery(REFUND_REFRESH_SECONDS)}</p>` : ''}`;
  return renderPayerPage({
    messages: m,
    title: `${m.statuses[view.status]} · ${m.refundFrom(view.merchantName)}`,
    body,
    assets,
    follow: moving,
    menu: { action: '/refund', keep: { id: view.id, token } },
  });
}

/** The payer's refund request page for a payment. */
export function renderRequestPage(view: RequestView, m: PayerMessages, assets: PageAssets, state: FormState = {}): string {
  const amount = amountText(view.amount, view.asset, m.locale);
  const body = html`${header(view.merchantName, m.requestTitle(view.merchantName))}
<p>${m.requestIntro(view.merchantName)}</p>
<dl class="pay-facts">${fact(m.amount, html`<strong dir="ltr">${amount}</strong> <span class="pay-small">${m.feeNote}</span>`)}</dl>
<form class="pay-form" method="post" action="/refund/request"><input type="hidden" name="payment" value="${view.paymentId}"><input type="hidden" name="lang" value="${m.locale}">${destinationFields(view.asset, view.needsTag, m, state)}<button class="pay-button" type="submit">${m.requestButton}</button></form>`;
  return renderPayerPage({ messages: m, title: m.requestTitle(view.merchantName), body, assets, menu: { action: '/refund/request', keep: { payment: view.paymentId } } });
}

/** The page for a link that is not (or no longer) valid, or a request that cannot be made. */
export function renderNoticePage(m: PayerMessages, assets: PageAssets, title: string, detail: string): string {
  const body = html`<div class="pay-status"><h1>${title}</h1><p>${detail}</p></div>`;
  return renderPayerPage({ messages: m, title, body, assets });
}
