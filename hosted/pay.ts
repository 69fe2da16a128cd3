/**
 * @module The payer page's own script (the widget is loaded separately): keeps the tab title in
 * step with the payment, so a payer who switched to their wallet app sees the news in the tab.
 * It imports nothing from the widget, so the build keeps the two files apart.
 */
import type { CheckoutStatus } from '../widget/checkout-view.ts';
import './pay.css';

const TITLES: Record<CheckoutStatus, string> = {
  OPEN: 'Waiting for payment',
  CONFIRMING: 'Payment received',
  COMPLETE: 'Payment complete',
  EXPIRED: 'Payment expired',
};

// The same test as the widget's isPartlyPaid (checkout-format.ts), repeated here rather than
// imported so that the build does not split a shared chunk out of the one-file widget.
function partlyPaid(view: { status: CheckoutStatus; amount: string; amountDue: string }): boolean {
  return view.status === 'OPEN' && view.amountDue !== view.amount && /[1-9]/.test(view.amountDue);
}

const checkout = document.querySelector('crypto-checkout');
// On the first view and on every status change; a partly paid OPEN payment says so, as the
// server-rendered title did.
const retitle = (view: { status: CheckoutStatus; amount: string; amountDue: string; merchant: { name: string } }) => {
  document.title = `${partlyPaid(view) ? 'Partly paid' : TITLES[view.status]} · ${view.merchant.name}`;
};
checkout?.addEventListener('checkout-status-change', (event) => retitle(event.detail.checkout));
checkout?.addEventListener('checkout-error', (event) => {
  if (event.detail.code === 'not-found') document.title = 'Payment not found';
});
