/**
 * @module Finds the payer page's built files (npm run build): the page script under its hashed
 * name, the style sheet to inline, and the widget's language chunks. Read once at start.
 */
import fs from 'node:fs';
import path from 'node:path';
import { LOCALES, type Locale } from '../../widget/i18n/locales.ts';
import { inlineStylesOf, type PageAssets, PAY_PAGE_ASSETS } from './pay-page.ts';

const HASHED = /^([A-Za-z-]+)\.[A-Za-z0-9_-]{8,}\.js$/;

function filesIn(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** The assets under `distDir`; without a build, the unhashed names and no inlining or preloads. */
export function loadPageAssets(distDir: string): PageAssets {
  const hosted = path.join(distDir, 'hosted');
  const script = filesIn(hosted).find((name) => HASHED.exec(name)?.[1] === 'pay');
  let css: string | undefined;
  try {
    css = fs.readFileSync(path.join(hosted, 'pay.css'), 'utf8');
  } catch {
    css = undefined;
  }
  const localeChunks: Partial<Record<Locale, string>> = {};
  for (const name of filesIn(path.join(distDir, 'widget', 'locales'))) {
    const tag = HASHED.exec(name)?.[1];
    const locale = LOCALES.find((l) => l === tag);
    if (locale) localeChunks[locale] = `/widget/locales/${name}`;
  }
  return { script: script ? `/hosted/${script}` : PAY_PAGE_ASSETS.script, styles: inlineStylesOf(css), localeChunks };
}
