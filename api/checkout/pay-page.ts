/**
 * @module The hosted payer page's HTML. Everything a payer needs (amount, address, tag, QR,
 * status) is in the markup, so the page works with JavaScript off; the markup sits inside
 * `<crypto-checkout>` as light-DOM children, which the element shows until its live view is
 * ready. Every value from the payment (merchant name, invoice, URLs) is escaped here.
 */
import { createHash } from 'node:crypto';
import {
  amountText,
  httpUrl,
  isPartlyPaid,
  networkName,
  qrPayload,
  shortTxnId,
  statusDetail,
  statusTitle,
  transactionProgress,
  walletHref,
} from '../../widget/checkout-format.ts';
import { type CheckoutView, isFinalStatus } from '../../widget/checkout-view.ts';
import { qrSymbol } from '../../widget/qr-code.ts';
import type { CheckoutOutput } from './checkout.schema.ts';

/** Where the page's assets are served (see createApp's static mounts). */
export const PAY_PAGE_ASSETS = { widget: '/widget/crypto-checkout.js', script: '/hosted/pay.js', styles: '/hosted/pay.css' } as const;

/** Seconds between reloads of a page that is still waiting, for payers without JavaScript. */
export const NO_SCRIPT_REFRESH_SECONDS = 30;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);
}

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
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function page(options: { title: string; body: string; refresh: boolean; scripts: boolean; styles: InlineStyles | undefined }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>${escapeHtml(options.title)}</title>
${options.styles ? `<style>${options.styles.css}</style>` : `<link rel="stylesheet" href="${PAY_PAGE_ASSETS.styles}">`}
${options.scripts ? `<script type="module" src="${PAY_PAGE_ASSETS.widget}"></script>\n<script type="module" src="${PAY_PAGE_ASSETS.script}"></script>\n` : ''}${options.refresh ? `<noscript><meta http-equiv="refresh" content="${NO_SCRIPT_REFRESH_SECONDS}"></noscript>\n` : ''}</head>
<body>
<main class="page">
${options.body}
</main>
</body>
</html>
`;
}

function utcText(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

function fact(label: string, valueHtml: string): string {
  return `<div class="pay-fact"><dt>${escapeHtml(label)}</dt><dd>${valueHtml}</dd></div>`;
}

function qrFigure(view: CheckoutView): string {
  const qr = qrSymbol(qrPayload(view.paymentUri));
  const label = `QR code to pay ${amountText(view.amountDue, view.asset)} from a wallet app`;
  return `<figure class="pay-qr"><svg role="img" aria-label="${escapeHtml(label)}" viewBox="0 0 ${qr.size} ${qr.size}" shape-rendering="crispEdges"><path fill="#000000" d="${qr.path}"/></svg></figure>`;
}

function payable(view: CheckoutView): string {
  const network = networkName(view.asset.network);
  const facts = [
    fact(isPartlyPaid(view) ? 'Still to pay' : 'Amount to pay', `<strong>${escapeHtml(amountText(view.amountDue, view.asset))}</strong> <span class="pay-small">${escapeHtml(`${view.asset.name} on the ${network} network`)}</span>`),
    fact(`${network} address`, `<code>${escapeHtml(view.addressTo)}</code>`),
  ];
  if (view.destTag !== null) {
    facts.push(fact('Destination tag (required)', `<code>${escapeHtml(view.destTag)}</code> <span class="pay-small">Without this tag the payment cannot be matched to your order.</span>`));
  }
  facts.push(fact('Pay before', `<time datetime="${escapeHtml(view.expiresAt)}">${escapeHtml(utcText(view.expiresAt))}</time>`));
  const wallet = walletHref(view.paymentUri);
  return `<dl class="pay-facts">${facts.join('')}</dl>
${qrFigure(view)}
${wallet ? `<p><a class="pay-button" href="${escapeHtml(wallet)}">Open in wallet</a></p>` : ''}`;
}

function transactions(view: CheckoutView): string {
  if (view.transactions.length === 0) return '';
  const items = view.transactions.map((txn) => {
    const late = txn.late ? ' <span class="pay-warning">Arrived after the payment expired.</span>' : '';
    return `<li><strong>${escapeHtml(amountText(txn.receivedAmount, view.asset))}</strong> · ${escapeHtml(transactionProgress(txn, view.confirmsNeeded))} · <span class="pay-small">Transaction <code title="${escapeHtml(txn.txnId)}">${escapeHtml(shortTxnId(txn.txnId))}</code></span>${late}</li>`;
  });
  return `<section class="pay-transactions" aria-labelledby="pay-transactions-title"><h3 id="pay-transactions-title">Received</h3><ul>${items.join('')}</ul></section>`;
}

function merchantHeader(view: CheckoutView): string {
  const logo = httpUrl(view.merchant.logoUrl);
  return `<header class="pay-merchant">${logo ? `<img class="pay-merchant-logo" src="${escapeHtml(logo)}" alt="" width="40" height="40" referrerpolicy="no-referrer">` : ''}<div><p class="pay-merchant-name">${escapeHtml(view.merchant.name)}</p>${view.invoice ? `<p class="pay-small">Invoice ${escapeHtml(view.invoice)}</p>` : ''}</div></header>`;
}

/** The payer page for a payment, as the server sees it now. */
export function renderPayPage(payment: CheckoutOutput, styles?: InlineStyles): string {
  const view: CheckoutView = payment;
  const final = isFinalStatus(view.status);
  const back = final ? httpUrl(view.checkoutUrl) : undefined;
  const body = `<h1 class="visually-hidden">Payment to ${escapeHtml(view.merchant.name)}</h1>
<crypto-checkout payment-id="${escapeHtml(view.id)}">
<div class="pay" data-status="${view.status}">
${merchantHeader(view)}
<div class="pay-status"><h2>${escapeHtml(statusTitle(view))}</h2><p>${escapeHtml(statusDetail(view))}</p></div>
${view.status === 'OPEN' ? payable(view) : ''}
${transactions(view)}
${back ? `<p><a class="pay-button" href="${escapeHtml(back)}">Return to ${escapeHtml(view.merchant.name)}</a></p>` : ''}
${final ? '' : `<noscript><p class="pay-small">This page reloads every ${NO_SCRIPT_REFRESH_SECONDS} seconds to show the latest status.</p></noscript>`}
</div>
</crypto-checkout>`;
  return page({ title: `${statusTitle(view)} · ${view.merchant.name}`, body, refresh: !final, scripts: true, styles });
}

/** The friendly page for an unknown or malformed payment id. */
export function renderNotFoundPage(styles?: InlineStyles): string {
  const body = `<div class="pay" data-status="error">
<div class="pay-status"><h1>Payment not found</h1><p>This payment link is not valid, or the payment no longer exists. Check the link you were given, or ask the shop for a new one.</p></div>
</div>`;
  return page({ title: 'Payment not found', body, refresh: false, scripts: false, styles });
}
