/**
 * Component tests run against the built bundle, dist/widget/crypto-checkout.js, the file merchants
 * load: the `qrcode` encoder is CommonJS, which this dev server cannot serve as ES modules, and
 * testing the artefact also checks what Vite made of it. The bundle is rebuilt first when it is
 * missing or older than a widget source, so `npm run test:widget` never tests stale code.
 * Test files themselves are TypeScript (esbuild) and import only types from widget/.
 */
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { chromeLauncher } from '@web/test-runner-chrome';
import fs from 'node:fs';
import path from 'node:path';

const BUNDLE = 'dist/widget/crypto-checkout.js';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--headless=new',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

function newestSource(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

const bundleTime = fs.existsSync(BUNDLE) ? fs.statSync(BUNDLE).mtimeMs : 0;
if (bundleTime < Math.max(newestSource('widget'), fs.statSync('vite.config.ts').mtimeMs)) {
  process.stdout.write(`${BUNDLE} is missing or older than widget/: building it first\n`);
  const { build } = await import('vite');
  await build({ configFile: 'vite.config.ts', logLevel: 'warn' });
}

export default {
  files: ['test/widget/**/*.test.ts'],
  // Production builds of the test helpers' own Lit: no dev-mode warnings in the logs.
  nodeResolve: { exportConditions: ['production'] },
  plugins: [esbuildPlugin({ ts: true, target: 'es2022' })],
  browsers: [chromeLauncher({ launchOptions: { executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS } })],
  // One page at a time: focus and visibility belong to the page in front.
  concurrency: 1,
  testFramework: { config: { ui: 'bdd', timeout: 10_000 } },
  testsFinishTimeout: 120_000,
  // The element comes from the bundle, loaded the way a merchant's page loads it.
  testRunnerHtml: (testFramework) => `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>crypto-checkout tests</title><script type="module" src="/${BUNDLE}"></script></head>
  <body><script type="module" src="${testFramework}"></script></body>
</html>`,
};
