/**
 * The package as a registry would hand it out: `npm pack` of the built tree (after npm run build;
 * packed with --ignore-scripts, so the prepack build is not run twice), unpacked into a fresh
 * project beside the dependencies it declares. Its `crypto-checkout/client` imports in Node, its
 * `crypto-checkout/widget` resolves with its types, both type-check from a consumer, and it
 * carries nothing of the repository's tests, benches or build scripts.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const PKG = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  dependencies: Record<string, string>;
  exports: Record<string, string | { types: string; default?: string }>;
};

let work: string;
let project: string;
let installed: string;
let packed: string[];

before(async () => {
  assert.ok(fs.existsSync(path.join(ROOT, 'dist', 'client', 'client', 'index.js')), 'dist/ is missing: run `npm run build` first (npm test does)');
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-pack-'));
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: ROOT });
  const [report] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  assert.ok(report);
  packed = report.files.map((file) => file.path).sort();
  // What `npm install <tarball>` lays out: the package under node_modules, its dependencies beside it.
  project = path.join(work, 'consumer');
  installed = path.join(project, 'node_modules', PKG.name);
  fs.mkdirSync(installed, { recursive: true });
  await run('tar', ['-xzf', path.join(work, report.filename), '-C', installed, '--strip-components=1']);
  for (const dependency of Object.keys(PKG.dependencies)) {
    const link = path.join(project, 'node_modules', dependency);
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(path.join(ROOT, 'node_modules', dependency), link);
  }
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
});
after(() => fs.rmSync(work, { recursive: true, force: true }));

describe('the packed package', () => {
  test('ships the built package and none of the repository around it', () => {
    const tops = [...new Set(packed.map((file) => (file.includes('/') ? `${file.split('/')[0]}/` : file)))].sort();
    assert.deepEqual(tops, ['README.md', 'dist/', 'package.json']);
    assert.deepEqual(packed.filter((file) => /(^|\/)(test|bench)\//.test(file)), []);
    assert.deepEqual(packed.filter((file) => !file.endsWith('.d.ts') && /\.tsx?$/.test(file)), []);
  });

  test('every target in package.json "exports" is in the tarball', () => {
    const targets = Object.values(PKG.exports).flatMap((target) => (typeof target === 'string' ? [target] : Object.values(target)));
    const missing = targets.map((target) => target.replace(/^\.\//, '')).filter((target) => !packed.includes(target));
    assert.deepEqual(missing, []);
  });

  test('crypto-checkout/client imports in Node and crypto-checkout/widget resolves, from an installed copy', async () => {
    const probe = path.join(project, 'probe.js');
    fs.writeFileSync(
      probe,
      `const client = await import('${PKG.name}/client');\n` +
        `console.log(JSON.stringify({ client: Object.keys(client).sort(), widget: import.meta.resolve('${PKG.name}/widget') }));\n`,
    );
    const { stdout } = await run(process.execPath, [probe], { cwd: project });
    const seen = JSON.parse(stdout) as { client: string[]; widget: string };
    assert.deepEqual(seen.client, ['CheckoutApiError', 'MerchantClient', 'WebhookVerificationError', 'signBody', 'verifyWebhook']);
    const widget = fileURLToPath(seen.widget);
    assert.equal(widget, path.join(installed, 'dist', 'widget', 'crypto-checkout.js'));
    assert.ok(fs.statSync(widget).size > 0);
  });

  test('a TypeScript consumer type-checks against both entry points, declarations included', async () => {
    fs.writeFileSync(
      path.join(project, 'consumer.ts'),
      [
        `import { MerchantClient, type Payment } from '${PKG.name}/client';`,
        `import type { CheckoutPaidEvent, CryptoCheckout } from '${PKG.name}/widget';`,
        `export const client = new MerchantClient({ baseUrl: 'https://pay.example/v2', apiKey: 'key', secretKey: 'secret' });`,
        `export const amount = (payment: Payment): string => payment.amount;`,
        `export const paid = (element: CryptoCheckout, onPaid: (event: CheckoutPaidEvent) => void) => element.addEventListener('checkout-paid', onPaid);`,
        `// @ts-expect-error amounts are decimal strings`,
        `export const wrong = (payment: Payment): number => payment.amount;`,
        '',
      ].join('\n'),
    );
    fs.writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, skipLibCheck: false, lib: ['ES2023', 'DOM', 'DOM.Iterable'], types: [] },
        files: ['consumer.ts'],
      }),
    );
    const tsc = path.join(ROOT, 'node_modules', '.bin', 'tsc');
    const result = await run(tsc, ['-p', 'tsconfig.json'], { cwd: project }).then(
      () => ({ code: 0, output: '' }),
      (err: { code: number; stdout: string }) => ({ code: err.code, output: err.stdout }),
    );
    assert.equal(result.code, 0, result.output);
  });
});
