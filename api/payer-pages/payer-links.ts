/** The links the payer page shows under a payment: its receipt once paid, a refund request when it went wrong. */
import type { CheckoutOutput } from '../checkout/checkout.schema.ts';
import { html, type SafeHtml } from '../http/html.ts';
import type { PayerMessages } from './payer-messages.ts';
import { shownPayerLinks } from '../../hosted/payer-link-rules.ts';

/**
 * The receipt link of a COMPLETE or PAID_LATE payment, and the refund request of an UNDERPAID or
 * PAID_LATE one. Both are in the page, the one that does not apply yet `hidden`: the page's script
 * (hosted/pay.ts) shows each as the payment gets there, without a reload; without JavaScript the
 * page's refresh renders them anew. A payment with `nothingToRequest` (refunded in full) gets no
 * request link at all, so the script cannot show one; a payment owed again shows it on the next load.
 */
export function payerLinks(view: Pick<CheckoutOutput, 'id' | 'status' | 'exception'>, m: PayerMessages, options: { nothingToRequest?: boolean } = {}): SafeHtml {
  const { receipt, refund } = shownPayerLinks(view);
  const request = options.nothingToRequest
    ? html``
    : html`
<p data-link="refund"${refund ? '' : html` hidden`}><a href="/refund/request?payment=${view.id}&amp;lang=${m.locale}">${m.linkRequest}</a></p>`;
  return html`<div class="pay-links">
<p data-link="receipt"${receipt ? '' : html` hidden`}><a href="/receipt?id=${view.id}&amp;lang=${m.locale}">${m.linkReceipt}</a></p>${request}
</div>`;
}
