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

const checkout = document.querySelector('crypto-checkout');
checkout?.addEventListener('checkout-status-change', (event) => {
  document.title = `${TITLES[event.detail.status]} · ${event.detail.checkout.merchant.name}`;
});
checkout?.addEventListener('checkout-error', (event) => {
  if (event.detail.code === 'not-found') document.title = 'Payment not found';
});
