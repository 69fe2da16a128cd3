/** The links the payer page shows under a payment: its receipt once paid, a refund request when it went wrong. */
import type { CheckoutOutput } from '../checkout/checkout.schema.ts';
import { html, type SafeHtml } from '../http/html.ts';
import type { PayerMessages } from './payer-messages.ts';
import { shownPayerLinks } from '../../hosted/payer-link-rules.ts';

/** Where a payment stands for a payer's refund request (see the payer page's route). */
export type RequestStanding = 'open' | 'nothing' | 'requested';

/**
 * The receipt link of a COMPLETE or PAID_LATE payment, and the refund request of an UNDERPAID or
 * PAID_LATE one. Both are in the page, the one that does not apply yet `hidden`: the page's script
 * (hosted/pay.ts) shows each as the payment gets there, without a reload; without JavaScript the
 * page's refresh renders them anew. A payment with nothing left to request (refunded in full) gets
 * no request link at all, so the script cannot show one; one whose request waits for the shop says
 * so instead, in the same place (the script shows and hides it by the same rule); a payment owed
 * again shows the link on the next load.
 */
export function payerLinks(view: Pick<CheckoutOutput, 'id' | 'status' | 'exception'>, m: PayerMessages, options: { request?: RequestStanding } = {}): SafeHtml {
  const { receipt, refund } = shownPayerLinks(view);
  const standing = options.request ?? 'open';
  const request =
    standing === 'nothing'
      ? html``
      : standing === 'requested'
        ? html`
<p data-link="refund" class="pay-requested"${refund ? '' : html` hidden`}>${m.alreadyRequested}</p>`
        : html`
<p data-link="refund"${refund ? '' : html` hidden`}><a href="/refund/request?payment=${view.id}&amp;lang=${m.locale}">${m.linkRequest}</a></p>`;
  return html`<div class="pay-links">
<p data-link="receipt"${receipt ? '' : html` hidden`}><a href="/receipt?id=${view.id}&amp;lang=${m.locale}">${m.linkReceipt}</a></p>${request}
</div>`;
}
