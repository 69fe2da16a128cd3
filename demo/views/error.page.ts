/** The page the store shows when something went wrong. */
import { html, type SafeHtml } from '../../api/http/html.ts';
import type { StoreFrame } from './layout.ts';

/** An error page's main content. */
export function errorPage(frame: StoreFrame, title: string, message: string): SafeHtml {
  return html`<section class="error-page" aria-labelledby="error-title">
  <h1 id="error-title">${title}</h1>
  <p>${message}</p>
  <p><a class="button" href="${frame.basePath}/">Back to the shop</a></p>
</section>`;
}
