/**
 * @module Which links the payer page shows under a payment, one rule for the server that renders the
 * page and for the page's script that follows the payment: the receipt once it is COMPLETE (or paid
 * after its expiry), the refund request when it went wrong (too little by the expiry, or late).
 */

/** The receipt and refund request links a payment in this state shows. */
export function shownPayerLinks(view: { status: string; exception?: string | null }): { receipt: boolean; refund: boolean } {
  return {
    receipt: view.status === 'COMPLETE' || view.exception === 'PAID_LATE',
    refund: view.exception === 'UNDERPAID' || view.exception === 'PAID_LATE',
  };
}
