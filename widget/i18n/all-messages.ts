/** Every language's messages at once: for the server-rendered payer page and the tests (the widget loads one at a time). */
import type { Locale } from './locales.ts';
import type { Messages } from './messages.ts';
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

/** Each locale's messages. */
export const ALL_MESSAGES: Record<Locale, Messages> = { en, es, 'pt-BR': ptBR, fr, de, ru, tr, ar, 'zh-CN': zhCN, ja, hi, id };
