/**
 * @module The document around the payer's refund, request and receipt pages: the payer page's own
 * style sheet (inlined under the same CSP hash), the locale's language and direction, a reload
 * while something is still moving (these pages run no script at all), and a language menu.
 */
import { directionOf, LOCALE_NAMES, LOCALES } from '../../widget/i18n/locales.ts';
import { html, type SafeHtml, trustedHtml } from '../http/html.ts';
import { type PageAssets, PAY_PAGE_ASSETS } from '../checkout/pay-page.ts';
import type { PayerMessages } from './payer-messages.ts';
import { ALL_MESSAGES } from '../../widget/i18n/all-messages.ts';

/** Seconds between reloads of a refund page whose refund is still moving. */
export const REFUND_REFRESH_SECONDS = 10;

/** What a page is rendered with. */
export interface ShellOptions {
  messages: PayerMessages;
  title: string;
  body: SafeHtml;
  assets: PageAssets;
  /** Reload the page every REFUND_REFRESH_SECONDS (a refund on its way). */
  refresh?: boolean;
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
  const styles = options.assets.styles;
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
${options.refresh ? html`<meta http-equiv="refresh" content="${REFUND_REFRESH_SECONDS}">` : ''}
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
