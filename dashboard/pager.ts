/** A list's pages: where it is, and the buttons to the previous and next page. */
import { html } from 'lit';
import type { ListOf } from './api.ts';

/** Rows per page of the dashboard's lists. */
export const PAGE_LIMIT = 20;

/** How many pages a list has: at least one, even when it is empty. */
export function pageCount(list: ListOf<unknown> | undefined): number {
  return list ? Math.max(1, Math.ceil(list.total / list.limit)) : 1;
}

/**
 * Previous and Next for a list shown on `page` of `pages`; `go` shows another page; `label` names
 * the list ("Payment pages"). A button with no page to go to is marked aria-disabled rather than
 * disabled, so the focus stays on it when it reaches the first or last page.
 */
export function pagerNav(label: string, page: number, pages: number, go: (page: number) => void) {
  const button = (text: string, to: number, none: boolean) =>
    html`<button type="button" aria-disabled=${none ? 'true' : 'false'} @click=${() => none || go(to)}>${text}</button>`;
  return html`<nav class="pager" aria-label=${label}>${button('Previous page', page - 1, page <= 1)} ${button('Next page', page + 1, page >= pages)}</nav>`;
}

/**
 * Where the focus goes after an action on a list's row (`tr data-id`): its status cell, which
 * keeps its place as the list is read again (rows are keyed by id), else the list's heading.
 */
export function rowFocus(id: string): string[] {
  return [`tr[data-id="${CSS.escape(id)}"] .status-cell`, 'h1', 'h2'];
}
