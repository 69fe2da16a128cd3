/** A list's pages: where it is, and the buttons to the previous and next page. */
import { html } from 'lit';
import type { ListOf } from './api.ts';

/** Rows per page of the dashboard's lists. */
export const PAGE_LIMIT = 20;

/** How many pages a list has: at least one, even when it is empty. */
export function pageCount(list: ListOf<unknown> | undefined): number {
  return list ? Math.max(1, Math.ceil(list.total / list.limit)) : 1;
}

/** Previous and Next for a list shown on `page` of `pages`; `go` shows another page. */
export function pagerNav(page: number, pages: number, go: (page: number) => void) {
  return html`<nav class="pager" aria-label="Pages">
    <button type="button" ?disabled=${page <= 1} @click=${() => go(page - 1)}>Previous page</button>
    <button type="button" ?disabled=${page >= pages} @click=${() => go(page + 1)}>Next page</button>
  </nav>`;
}

