/**
 * @module The payer's receipt of a COMPLETE or PAID_LATE payment (contract section 17): shop,
 * invoice, amount, each transaction with its id and date (an expired payment's says first that it
 * expired and what arrived after), printable (the style sheet's print rules
 * drop the page's controls). A payment priced in fiat shows its price beside the amount, as the payer
 * page does, and the rate it was locked at with the sources that quoted it and when.
 */
import { amountText, arrivedText, priceText } from '../../widget/checkout-format.ts';
import { ALL_MESSAGES } from '../../widget/i18n/all-messages.ts';
import type { CheckoutOutput } from '../checkout/checkout.schema.ts';
import type { PageAssets } from '../checkout/pay-page.ts';
import { html, type SafeHtml } from '../http/html.ts';
import type { PayerMessages } from './payer-messages.ts';
import { renderPayerPage } from './page-shell.ts';

/** Whether a payment has a receipt: paid on time, or paid late. */
export function hasReceipt(view: Pick<CheckoutOutput, 'status' | 'exception'>): boolean {
  return view.status === 'COMPLETE' || view.exception === 'PAID_LATE';
}

/** A moment as the receipt shows it: the payer's language, UTC (`28 Nov 2026, 01:50 UTC`). */
export function dateText(iso: string, m: Pick<PayerMessages, 'locale'>): string {
  const format = new Intl.DateTimeFormat(m.locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC', numberingSystem: 'latn' });
  return `${format.format(new Date(iso))} UTC`;
}

/** `1 ETH = $2,000.00`, then who quoted it and when (the oldest quote's time). */
function rateText(rate: NonNullable<CheckoutOutput['rate']>, asset: CheckoutOutput['asset'], m: PayerMessages): SafeHtml {
  const value = priceText({ amount: rate.value, currency: rate.currency }, m.locale);
  const sources = new Intl.ListFormat(m.locale, { type: 'conjunction' }).format(rate.sources);
  return html`<span dir="ltr">1 ${asset.short} = ${value}</span><br><span class="pay-small">${m.rateQuoted(sources, dateText(rate.at, m))}</span>`;
}

function fact(label: string, value: SafeHtml | string): SafeHtml {
  return html`<div class="pay-fact"><dt>${label}</dt><dd>${value}</dd></div>`;
}

/** The receipt page, in the payer's language. */
export function renderReceiptPage(view: CheckoutOutput, m: PayerMessages, assets: PageAssets): string {
  const shop = view.merchant.name;
  const w = ALL_MESSAGES[m.locale];
  const facts = [
    // Paid late to an expired payment: the receipt of what arrived, never proof that the order was paid.
    ...(view.status === 'EXPIRED' ? [fact(m.status, html`<strong id="receipt-expired">${w.paymentExpired}</strong>: ${arrivedText(view, w)}`)] : []),
    ...(view.invoice ? [fact(m.invoice, html`<bdi dir="ltr">${view.invoice}</bdi>`)] : []),
    fact(m.amount, html`<strong dir="ltr">${amountText(view.amount, view.asset, m.locale)}</strong>${view.price ? html` <span class="pay-price">${priceText(view.price, m.locale)}</span>` : ''}`),
    ...(view.rate ? [fact(m.rate, rateText(view.rate, view.asset, m))] : []),
    fact(m.totalReceived, html`<span dir="ltr">${amountText(view.totalReceivedAmount, view.asset, m.locale)}</span>`),
  ];
  const rows = view.transactions.map(
    (t) =>
      html`<li><strong dir="ltr">${amountText(t.receivedAmount, view.asset, m.locale)}</strong> · <time datetime="${t.date}">${dateText(t.date, m)}</time>${t.late ? html` · <span class="pay-warning">${m.late}</span>` : ''}<br><span class="pay-small">${m.transaction} <code dir="ltr">${t.txnId}</code></span></li>`,
  );
  const body = html`<header class="pay-merchant"><div><p class="pay-merchant-name">${shop}</p></div></header>
<div class="pay-status"><h1>${m.receiptTitle(shop)}</h1></div>
<dl class="pay-facts">${facts}</dl>
<section class="pay-transactions" aria-labelledby="receipt-transactions"><h2 id="receipt-transactions">${m.transaction}</h2><ul>${rows}</ul></section>
<p class="pay-small pay-noprint">${m.printHint}</p>`;
  return renderPayerPage({ messages: m, title: m.receiptTitle(shop), body, assets, menu: { action: '/receipt', keep: { id: view.id } } });
}
