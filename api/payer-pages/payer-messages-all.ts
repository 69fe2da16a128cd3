/** Every language's payer-page messages, for the server (it renders every language). */
import type { Locale } from '../../widget/i18n/locales.ts';
import ar from './locales/ar.ts';
import de from './locales/de.ts';
import en from './locales/en.ts';
import es from './locales/es.ts';
import fr from './locales/fr.ts';
import hi from './locales/hi.ts';
import id from './locales/id.ts';
import ja from './locales/ja.ts';
import ptBR from './locales/pt-BR.ts';
import ru from './locales/ru.ts';
import tr from './locales/tr.ts';
import zhCN from './locales/zh-CN.ts';
import type { PayerMessages } from './payer-messages.ts';

/** The payer-page messages of each locale. */
export const PAYER_MESSAGES: Readonly<Record<Locale, PayerMessages>> = { en, es, 'pt-BR': ptBR, fr, de, ru, tr, ar, 'zh-CN': zhCN, ja, hi, id };
