/** The links the payer page shows under a payment: its receipt once paid, a refund request when it went wrong. */
import type { CheckoutOutput } from '../checkout/checkout.schema.ts';
import { html, type SafeHtml } from '../http/html.ts';
import type { PayerMessages } from './payer-messages.ts';

/** The receipt link of a COMPLETE or PAID_LATE payment, and the refund request of an UNDERPAID or PAID_LATE one. */
export function payerLinks(view: Pick<CheckoutOutput, 'id' | 'status' | 'exception'>, m: PayerMessages): SafeHtml {
  const receipt = view.status === 'COMPLETE' || view.exception === 'PAID_LATE';
  const refund = view.exception === 'UNDERPAID' || view.exception === 'PAID_LATE';
  if (!receipt && !refund) return html``;
  return html`<div class="pay-links">
${receipt ? html`<p><a href="/receipt?id=${view.id}&amp;lang=${m.locale}">${m.linkReceipt}</a></p>` : ''}
${refund ? html`<p><a href="/refund/request?payment=${view.id}&amp;lang=${m.locale}">${m.linkRequest}</a></p>` : ''}
</div>`;
}
