/** The page frame of every demo store page: head, skip link, header with navigation, footer. */
import { html, type SafeHtml } from '../../api/http/html.ts';

/** What every page needs to know about the store around it. */
export interface StoreFrame {
  /** Where the router is mounted, like "/demo". */
  basePath: string;
  storeName: string;
  simulator: boolean;
}

/** One page's content and extras. */
export interface PageContent {
  title: string;
  current?: 'shop' | 'orders';
  body: SafeHtml;
  /** The <crypto-checkout> bundle's URL, on pages that embed the widget. */
  widgetScript?: string;
}

/** The whole HTML document. */
export function renderPage(frame: StoreFrame, page: PageContent): string {
  const { basePath } = frame;
  const navLink = (key: 'shop' | 'orders', href: string, label: string) =>
    html`<a href="${href}"${page.current === key ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${page.title} · ${frame.storeName}</title>
<link rel="icon" href="${basePath}/assets/logo.svg" type="image/svg+xml">
<link rel="stylesheet" href="${basePath}/assets/store.css">
<script type="module" src="${basePath}/assets/store.js"></script>
${page.widgetScript ? html`<script type="module" src="${page.widgetScript}"></script>` : ''}
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header">
  <div class="site-header-inner">
    <a class="brand" href="${basePath}/"><img src="${basePath}/assets/logo.svg" alt="" width="36" height="36"><span>${frame.storeName}</span></a>
    <nav aria-label="Store">
      ${navLink('shop', `${basePath}/`, 'Shop')}
      ${navLink('orders', `${basePath}/orders`, 'Orders')}
    </nav>
  </div>
</header>
<main id="main" tabindex="-1">
${page.body}
</main>
<footer class="site-footer">
  <p>A demo merchant store for crypto-checkout. It calls the payment API from its server with the typed client; its keys never reach this page.</p>
  <p>${frame.simulator ? 'Payments here run on simulated networks: no real funds move.' : 'The simulator is off: payments need real transactions.'}</p>
</footer>
</body>
</html>
`.markup;
}
