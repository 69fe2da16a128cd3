/** The twelve payer languages: complete, matched by BCP 47 lookup, and formatting numbers exactly. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PAYER_MESSAGES } from '../../api/payer-pages/payer-messages-all.ts';
import { ALL_MESSAGES } from '../../widget/i18n/all-messages.ts';
import { acceptedLanguages, directionOf, LOCALE_NAMES, LOCALES, lookupLocale, matchLocale } from '../../widget/i18n/locales.ts';
import { formatDecimal, formatDurationWords, type Messages } from '../../widget/i18n/messages.ts';

const ENGLISH = ALL_MESSAGES.en;
const KEYS = Object.keys(ENGLISH).sort() as Array<keyof Messages>;
// Words that are spelled the same in English and this language (checked, not forgotten).
const SAME_AS_ENGLISH: Partial<Record<string, string[]>> = { fr: ['confirmations', 'transaction'] };
const SAMPLE = { amount: '0.5 BTC', network: 'Bitcoin', merchant: 'Demo Store', invoice: 'INV-7' };

describe('every locale', () => {
  test('the contract\'s twelve tags, each with a name in itself', () => {
    assert.deepEqual([...LOCALES], ['en', 'es', 'pt-BR', 'fr', 'de', 'ru', 'tr', 'ar', 'zh-CN', 'ja', 'hi', 'id']);
    for (const locale of LOCALES) assert.ok(LOCALE_NAMES[locale].length > 1, locale);
  });

  for (const locale of LOCALES) {
    test(`${locale}: has every message, none empty, none left in English`, () => {
      const m = ALL_MESSAGES[locale];
      assert.equal(m.locale, locale);
      assert.deepEqual(Object.keys(m).sort(), KEYS, `${locale} lacks or adds messages`);
      const english: string[] = [];
      for (const key of KEYS) {
        if (key === 'locale') continue;
        const value = m[key];
        const text = typeof value === 'function' ? (value as (...args: unknown[]) => string)(...sampleArgs(key)) : String(value);
        assert.ok(text.trim().length > 0, `${locale}.${key} is empty`);
        assert.ok(!text.includes('undefined') && !text.includes('NaN'), `${locale}.${key}: ${text}`);
        const englishText = typeof ENGLISH[key] === 'function' ? (ENGLISH[key] as (...args: unknown[]) => string)(...sampleArgs(key)) : String(ENGLISH[key]);
        if (locale !== 'en' && text === englishText) english.push(key);
      }
      assert.deepEqual(english, SAME_AS_ENGLISH[locale] ?? [], `${locale} still says these in English`);
    });

    test(`${locale}: the values a message is given appear in it`, () => {
      const m = ALL_MESSAGES[locale];
      for (const text of [m.sendExactly(SAMPLE.amount, SAMPLE.network), m.completed(SAMPLE.merchant, SAMPLE.amount), m.qrLabel(SAMPLE.amount)]) {
        assert.ok(text.includes(SAMPLE.amount), `${locale}: ${text}`);
      }
      assert.ok(m.invoice(SAMPLE.invoice).includes(SAMPLE.invoice));
      assert.ok(m.returnTo(SAMPLE.merchant).includes(SAMPLE.merchant));
      assert.ok(m.progress(1, 6).includes('1') && m.progress(1, 6).includes('6'), m.progress(1, 6));
      assert.ok(m.confirmations(12).includes('12'));
    });
  }
});

function sampleArgs(key: keyof Messages): unknown[] {
  switch (key) {
    case 'confirmations':
    case 'reloadsEvery':
      return [3];
    case 'progress':
      return [1, 3];
    default:
      return [SAMPLE.amount, SAMPLE.network, SAMPLE.merchant];
  }
}

describe('plural forms', () => {
  test('follow each language\'s rules', () => {
    assert.deepEqual([1, 2, 5].map((n) => ALL_MESSAGES.en.confirmations(n)), ['1 confirmation', '2 confirmations', '5 confirmations']);
    assert.deepEqual([1, 2, 5, 21].map((n) => ALL_MESSAGES.ru.confirmations(n)), ['1 подтверждение', '2 подтверждения', '5 подтверждений', '21 подтверждение']);
    assert.deepEqual([1, 2, 3, 11].map((n) => ALL_MESSAGES.ar.confirmations(n)), ['تأكيد واحد', 'تأكيدين', '3 تأكيدات', '11 تأكيدًا']);
    assert.equal(ALL_MESSAGES.ja.confirmations(2), '2 回の承認');
    assert.equal(ALL_MESSAGES.fr.confirmations(0), '0 confirmation');
  });

  test('the refund page\'s refresh note too: "every 10 seconds" takes the plural form of 10', () => {
    const ar = PAYER_MESSAGES.ar.updatesEvery;
    assert.deepEqual([1, 2, 10, 11].map((n) => ar(n)), ['تتحدث هذه الصفحة كل ثانية.', 'تتحدث هذه الصفحة كل ثانيتين.', 'تتحدث هذه الصفحة كل 10 ثوانٍ.', 'تتحدث هذه الصفحة كل 11 ثانية.']);
    const ru = PAYER_MESSAGES.ru.updatesEvery;
    assert.deepEqual([10, 2, 21].map((n) => ru(n)), ['Страница обновляется каждые 10 секунд.', 'Страница обновляется каждые 2 секунды.', 'Страница обновляется каждую 21 секунду.']);
  });

  test('durations in words come from Intl, in each language', () => {
    assert.equal(formatDurationWords('en', 3 * 3600 + 61), '3 hours, 1 minute, 1 second');
    assert.equal(formatDurationWords('de', 300), '5 Minuten');
    assert.equal(formatDurationWords('ru', 300), '5 минут');
    assert.equal(formatDurationWords('en', 0), '0 seconds');
  });
});

describe('numbers', () => {
  test('show the locale\'s grouping and decimal mark, digit for digit, never through a float', () => {
    assert.equal(formatDecimal('en', '1234567.123456789012345678'), '1,234,567.123456789012345678');
    assert.equal(formatDecimal('de', '1234567.123456789012345678'), '1.234.567,123456789012345678');
    assert.equal(formatDecimal('fr', '0.1'), '0,1');
    assert.equal(formatDecimal('hi', '12345678'), '1,23,45,678');
    assert.equal(formatDecimal('en', '9007199254740993.000000000000000001'), '9,007,199,254,740,993.000000000000000001');
    assert.equal(formatDecimal('en', 'not a number'), 'not a number');
  });
});

describe('matching a request to a locale', () => {
  test('BCP 47 lookup, case-insensitive, with the contract\'s aliases', () => {
    const cases: Array<[string, string | undefined]> = [
      ['pt', 'pt-BR'],
      ['PT-br', 'pt-BR'],
      ['pt-PT', 'pt-BR'],
      ['zh', 'zh-CN'],
      ['zh-Hans', 'zh-CN'],
      ['zh-hans-cn', 'zh-CN'],
      ['es-MX', 'es'],
      ['es-419', 'es'],
      ['ar-EG', 'ar'],
      ['en-GB', 'en'],
      ['de-CH-x-private', 'de'],
      ['in', 'id'],
      ['ko', undefined],
      ['', undefined],
    ];
    for (const [tag, expected] of cases) assert.equal(lookupLocale(tag), expected, tag);
  });

  test('Accept-Language in preference order, q=0 and * left out; the first match wins, else English', () => {
    assert.deepEqual(acceptedLanguages('ko;q=0.9, ja, en;q=0.1, fr;q=0, *'), ['ja', 'ko', 'en']);
    assert.equal(matchLocale(acceptedLanguages('ko;q=0.9, ja, en;q=0.1')), 'ja');
    assert.equal(matchLocale(acceptedLanguages('ko, sv')), 'en');
    assert.equal(matchLocale(acceptedLanguages(undefined)), 'en');
  });

  test('Arabic alone is right to left', () => {
    assert.deepEqual(LOCALES.filter((l) => directionOf(l) === 'rtl'), ['ar']);
  });
});
