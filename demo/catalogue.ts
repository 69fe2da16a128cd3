/**
 * @module The store's products and how it prices them in a crypto asset. Prices are in US dollars,
 * converted by the service at the market rate; the fixed demo rates here serve only when no rate
 * source answers (offline). Amounts are exact decimals (decimal.js),
 * rounded up to the asset's precision so the store is never paid less than the price.
 */
import Decimal from 'decimal.js';
import type { AssetInfo } from '../client/index.ts';

/** Something the store sells. */
export interface Product {
  /** Short code, also part of the order's invoice. */
  sku: string;
  name: string;
  description: string;
  /** Price in US dollars, a decimal string. */
  priceUsd: string;
  /** A colour for the product's tile. */
  tile: 'teal' | 'amber' | 'plum' | 'slate';
}

/** Everything on sale. */
export const PRODUCTS: readonly Product[] = [
  { sku: 'MUG', name: 'Enamel camp mug', description: 'Speckled enamel, 350 ml, survives the campfire and the dishwasher.', priceUsd: '18.00', tile: 'teal' },
  { sku: 'TEE', name: 'Block height tee', description: 'Organic cotton T-shirt printed with the block that paid for it.', priceUsd: '25.00', tile: 'plum' },
  { sku: 'NOTE', name: 'Paper ledger', description: 'A5 dot-grid notebook, 120 pages, for the keys you should not type.', priceUsd: '12.50', tile: 'amber' },
  { sku: 'STICK', name: 'Sticker pack', description: 'Six vinyl stickers; the QR one really scans.', priceUsd: '4.00', tile: 'slate' },
];

/** US dollars per unit of each asset (by its ticker), fixed for the demo. */
const DEMO_RATES_USD: Readonly<Record<string, string>> = {
  BTC: '100000',
  LTC: '100',
  ETH: '4000',
  USDT: '1',
  USDC: '1',
  TRX: '0.25',
  XRP: '2.5',
};

/** The product with this SKU, if the store sells it. */
export function findProduct(sku: string): Product | undefined {
  return PRODUCTS.find((product) => product.sku === sku);
}

/** Whether the store has a rate for an asset (an asset added to the service later may have none). */
export function isPriced(asset: Pick<AssetInfo, 'short'>): boolean {
  return Object.hasOwn(DEMO_RATES_USD, asset.short);
}

/**
 * The price of a product in an asset: USD / rate, rounded up to the asset's decimals, as a plain
 * decimal string. At the store's fixed demo rate unless `usdRate` (the service's current one) is given.
 */
export function priceIn(product: Product, asset: Pick<AssetInfo, 'short' | 'decimals'>, usdRate?: string): string {
  const rate = usdRate ?? DEMO_RATES_USD[asset.short];
  if (rate === undefined) throw new Error(`the store has no rate for ${asset.short}`);
  return new Decimal(product.priceUsd).div(rate).toDecimalPlaces(asset.decimals, Decimal.ROUND_UP).toFixed();
}

/** Whether a received amount (a decimal string) covers the price. */
export function covers(amount: string, price: string): boolean {
  return new Decimal(amount).gte(price);
}

/** How the store names an order in the payment's `invoice`: DEMO-<sku>-<reference>. */
export function orderInvoice(product: Product, reference: string): string {
  return `DEMO-${product.sku}-${reference}`;
}

/** The product an invoice was made for, if it is one of this store's orders. */
export function productOfInvoice(invoice: string | null): Product | undefined {
  const match = /^DEMO-([A-Z]+)-[A-Z0-9]+$/.exec(invoice ?? '');
  return match ? findProduct(match[1]!) : undefined;
}
