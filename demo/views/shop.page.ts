/** The shop window: every product with a choice of coin and a buy button. */
import type { AssetInfo } from '../../client/index.ts';
import { priceIn, type Product } from '../catalogue.ts';
import type { Catalogue } from '../demo-store.ts';
import { html, type SafeHtml } from '../../api/http/html.ts';
import { networkName, trimAmount, usd } from './format.ts';
import type { StoreFrame } from './layout.ts';

// Line drawings for the product tiles, by SKU.
const ICONS: Readonly<Record<string, SafeHtml>> = {
  MUG: html`<path d="M10 14h22v18a6 6 0 0 1-6 6H16a6 6 0 0 1-6-6z"/><path d="M32 18h3a5 5 0 0 1 0 10h-3"/><path d="M16 6c0 2 2 2 2 4M22 6c0 2 2 2 2 4"/>`,
  TEE: html`<path d="M17 8 8 13l3 8 5-2v19h16V19l5 2 3-8-9-5a7 7 0 0 1-14 0z"/>`,
  NOTE: html`<rect x="12" y="8" width="24" height="32" rx="2"/><path d="M17 8v32M21 16h10M21 22h10M21 28h6"/>`,
  STICK: html`<path d="M12 12h24v14L26 36H12z"/><path d="M26 36V26h10"/>`,
};

function productIcon(product: Product): SafeHtml {
  const icon = ICONS[product.sku];
  if (!icon) return html`<span>${product.name.charAt(0)}</span>`;
  return html`<svg viewBox="0 0 48 48" width="64" height="64" fill="none" stroke="currentColor" stroke-width="2.5" stroke-linecap="round" stroke-linejoin="round">${icon}</svg>`;
}

function assetOption(product: Product, asset: AssetInfo, usdRates: ReadonlyMap<string, string>): SafeHtml {
  const key = `${asset.short}:${asset.network}`;
  const live = usdRates.get(key);
  // At the current rate the amount is what the service will convert to, give or take its spread and the next quote.
  const amount = `${live ? '≈ ' : ''}${trimAmount(priceIn(product, asset, live))}`;
  return html`<option value="${key}">${amount} ${asset.short} (${networkName(asset.network)})</option>`;
}

function productCard(frame: StoreFrame, product: Product, assets: AssetInfo[], usdRates: ReadonlyMap<string, string>): SafeHtml {
  const id = product.sku.toLowerCase();
  return html`<li class="product">
  <article aria-labelledby="product-${id}">
    <div class="product-tile tile-${product.tile}" aria-hidden="true">${productIcon(product)}</div>
    <div class="product-body">
      <h2 id="product-${id}">${product.name}</h2>
      <p class="product-description">${product.description}</p>
      <p class="product-price"><span class="visually-hidden">Price: </span>${usd(product.priceUsd)}</p>
      <form class="buy-form" method="post" action="${frame.basePath}/orders">
        <input type="hidden" name="product" value="${product.sku}">
        <label for="asset-${id}">Pay with</label>
        <select id="asset-${id}" name="asset" required>
          ${assets.map((asset) => assetOption(product, asset, usdRates))}
        </select>
        <button type="submit" class="button primary">Buy<span class="visually-hidden"> ${product.name}</span></button>
      </form>
    </div>
  </article>
</li>`;
}

/** The shop page's main content. */
export function shopPage(frame: StoreFrame, catalogue: Catalogue): SafeHtml {
  return html`<section class="intro">
  <h1>Small things, paid in crypto</h1>
  <p>Pick a product and the coin to pay with. The store's server creates the payment through the typed client,
  then you choose: pay on the hosted page, or right here with the embedded checkout.</p>
  <p class="small">${catalogue.usdRates.size > 0
    ? 'Prices are in US dollars; the coin amount is converted at the market rate when you buy, and locked for your order.'
    : 'Prices are in US dollars. No rate source answers right now, so they are converted at fixed demo rates.'}</p>
</section>
${catalogue.assets.length === 0
  ? html`<p class="notice" role="alert">The payment service offers no coin this store can price, so nothing can be bought right now.</p>`
  : html`<ul class="products" role="list">${catalogue.products.map((product) => productCard(frame, product, catalogue.assets, catalogue.usdRates))}</ul>`}`;
}
