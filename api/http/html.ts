/**
 * @module A tagged template for server-rendered HTML (the payer page, the demo store, every page to
 * come): every interpolated value is escaped unless it is already markup made by this same tag, so
 * escaping cannot be forgotten.
 */

/** Markup produced by `html`; interpolating it into another `html` template leaves it as is. */
export class SafeHtml {
  constructor(readonly markup: string) {}

  toString(): string {
    return this.markup;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);
}

/** One interpolated value: markup stays, lists are joined, null/undefined/false vanish, the rest is escaped text. */
type Interpolation = SafeHtml | string | number | boolean | null | undefined | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** Builds markup from a template; write attributes with double quotes around the interpolation. */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let markup = strings[0]!;
  values.forEach((value, i) => {
    markup += render(value) + strings[i + 1]!;
  });
  return new SafeHtml(markup);
}

/** An http(s) URL fit for an href, or undefined (never a javascript: or data: URL). */
export function httpHref(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.toString() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Markup this code made without the tag and vouches for (a built style sheet, an encoder's SVG
 * path): never a value that came from a request or the database.
 */
export function trustedHtml(markup: string): SafeHtml {
  return new SafeHtml(markup);
}
