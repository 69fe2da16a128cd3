/**
 * @module The payer's languages: the twelve locale tags the page and the widget speak, which way
 * each is written, and BCP 47 lookup from what a browser or a page asks for to one of them.
 */

/** Every supported locale tag, English first (the fallback). */
export const LOCALES = ['en', 'es', 'pt-BR', 'fr', 'de', 'ru', 'tr', 'ar', 'zh-CN', 'ja', 'hi', 'id'] as const;
/** A supported locale tag. */
export type Locale = (typeof LOCALES)[number];

/** Each language's name in itself, for the language menu. */
export const LOCALE_NAMES: Record<Locale, string> = {
  en: 'English',
  es: 'Español',
  'pt-BR': 'Português (Brasil)',
  fr: 'Français',
  de: 'Deutsch',
  ru: 'Русский',
  tr: 'Türkçe',
  ar: 'العربية',
  'zh-CN': '简体中文',
  ja: '日本語',
  hi: 'हिन्दी',
  id: 'Bahasa Indonesia',
};

// Tags a lookup lands on that are not themselves supported: a language's usual script or region.
const ALIASES: Record<string, Locale> = {
  pt: 'pt-BR',
  zh: 'zh-CN',
  'zh-hans': 'zh-CN',
  'zh-hans-cn': 'zh-CN',
  'zh-sg': 'zh-CN',
  'zh-hans-sg': 'zh-CN',
  in: 'id', // the retired code for Indonesian, still sent by some Android versions
};
const BY_LOWER = new Map<string, Locale>(LOCALES.map((tag) => [tag.toLowerCase(), tag]));

/** Whether the locale is written right to left. */
export function directionOf(locale: Locale): 'ltr' | 'rtl' {
  return locale === 'ar' ? 'rtl' : 'ltr';
}

/**
 * The supported locale for one requested tag by BCP 47 lookup (RFC 4647 section 3.4):
 * case-insensitive, dropping subtags from the end until one matches (`es-MX` → `es`, `pt` →
 * `pt-BR`, `zh-Hans` → `zh-CN`); undefined when none does.
 */
export function lookupLocale(tag: string): Locale | undefined {
  let candidate = tag.trim().toLowerCase().replace(/_/g, '-');
  while (candidate) {
    const found = BY_LOWER.get(candidate) ?? ALIASES[candidate];
    if (found) return found;
    const cut = candidate.lastIndexOf('-');
    if (cut < 0) return undefined;
    candidate = candidate.slice(0, cut);
    // A single-letter subtag (like -x- or -u-) goes with the one after it.
    if (/-[a-z0-9]$/.test(candidate)) candidate = candidate.slice(0, -2);
  }
  return undefined;
}

/** The first of the tags (in preference order) that matches a supported locale, else English. */
export function matchLocale(tags: readonly string[]): Locale {
  for (const tag of tags) {
    const found = lookupLocale(tag);
    if (found) return found;
  }
  return 'en';
}

/** The tags of an Accept-Language header in preference order (q=0 left out). */
export function acceptedLanguages(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const weight = q ? Number(q.slice(2)) : 1;
      return { tag: tag.trim(), weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter((entry) => entry.tag !== '' && entry.tag !== '*' && entry.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index)
    .map((entry) => entry.tag);
}
