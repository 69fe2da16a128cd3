/**
 * @module The payer page's own script (the widget is loaded separately): keeps the tab title in
 * step with the payment, so a payer who switched to their wallet app sees the news in the tab (the
 * title is the one the element shows, so it is in the page's language); shows the receipt and refund
 * links once they apply (the rule the server renders them by). It imports nothing from the widget, so
 * the build keeps the two files apart.
 */
import './pay.css';
import { shownPayerLinks } from './payer-link-rules.ts';

const checkout = document.querySelector('crypto-checkout');
const shownTitle = () => checkout?.shadowRoot?.querySelector('.status-title')?.textContent?.trim();

// The receipt and refund request links under the element, shown as the payment gets there
// (the server renders both, the one that does not apply yet hidden).
const links = document.querySelectorAll<HTMLElement>('[data-link]');

// On every view rendered: late funds or a refund change the links with the status unchanged.
checkout?.addEventListener('checkout-update', (event) => {
  const { checkout: view } = event.detail;
  const title = shownTitle();
  if (title) document.title = `${title} · ${view.merchant.name}`;
  const shown = shownPayerLinks(view);
  for (const link of links) link.hidden = !shown[link.dataset.link as keyof typeof shown];
});
checkout?.addEventListener('checkout-error', (event) => {
  const title = shownTitle();
  if (event.detail.code === 'not-found' && title) document.title = title;
});

// The language menu changes nothing until its button is pressed: a keyboard user steps through the
// languages with the arrow keys (each a change event) without the page reloading under them.
