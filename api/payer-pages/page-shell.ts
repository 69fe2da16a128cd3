/**
 * @module The document around the payer's refund, request and receipt pages: the payer page's own
 * style sheet (inlined under the same CSP hash), the locale's language and direction, the follow
 * script while a refund moves (a reload inside <noscript> without JavaScript), and a language menu.
 */
import { directionOf, LOCALE_NAMES, LOCALES } from '../../widget/i18n/locales.ts';
import { html, type SafeHtml, trustedHtml } from '../http/html.ts';
import { type InlineStyles, inlineStylesOf, type PageAssets, PAY_PAGE_ASSETS } from '../checkout/pay-page.ts';
import type { PayerMessages } from './payer-messages.ts';
import { REFUND_FOLLOW_SCRIPT_PATH } from './refund-follow-script.ts';
import { ALL_MESSAGES } from '../../widget/i18n/all-messages.ts';

/**
 * What these pages add to the payer page's style sheet (forms, the links, print rules), kept out of
 * pay.css so that /pay itself carries none of it.
 */
const PAGE_CSS = `.pay-form label{display:block;margin-top:0.75rem;font-weight:600;} .pay-form input{display:block;width:100%;min-height:2.75rem;margin-top:0.25rem;padding:0 0.5rem;border:1px solid var(--page-border);border-radius:0.5rem;background:var(--page-card);color:var(--page-text);font:inherit;} .pay-form button{width:100%;margin-top:1rem;border:0;font:inherit;cursor:pointer;} .pay-links{margin-top:1rem;} @media print{:root{background:#ffffff;color:#000000;} .pay-language,.pay-noprint{display:none;}}`;

/** The style sheet these pages inline (pay.css and PAGE_CSS, under one CSP hash); undefined when unbuilt. */
export function payerPageStyles(assets: PageAssets): InlineStyles | undefined {
  return assets.styles && inlineStylesOf(assets.styles.css + PAGE_CSS);
}

/** Seconds between reloads of a refund page whose refund is still moving. */
export const REFUND_REFRESH_SECONDS = 10;

/** What a page is rendered with. */
export interface ShellOptions {
  messages: PayerMessages;
  title: string;
  body: SafeHtml;
  assets: PageAssets;
  /** Follow a refund on its way: the follow script, or a reload every REFUND_REFRESH_SECONDS without JavaScript. */
  follow?: boolean;
  /** Where the language menu sends its choice: the page's path and the query it keeps. */
  menu?: { action: string; keep: Record<string, string> };
}

function languageMenu(options: ShellOptions): SafeHtml | undefined {
  if (!options.menu) return undefined;
  const widgetWords = ALL_MESSAGES[options.messages.locale];
  const hidden = Object.entries(options.menu.keep).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  const choices = LOCALES.map((tag) => html`<option value="${tag}" lang="${tag}"${tag === options.messages.locale ? html` selected` : ''}>${LOCALE_NAMES[tag]}</option>`);
  return html`<form class="pay-language" method="get" action="${options.menu.action}">${hidden}<label for="pay-language">${widgetWords.language}</label> <select id="pay-language" name="lang">${choices}</select> <button type="submit">${widgetWords.changeLanguage}</button></form>`;
}

/** The whole HTML document of a payer page. */
export function renderPayerPage(options: ShellOptions): string {
  const locale = options.messages.locale;
  // The built style sheet goes in as is: inlineStylesOf refused any that could close the element.
  const styles = payerPageStyles(options.assets);
  return html`<!doctype html>
<html lang="${locale}" dir="${directionOf(locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>${options.title}</title>
${styles ? html`<style>${trustedHtml(styles.css)}</style>` : html`<link rel="stylesheet" href="${PAY_PAGE_ASSETS.styles}">`}
${options.follow ? html`<script type="module" src="${REFUND_FOLLOW_SCRIPT_PATH}"></script>
<noscript><meta http-equiv="refresh" content="${REFUND_REFRESH_SECONDS}"></noscript>` : ''}
</head>
<body>
<main class="page">
<div class="pay">
${options.body}
</div>
${languageMenu(options)}
</main>
</body>
</html>
`.markup;
}
