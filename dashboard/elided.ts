/** Long values (addresses, URLs) in narrow table columns: the middle elided, the whole kept. */
import { html } from 'lit';

/**
 * `value` with its middle elided when longer than twice `keep`: the whole in its title and for
 * screen readers (visually hidden), so a row stays one line at 320 px and nothing is lost.
 */
export function elided(value: string, keep = 8) {
  if (value.length <= keep * 2 + 1) return html`<span class="mono nowrap">${value}</span>`;
  return html`<span class="mono nowrap" title=${value}><span aria-hidden="true">${value.slice(0, keep)}…${value.slice(-keep)}</span><span class="visually-hidden">${value}</span></span>`;
}
