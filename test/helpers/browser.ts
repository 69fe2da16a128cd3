/** Headless Debian Chromium for end-to-end tests (nothing here can download a browser). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

/** Where Debian's chromium package puts the browser; CHROMIUM_PATH overrides. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags that work as root in a sandboxed CI machine without network. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--headless=new',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

/** Launches Chromium with a fresh profile; close it with `browser.close()`. */
export async function launchBrowser(): Promise<Browser> {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-chromium-'));
  const browser = await puppeteer.launch({ executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_FLAGS, `--user-data-dir=${userDataDir}`] });
  // Chromium's helper processes may still be writing the profile when the connection drops, so
  // remove it asynchronously with retries; a throw from this listener would crash the test process.
  browser.once('disconnected', () => fs.rm(userDataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }, () => {}));
  return browser;
}
