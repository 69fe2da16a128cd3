/**
 * @module The payer page's own script (the widget is loaded separately): keeps the tab title in
 * step with the payment, in the page's language (the server writes the titles into data
 * attributes), so a payer who switched to their wallet app sees the news in the tab; and switches
 * the language as soon as one is picked from the menu. It imports nothing from the widget, so the
 * build keeps the two files apart.
 */
import type { CheckoutStatus } from '../widget/checkout-view.ts';
import './pay.css';

const main = document.querySelector<HTMLElement>('main.page');
const title = (key: string) => main?.dataset[`title${key.charAt(0).toUpperCase()}${key.slice(1)}`];

// The same test as the widget's isPartlyPaid (checkout-format.ts), repeated here rather than
// imported so that the build does not split a shared chunk out of the one-file widget.
function partlyPaid(view: { status: CheckoutStatus; amount: string; amountDue: string }): boolean {
  return view.status === 'OPEN' && view.amountDue !== view.amount && /[1-9]/.test(view.amountDue);
}

const checkout = document.querySelector('crypto-checkout');
// On the first view and on every status change; a partly paid OPEN payment says so, as the
// server-rendered title did.
const retitle = (view: { status: CheckoutStatus; amount: string; amountDue: string }) => {
  const next = title(partlyPaid(view) ? 'partly' : view.status.toLowerCase());
  if (next) document.title = next;
};
checkout?.addEventListener('checkout-status-change', (event) => retitle(event.detail.checkout));
checkout?.addEventListener('checkout-error', (event) => {
  const missing = title('missing');
  if (event.detail.code === 'not-found' && missing) document.title = missing;
});

// Picking a language reloads the page in it (the form's button does the same without JavaScript).
const menu = document.querySelector<HTMLSelectElement>('#pay-language');
menu?.addEventListener('change', () => menu.form?.submit());
