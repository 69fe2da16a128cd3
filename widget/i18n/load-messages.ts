/**
 * @module The widget's messages: English is built in; every other language is its own chunk,
 * fetched only when a payer needs it (so a page downloads one language, not twelve).
 */
import type { Locale } from './locales.ts';
import type { Messages } from './messages.ts';
import en from './locales/en.ts';

type Loader = () => Promise<{ default: Messages }>;

// Literal import() calls, so the bundler makes one chunk per language.
const LOADERS: Record<Exclude<Locale, 'en'>, Loader> = {
  es: () => import('./locales/es.ts'),
  'pt-BR': () => import('./locales/pt-BR.ts'),
  fr: () => import('./locales/fr.ts'),
  de: () => import('./locales/de.ts'),
  ru: () => import('./locales/ru.ts'),
  tr: () => import('./locales/tr.ts'),
  ar: () => import('./locales/ar.ts'),
  'zh-CN': () => import('./locales/zh-CN.ts'),
  ja: () => import('./locales/ja.ts'),
  hi: () => import('./locales/hi.ts'),
  id: () => import('./locales/id.ts'),
};

const loaded = new Map<Locale, Promise<Messages>>([['en', Promise.resolve(en)]]);

/** English, always at hand. */
export const ENGLISH: Messages = en;

/** A language's messages; English if its chunk cannot be fetched (the page stays usable). */
export function loadMessages(locale: Locale): Promise<Messages> {
  let messages = loaded.get(locale);
  if (!messages) {
    messages = LOADERS[locale as Exclude<Locale, 'en'>]().then(
      (module) => module.default,
      () => {
        loaded.delete(locale);
        return en;
      },
    );
    loaded.set(locale, messages);
  }
  return messages;
}
