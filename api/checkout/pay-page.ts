/**
 * @module The hosted payer page's HTML. Everything a payer needs (amount, address, tag, QR,
 * status) is in the markup, so the page works with JavaScript off; the markup sits inside
 * `<crypto-checkout>` as light-DOM children, which the element shows until its live view is
 * ready. Every value is written through the `html` tag, which escapes whatever is not markup it made.
 */
import { createHash } from 'node:crypto';
import {
  amountText,
  httpUrl,
  isPartlyPaid,
  networkName,
  priceNote,
  qrPayload,
  shortTxnId,
  statusDetail,
  statusTitle,
  transactionProgress,
  walletHref,
} from '../../widget/checkout-format.ts';
import { type CheckoutView, followFor, isFinalStatus } from '../../widget/checkout-view.ts';
import { qrSymbol } from '../../widget/qr-code.ts';
import ENGLISH from '../../widget/i18n/locales/en.ts';
import { directionOf, type Locale, LOCALE_NAMES, LOCALES } from '../../widget/i18n/locales.ts';
import type { Messages } from '../../widget/i18n/messages.ts';
import { html, type SafeHtml, trustedHtml } from '../http/html.ts';
import type { CheckoutOutput } from './checkout.schema.ts';

/** Where the page's assets are served before a build names them (see createApp's static mounts). */
export const PAY_PAGE_ASSETS = { widget: '/widget/crypto-checkout.js', script: '/hosted/pay.js', styles: '/hosted/pay.css' } as const;

/**
 * The built files the page uses: its script under its content-hashed name, its style sheet to
 * inline, and each language's widget chunk (preloaded, so the language comes with the widget
 * rather than after it).
 */
export interface PageAssets {
  script: string;
  styles?: InlineStyles | undefined;
  localeChunks: Partial<Record<Locale, string>>;
}

/** The assets of a page served without a build (tests of the HTML alone). */
export const UNBUILT_ASSETS: PageAssets = { script: PAY_PAGE_ASSETS.script, localeChunks: {} };

/** Seconds between reloads of a page that is still waiting, for payers without JavaScript. */
export const NO_SCRIPT_REFRESH_SECONDS = 30;

/**
 * The page's style sheet, written into the page (a linked one holds up the first paint by a round
 * trip) and allowed by the CSP through its hash, so no other inline style can apply.
 */
export interface InlineStyles {
  css: string;
  /** `'sha256-…'` of exactly `css`, for the CSP. */
  hash: string;
}

/** The built style sheet as the page inlines it, or undefined when it is not built (the page links it then). */
export function inlineStylesOf(css: string | undefined): InlineStyles | undefined {
  if (css === undefined || css.includes('</')) return undefined;
  return { css, hash: `'sha256-${createHash('sha256').update(css, 'utf8').digest('base64')}'` };
}

/**
 * The page's Content-Security-Policy: scripts only from this origin as files (no inline script, no
 * eval; Lit's constructed stylesheets are not inline styles), styles from this origin or the one
 * inline style sheet whose hash it names, images from here, the service's public origin, data: and
 * https:, connections only back here, and no framing.
 */
export function payPageCsp(publicUrl: string, styles?: InlineStyles): string {
  let publicOrigin = '';
  try {
    publicOrigin = new URL(publicUrl).origin;
  } catch {
    publicOrigin = '';
  }
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self'${styles ? ` ${styles.hash}` : ''}`,
    `img-src 'self'${publicOrigin ? ` ${publicOrigin}` : ''} data: https:`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** What the page is rendered in, and where its language menu points. */
export interface PageLanguage {
  messages: Messages;
  /** The payment id the language menu keeps (none on the not-found page). */
  paymentId?: string;
}

function languageMenu(locale: Locale, m: Messages, paymentId: string): SafeHtml {
  const options = LOCALES.map((tag) => html`<option value="${tag}" lang="${tag}"${tag === locale ? html` selected` : ''}>${LOCALE_NAMES[tag]}</option>`);
  return html`<form class="pay-language" method="get" action="/pay"><input type="hidden" name="id" value="${paymentId}"><label for="pay-language">${m.language}</label> <select id="pay-language" name="lang">${options}</select> <button type="submit">${m.changeLanguage}</button></form>`;
}

function page(options: { title: string; body: SafeHtml; refresh: boolean; scripts: boolean; assets: PageAssets; language: PageLanguage }): string {
  const { messages: m } = options.language;
  const locale = m.locale;
  const { styles, script } = options.assets;
  const chunk = options.assets.localeChunks[locale];
  const preload = options.scripts && chunk ? html`<link rel="modulepreload" href="${chunk}">\n` : '';
  const menu = options.language.paymentId === undefined ? '' : languageMenu(locale, m, options.language.paymentId);
  return html`<!doctype html>
<html lang="${locale}" dir="${directionOf(locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>${options.title}</title>
${styles ? html`<style>${trustedHtml(styles.css)}</style>` : html`<link rel="stylesheet" href="${PAY_PAGE_ASSETS.styles}">`}
${options.scripts ? html`<script type="module" src="${PAY_PAGE_ASSETS.widget}"></script>\n${preload}<script type="module" src="${script}"></script>\n` : ''}${options.refresh ? html`<noscript><meta http-equiv="refresh" content="${NO_SCRIPT_REFRESH_SECONDS}"></noscript>\n` : ''}</head>
<body>
<main class="page">
${options.body}
${menu}
</main>
</body>
</html>
`.toString();
}

/** A time as the locale writes it, in UTC ("22 nov. 2026, 03:53 UTC"). */
function utcText(iso: string, locale: Locale): string {
  const format = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC', numberingSystem: 'latn' });
  return `${format.format(new Date(iso))} UTC`;
}

function fact(label: string, value: SafeHtml): SafeHtml {
  return html`<div class="pay-fact"><dt>${label}</dt><dd>${value}</dd></div>`;
}

/** A message with a value kept left to right inside it (an address in Arabic text). */
function isolated(message: (value: string) => string, value: string): SafeHtml {
  const [before = '', after = ''] = message('\u0000').split('\u0000');
  return html`${before}<bdi dir="ltr">${value}</bdi>${after}`;
}

function qrFigure(view: CheckoutView, m: Messages): SafeHtml {
  const qr = qrSymbol(qrPayload(view.paymentUri));
  const label = m.qrLabel(amountText(view.amountDue, view.asset, m.locale));
  return html`<figure class="pay-qr"><svg role="img" aria-label="${label}" viewBox="0 0 ${qr.size} ${qr.size}" shape-rendering="crispEdges"><path fill="#000000" d="${qr.path}"/></svg></figure>`;
}

function payable(view: CheckoutView, m: Messages): SafeHtml {
  const network = networkName(view.asset.network);
  const price = priceNote(view, m);
  const facts = [
    fact(
      isPartlyPaid(view) ? m.stillToPay : m.amountToPay,
      html`<strong dir="ltr">${amountText(view.amountDue, view.asset, m.locale)}</strong>${price?.kind === 'price' ? html` <span class="pay-price" data-value="price">${price.text}</span>` : ''} <span class="pay-small">${m.assetOnNetwork(view.asset.name, network)}</span>${price?.kind === 'order-total' ? html` <span class="pay-small" data-value="order-total">${price.text}</span>` : ''}`,
    ),
    fact(m.addressOn(network), html`<code dir="ltr">${view.addressTo}</code>`),
  ];
  if (view.destTag !== null) {
    facts.push(fact(m.destinationTagRequired, html`<code dir="ltr">${view.destTag}</code> <span class="pay-small">${m.destinationTagNote}</span>`));
  }
  facts.push(fact(m.payBefore, html`<time datetime="${view.expiresAt}">${utcText(view.expiresAt, m.locale)}</time>`));
  const wallet = walletHref(view.paymentUri);
  return html`<dl class="pay-facts">${facts}</dl>
${qrFigure(view, m)}
${wallet ? html`<p><a class="pay-button" href="${wallet}">${m.openInWallet}</a></p>` : ''}`;
}

function transactions(view: CheckoutView, m: Messages): SafeHtml | '' {
  if (view.transactions.length === 0) return '';
  const items = view.transactions.map((txn) => {
    const late = txn.late ? html` <span class="pay-warning">${m.arrivedAfterExpiry}.</span>` : '';
    return html`<li><strong dir="ltr">${amountText(txn.receivedAmount, view.asset, m.locale)}</strong> · ${transactionProgress(txn, view.confirmsNeeded, m)} · <span class="pay-small">${m.transaction} <code dir="ltr" title="${txn.txnId}">${shortTxnId(txn.txnId)}</code></span>${late}</li>`;
  });
  return html`<section class="pay-transactions" aria-labelledby="pay-transactions-title"><h3 id="pay-transactions-title">${m.receivedHeading}</h3><ul>${items}</ul></section>`;
}

function merchantHeader(view: CheckoutView, m: Messages): SafeHtml {
  const logo = httpUrl(view.merchant.logoUrl);
  return html`<header class="pay-merchant">${logo ? html`<img class="pay-merchant-logo" src="${logo}" alt="" width="40" height="40" referrerpolicy="no-referrer">` : ''}<div><p class="pay-merchant-name">${view.merchant.name}</p>${view.invoice ? html`<p class="pay-small">${isolated(m.invoice, view.invoice)}</p>` : ''}</div></header>`;
}

/** The payer page for a payment, as the server sees it now (`links`: markup after the element, the receipt or refund request link), in the payer's language (English by default). */
export function renderPayPage(payment: CheckoutOutput, assets: PageAssets = UNBUILT_ASSETS, language: PageLanguage = { messages: ENGLISH }, links: SafeHtml = html``): string {
  const view: CheckoutView = payment;
  const m = language.messages;
  const final = isFinalStatus(view.status);
  // Reloaded without JavaScript as long as the widget would follow it (an EXPIRED one a while, for late funds).
  const followed = followFor(view) > 0;
  const back = final ? httpUrl(view.checkoutUrl) : undefined;
  const body = html`<h1 class="visually-hidden">${m.paymentTo(view.merchant.name)}</h1>
<crypto-checkout payment-id="${view.id}" lang="${m.locale}">
<div class="pay" data-status="${view.status}">
${merchantHeader(view, m)}
<div class="pay-status"><h2>${statusTitle(view, m)}</h2><p>${statusDetail(view, m)}</p></div>
${view.testNetwork ? html`<p class="pay-test-network">${m.testNetwork}</p>` : ''}
${view.status === 'OPEN' ? payable(view, m) : ''}
${transactions(view, m)}
${back ? html`<p><a class="pay-button" href="${back}">${m.returnTo(view.merchant.name)}</a></p>` : ''}
${followed ? html`<noscript><p class="pay-small">${m.reloadsEvery(NO_SCRIPT_REFRESH_SECONDS)}</p></noscript>` : ''}
</div>
</crypto-checkout>
${links}`;
  return page({
    title: `${statusTitle(view, m)} · ${view.merchant.name}`,
    body,
    refresh: followed,
    scripts: true,
    assets,
    language: { messages: m, paymentId: language.paymentId ?? view.id },
  });
}

/** The friendly page for an unknown or malformed payment id. */
export function renderNotFoundPage(assets: PageAssets = UNBUILT_ASSETS, language: PageLanguage = { messages: ENGLISH }): string {
  const m = language.messages;
  const body = html`<div class="pay" data-status="error">
<div class="pay-status"><h1>${m.notFoundTitle}</h1><p>${m.notFoundDetail}</p></div>
</div>`;
  return page({ title: m.notFoundTitle, body, refresh: false, scripts: false, assets, language: { messages: m } });
}
