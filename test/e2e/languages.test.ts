/**
 * The payer page in the payer's language, end to end: the real service as `npm start` runs it,
 * Accept-Language, ?lang= and the remembered choice in the served HTML (no JavaScript needed), the
 * language menu in headless Chromium, the element taking over in the same language, and the page at
 * 320 px in Arabic and Japanese without sideways scrolling (screenshots kept for a look).
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { type DemoMerchant, readDemoMerchant } from '../../api/merchants/demo-merchant.ts';
import { ALL_MESSAGES } from '../../widget/i18n/all-messages.ts';
import { LOCALES } from '../../widget/i18n/locales.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';

interface ProbeWindow {
  document: {
    documentElement: { lang: string; dir: string; scrollWidth: number; clientWidth: number };
    querySelector(selector: string): { shadowRoot: { querySelector(s: string): { textContent: string | null; getAttribute(n: string): string | null } | null } | null } | null;
  };
}

let server: ServerProcess;
let browser: Browser;
let merchant: DemoMerchant;
let paymentUrl: string;
const SHOTS = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-shots-'));

async function createPayment(body: Record<string, unknown>): Promise<{ id: string; paymentRedirectUrl: string; addressTo: string }> {
  const raw = JSON.stringify(body);
  const response = await fetch(`${server.url}/v2/payment`, {
    method: 'POST',
    headers: { 'API-KEY': merchant.apiKey, 'X-HMAC': createHmac('sha256', merchant.secretKey).update(raw).digest('hex'), 'Content-Type': 'application/json' },
    body: raw,
  });
  assert.equal(response.status, 200);
  return (await response.json()) as { id: string; paymentRedirectUrl: string; addressTo: string };
}

/** The element's status title, once it shows one. */
async function elementTitle(page: Page, expected: string): Promise<string> {
  await page.waitForFunction(
    (words) => (globalThis as unknown as ProbeWindow).document.querySelector('crypto-checkout')?.shadowRoot?.querySelector('.status-title')?.textContent?.includes(words) ?? false,
    { timeout: 15_000 },
    expected,
  );
  return page.evaluate(() => (globalThis as unknown as ProbeWindow).document.querySelector('crypto-checkout')!.shadowRoot!.querySelector('.status-title')!.textContent ?? '');
}

before(async () => {
  server = await startServerProcess();
  browser = await launchBrowser();
  merchant = readDemoMerchant(server.dataDir)!;
  // A long invoice and a large amount: the widest the page gets.
  paymentUrl = (await createPayment({ amount: '12345.6789', asset: { short: 'BTC', network: 'bitcoin' }, invoice: 'ORDER-2026-11-24-0001234567' })).paymentRedirectUrl;
});
after(async () => {
  await browser?.close();
  await server?.stop();
  if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
});

describe('the payer page in the payer\'s language', () => {
  it('serves the HTML in the Accept-Language it matches, with lang, dir and Content-Language', async () => {
    for (const [header, locale] of [
      ['ja,en;q=0.8', 'ja'],
      ['ar-EG', 'ar'],
      ['es-MX,es;q=0.9', 'es'],
      ['pt', 'pt-BR'],
      ['zh-Hans-CN', 'zh-CN'],
      ['ko,de;q=0.5', 'de'],
      ['ko', 'en'],
    ] as const) {
      const response = await fetch(paymentUrl, { headers: { 'Accept-Language': header } });
      const html = await response.text();
      const m = ALL_MESSAGES[locale];
      assert.equal(response.headers.get('content-language'), locale, header);
      assert.match(html, new RegExp(`<html lang="${locale}" dir="${locale === 'ar' ? 'rtl' : 'ltr'}">`), header);
      assert.ok(html.includes(`<h2>${m.waiting}</h2>`), `${header}: the title in ${locale}`);
      assert.ok(html.includes(`lang="${locale}">`), `${header}: the element is told the language`);
    }
  });

  it('every language has its chunk preloaded, and English none; each says the network is simulated', async () => {
    for (const locale of LOCALES) {
      const html = await (await fetch(`${paymentUrl}&lang=${locale}`)).text();
      assert.ok(html.includes(`<p class="pay-test-network">${ALL_MESSAGES[locale].testNetwork}</p>`), locale);
      const preload = /<link rel="modulepreload" href="(\/widget\/locales\/[^"]+)">/.exec(html)?.[1];
      if (locale === 'en') assert.equal(preload, undefined);
      else {
        assert.match(preload ?? '', new RegExp(`^/widget/locales/${locale}\\.[A-Za-z0-9_-]{8,}\\.js$`), locale);
        const chunk = await fetch(`${server.url}${preload}`);
        assert.equal(chunk.status, 200);
        assert.equal(chunk.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      }
    }
  });

  it('?lang= wins over Accept-Language and is remembered in a cookie', async () => {
    const chosen = await fetch(`${paymentUrl}&lang=de`, { headers: { 'Accept-Language': 'fr' } });
    assert.match(await chosen.text(), /<html lang="de"/);
    const cookie = chosen.headers.get('set-cookie') ?? '';
    assert.match(cookie, /^checkout_lang=de; Path=\/pay; Max-Age=31536000; SameSite=Lax$/);
    const later = await fetch(paymentUrl, { headers: { 'Accept-Language': 'fr', Cookie: cookie.split(';')[0]! } });
    assert.match(await later.text(), /<html lang="de"/);
    const unknown = await fetch(`${paymentUrl}&lang=xx`, { headers: { 'Accept-Language': 'fr' } });
    assert.match(await unknown.text(), /<html lang="fr"/);
    assert.equal(unknown.headers.get('set-cookie'), null);
  });

  it('the menu switches the language with its button, the element follows, and the choice stays', async () => {
    const page = await browser.newPage();
    await page.setExtraHTTPHeaders({ 'Accept-Language': 'en' });
    await page.goto(paymentUrl);
    assert.equal(await elementTitle(page, 'Waiting for payment'), 'Waiting for payment');
    // Stepping through the menu with the keyboard changes nothing (WCAG 3.2.2); its button does.
    await page.focus('#pay-language');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await page.evaluate(() => (globalThis as unknown as ProbeWindow).document.documentElement.lang), 'en', 'no reload while stepping');
    await page.select('#pay-language', 'fr');
    await Promise.all([page.waitForNavigation(), page.click('.pay-language button[type="submit"]')]);
    assert.equal(await page.evaluate(() => (globalThis as unknown as ProbeWindow).document.documentElement.lang), 'fr');
    assert.equal(await elementTitle(page, ALL_MESSAGES.fr.waiting), ALL_MESSAGES.fr.waiting);
    await page.goto(paymentUrl);
    assert.equal(await page.evaluate(() => (globalThis as unknown as ProbeWindow).document.documentElement.lang), 'fr');
    await page.close();
  });

  for (const locale of ['ar', 'ja'] as const) {
    it(`${locale}: fits 320 px without sideways scrolling, right to left in Arabic, the address left to right`, async () => {
      const page = await browser.newPage();
      await page.setViewport({ width: 320, height: 900 });
      await page.goto(`${paymentUrl}&lang=${locale}`);
      await elementTitle(page, ALL_MESSAGES[locale].waiting);
      const layout = await page.evaluate(() => {
        const w = globalThis as unknown as ProbeWindow;
        const root = w.document.documentElement;
        const address = w.document.querySelector('crypto-checkout')!.shadowRoot!.querySelector('[data-value="address"]')!;
        return { lang: root.lang, dir: root.dir, scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, addressDir: address.getAttribute('dir') };
      });
      assert.equal(layout.lang, locale);
      assert.equal(layout.dir, locale === 'ar' ? 'rtl' : 'ltr');
      assert.equal(layout.addressDir, 'ltr');
      assert.ok(layout.scrollWidth <= layout.clientWidth, `${locale} at 320 px scrolls sideways: ${layout.scrollWidth} > ${layout.clientWidth}`);
      const shot = path.join(SHOTS, `pay-${locale}-320.png`);
      await page.screenshot({ path: shot, fullPage: true });
      assert.ok(fs.statSync(shot).size > 10_000, 'a screenshot was taken');
      await page.close();
    });
  }
});
