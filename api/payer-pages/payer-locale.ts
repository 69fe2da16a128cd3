/** The language of a payer page: the one asked for (`lang`), else the browser's, else English. */
import type { Request } from 'express';
import { acceptedLanguages, type Locale, lookupLocale, matchLocale } from '../../widget/i18n/locales.ts';
import { PAYER_MESSAGES } from './payer-messages-all.ts';
import type { PayerMessages } from './payer-messages.ts';

/** The locale a request asks for: `lang` in the query or form, else `fallback` (the payment's), else Accept-Language. */
export function payerLocale(req: Request, fallback?: Locale | null): Locale {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const asked = typeof req.query.lang === 'string' ? req.query.lang : typeof body.lang === 'string' ? body.lang : undefined;
  return (asked && lookupLocale(asked)) || fallback || matchLocale(acceptedLanguages(req.get('Accept-Language')));
}

/** The payer-page messages of a request's language. */
export function payerMessages(req: Request, fallback?: Locale | null): PayerMessages {
  return PAYER_MESSAGES[payerLocale(req, fallback)];
}
