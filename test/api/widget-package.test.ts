/**
 * The widget as integrators' tools see it (after npm run build): `crypto-checkout/widget` resolves
 * through package.json "exports" with its types, a bundler project type-checks against them (React
 * JSX included), and the custom elements manifest lists exactly the element's public API.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DIST_DIR } from '../../api/app.ts';
import { getJson, startTestServer, type TestServer } from '../helpers/test-server.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const MANIFEST = path.join(DIST_DIR, 'widget', 'custom-elements.json');

interface ManifestElement {
  tagName: string;
  attributes: Array<{ name: string; type?: { text: string } }>;
  events: Array<{ name: string; type?: { text: string } }>;
  cssParts: Array<{ name: string }>;
  cssProperties: Array<{ name: string }>;
  slots: Array<{ name: string }>;
}

function element(): ManifestElement {
  const manifest = JSON.parse(fs.readFileSync(MANIFEST, 'utf8')) as { modules: Array<{ declarations?: Array<ManifestElement & { customElement?: boolean }> }> };
  const found = manifest.modules.flatMap((m) => m.declarations ?? []).find((d) => d.customElement);
  assert.ok(found, 'the manifest declares a custom element');
  return found;
}

let server: TestServer;
before(async () => {
  assert.ok(fs.existsSync(MANIFEST), 'dist/widget/custom-elements.json is missing: run `npm run build` first (npm test does)');
  server = await startTestServer();
});
after(() => server.close());

describe('the widget package', () => {
  test('crypto-checkout/widget, /widget/react and the manifest resolve through package.json exports', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    assert.equal(pkg.customElements, 'dist/widget/custom-elements.json');
    for (const target of [pkg.exports['./widget'].default, pkg.exports['./widget'].types, pkg.exports['./widget/react'].types, pkg.exports['./widget/custom-elements.json']]) {
      assert.ok(fs.existsSync(path.join(ROOT, target)), target);
    }
    assert.equal(fileURLToPath(import.meta.resolve('crypto-checkout/widget')), path.join(DIST_DIR, 'widget', 'crypto-checkout.js'));
  });

  test('a bundler project type-checks against the element, its events and its React JSX types', async () => {
    const tsc = path.join(ROOT, 'node_modules', '.bin', 'tsc');
    const result = await promisify(execFile)(tsc, ['-p', 'test/fixtures/widget-consumer/tsconfig.json'], { cwd: ROOT }).then(
      () => ({ code: 0, output: '' }),
      (err: { code: number; stdout: string }) => ({ code: err.code, output: err.stdout }),
    );
    assert.equal(result.code, 0, result.output);
  });

  test('the manifest lists the public attributes, typed events, parts, slot and every --checkout-* property the styles read', () => {
    const declared = element();
    assert.equal(declared.tagName, 'crypto-checkout');
    assert.deepEqual(declared.attributes.map((a) => [a.name, a.type?.text]), [
      ['payment-id', 'string'],
      ['api-base', 'string'],
      ['theme', "'light' | 'dark' | undefined"],
      ['lang', 'string'],
    ]);
    assert.deepEqual(declared.events.map((e) => [e.name, e.type?.text]), [
      ['checkout-status-change', 'CheckoutStatusChangeEvent'],
      ['checkout-update', 'CheckoutUpdateEvent'],
      ['checkout-paid', 'CheckoutPaidEvent'],
      ['checkout-expired', 'CheckoutExpiredEvent'],
      ['checkout-error', 'CheckoutErrorEvent'],
      ['checkout-copy', 'CheckoutCopyEvent'],
    ]);
    const styles = fs.readFileSync(path.join(ROOT, 'widget', 'crypto-checkout.styles.ts'), 'utf8');
    const read = new Set([...styles.matchAll(/var\((--checkout-[a-z-]+)/g)].map((m) => m[1]));
    assert.deepEqual(new Set(declared.cssProperties.map((p) => p.name)), read);
    const source = fs.readFileSync(path.join(ROOT, 'widget', 'crypto-checkout.element.ts'), 'utf8');
    const parts = new Set([...source.matchAll(/part="([^"$]+)"/g)].flatMap((m) => m[1]!.split(/\s+/)));
    for (const part of declared.cssParts.map((p) => p.name)) assert.ok(parts.has(part), `part ${part} is rendered`);
    assert.deepEqual(declared.slots.map((s) => s.name), ['']);
  });

  test('the manifest is served beside the widget, CORS open', async () => {
    const response = await getJson(`${server.url}/widget/custom-elements.json`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
    assert.equal(response.body.schemaVersion, JSON.parse(fs.readFileSync(MANIFEST, 'utf8')).schemaVersion);
  });
});
