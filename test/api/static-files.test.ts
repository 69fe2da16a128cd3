/**
 * The widget and payer-page files on the wire: precompressed brotli or gzip as Accept-Encoding
 * allows, Vary, ETag revalidation for stable names, a year's immutable caching for hashed ones, and
 * the /pay HTML, the checkout view and the asset logos compressed. Reads the build (npm test builds first).
 */
import assert from 'node:assert/strict';
import express from 'express';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { DIST_DIR } from '../../api/app.ts';
import { pickEncoding, staticFiles } from '../../api/http/static-files.ts';
import { merchantApi, startTestServer, type TestServer } from '../helpers/test-server.ts';

let server: TestServer;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const WIDGET_FILE = path.join(DIST_DIR, 'widget', 'crypto-checkout.js');

/** A raw GET (fetch would undo the compression): status, headers and the bytes as sent. */
function rawGet(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    request.on('error', reject);
    request.end();
  });
}

before(async () => {
  assert.ok(fs.existsSync(`${WIDGET_FILE}.br`), 'the build writes .br and .gz copies: run `npm run build` first (npm test does)');
  server = await startTestServer();
});
after(() => server.close());

describe('the widget bundle', () => {
  test('goes as brotli, gzip or identity as the browser accepts, each decoding to the built file', async () => {
    const original = fs.readFileSync(WIDGET_FILE);
    const br = await rawGet(`${server.url}/widget/crypto-checkout.js`, { 'Accept-Encoding': 'gzip, deflate, br, zstd' });
    assert.equal(br.status, 200);
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers.vary, 'Accept-Encoding');
    assert.equal(br.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(br.headers['access-control-allow-origin'], '*');
    assert.equal(Number(br.headers['content-length']), br.body.length);
    assert.ok(br.body.length < original.length / 2.5, `${br.body.length} bytes on the wire for ${original.length}`);
    assert.deepEqual(brotliDecompressSync(br.body), original);
    const gzip = await rawGet(`${server.url}/widget/crypto-checkout.js`, { 'Accept-Encoding': 'gzip' });
    assert.equal(gzip.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(gzip.body), original);
    const refusesBr = await rawGet(`${server.url}/widget/crypto-checkout.js`, { 'Accept-Encoding': 'br;q=0, gzip' });
    assert.equal(refusesBr.headers['content-encoding'], 'gzip');
    const plain = await rawGet(`${server.url}/widget/crypto-checkout.js`);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.deepEqual(plain.body, original);
    const head = await rawGet(`${server.url}/widget/crypto-checkout.js`, { 'Accept-Encoding': 'br' }, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.body.length, 0);
    assert.equal(head.headers['content-length'], br.headers['content-length']);
  });

  test('its stable name is revalidated: the ETag answers 304, per encoding', async () => {
    const first = await rawGet(`${server.url}/widget/crypto-checkout.js`, { 'Accept-Encoding': 'br' });
    assert.equal(first.headers['cache-control'], 'public, max-age=0, must-revalidate');
    const etag = first.headers.etag!;
    assert.match(etag, /^"[A-Za-z0-9_-]{22}-br"$/);
    const again = await rawGet(`${server.url}/widget/crypto-checkout.js`, { 'Accept-Encoding': 'br', 'If-None-Match': etag });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    const otherEncoding = await rawGet(`${server.url}/widget/crypto-checkout.js`, { 'Accept-Encoding': 'gzip', 'If-None-Match': etag });
    assert.equal(otherEncoding.status, 200);
  });

  test('nothing outside the folder, and no precompressed copy by name', async () => {
    for (const url of ['/widget/..%2f..%2fpackage.json', '/widget/crypto-checkout.js.br', '/widget/crypto-checkout.js.gz', '/widget/nothing.js']) {
      const response = await rawGet(`${server.url}${url}`);
      assert.equal(response.status, 404, url);
    }
  });
});

describe('the payer page', () => {
  test('its HTML, script and style sheet go compressed', async () => {
    const shop = merchantApi(server, await server.createMerchant());
    const payment = (await shop.post('/payment', { amount: '0.01', asset: { short: 'BTC', network: 'bitcoin' } })).body;
    const page = await rawGet(`${server.url}/pay?id=${payment.id}`, { 'Accept-Encoding': 'br, gzip' });
    assert.equal(page.status, 200);
    assert.equal(page.headers['content-encoding'], 'br');
    assert.equal(page.headers.vary, 'Accept-Encoding');
    assert.match(brotliDecompressSync(page.body).toString('utf8'), /<html lang="en" dir="ltr">/);
    const html = brotliDecompressSync(page.body).toString('utf8');
    const script = /<script type="module" src="(\/hosted\/pay\.[A-Za-z0-9_-]{8,}\.js)">/.exec(html)?.[1];
    assert.ok(script, 'the page loads its script under a content-hashed name');
    const scriptAnswer = await rawGet(`${server.url}${script}`, { 'Accept-Encoding': 'br' });
    assert.equal(scriptAnswer.headers['cache-control'], 'public, max-age=31536000, immutable');
    for (const file of ['/hosted/pay.css', script]) {
      const response = await rawGet(`${server.url}${file}`, { 'Accept-Encoding': 'gzip' });
      assert.equal(response.status, 200, file);
      assert.equal(response.headers['content-encoding'], 'gzip', file);
      assert.deepEqual(gunzipSync(response.body), fs.readFileSync(path.join(DIST_DIR, file)));
    }
    const missing = await rawGet(`${server.url}/pay?id=nothing`, { 'Accept-Encoding': 'gzip' });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.vary, 'Accept-Encoding');
  });
});

describe('the asset logos and the checkout view the payer page loads', () => {
  const BTC_LOGO = fs.readFileSync(path.join(ROOT, 'api', 'networks', 'logos', 'btc.svg'));

  test('a logo is named by its content hash, cached for a year, immutable, and goes compressed', async () => {
    const assets = (await (await fetch(`${server.api}/assets`)).json()) as { data: Array<{ short: string; logoUrl: string }> };
    const logoUrl = assets.data.find((asset) => asset.short === 'BTC')!.logoUrl;
    assert.match(logoUrl, new RegExp(`^${server.url}/logos/btc\\.[A-Za-z0-9_-]{10}\\.svg$`));
    const br = await rawGet(logoUrl, { 'Accept-Encoding': 'gzip, deflate, br' });
    assert.equal(br.status, 200);
    assert.equal(br.headers['content-type'], 'image/svg+xml');
    assert.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers.vary, 'Accept-Encoding');
    assert.deepEqual(brotliDecompressSync(br.body), BTC_LOGO);
    const gzip = await rawGet(logoUrl, { 'Accept-Encoding': 'gzip' });
    assert.equal(gzip.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(gzip.body), BTC_LOGO);
    const plain = await rawGet(logoUrl);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.deepEqual(plain.body, BTC_LOGO);
    const revalidated = await rawGet(logoUrl, { 'Accept-Encoding': 'br', 'If-None-Match': br.headers.etag! });
    assert.equal(revalidated.status, 304);
  });

  test('the payment and checkout views point at the hashed logo, and the old plain name still answers for a week', async () => {
    const shop = merchantApi(server, await server.createMerchant());
    const payment = (await shop.post('/payment', { amount: '0.01', asset: { short: 'BTC', network: 'bitcoin' } })).body;
    const assets = (await (await fetch(`${server.api}/assets`)).json()) as { data: Array<{ short: string; logoUrl: string }> };
    const hashed = assets.data.find((asset) => asset.short === 'BTC')!.logoUrl;
    assert.equal(payment.asset.logoUrl, hashed);
    assert.equal(((await (await fetch(`${server.api}/checkout/${payment.id}`)).json()) as { asset: { logoUrl: string } }).asset.logoUrl, hashed);
    const old = await rawGet(`${server.url}/logos/btc.svg`, { 'Accept-Encoding': 'gzip' });
    assert.equal(old.status, 200);
    assert.equal(old.headers['cache-control'], 'public, max-age=604800');
    assert.equal(old.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(old.body), BTC_LOGO);
    for (const missing of ['/logos/btc.0000000000.svg', '/logos/nothing.svg', '/logos/']) assert.equal((await rawGet(`${server.url}${missing}`)).status, 404, missing);
  });

  test('the checkout view goes compressed when accepted, and as it is otherwise', async () => {
    const shop = merchantApi(server, await server.createMerchant());
    const payment = (await shop.post('/payment', { amount: '0.01', asset: { short: 'BTC', network: 'bitcoin' } })).body;
    const url = `${server.api}/checkout/${payment.id}`;
    const plain = await rawGet(url);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(plain.headers.vary, 'Accept-Encoding');
    const view = JSON.parse(plain.body.toString('utf8')) as { id: string };
    assert.equal(view.id, payment.id);
    const br = await rawGet(url, { 'Accept-Encoding': 'br, gzip' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual(JSON.parse(brotliDecompressSync(br.body).toString('utf8')), view);
    const gzip = await rawGet(url, { 'Accept-Encoding': 'gzip' });
    assert.equal(gzip.headers['content-encoding'], 'gzip');
    assert.deepEqual(JSON.parse(gunzipSync(gzip.body).toString('utf8')), view);
    assert.equal((await rawGet(url, { 'Accept-Encoding': 'gzip', 'If-None-Match': gzip.headers.etag! })).status, 304);
  });
});

describe('staticFiles', () => {
  test('caches a file whose name carries a content hash for a year, immutable', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'static-'));
    fs.writeFileSync(path.join(dir, 'chunk.a1B2c3D4.js'), 'export const x = 1;\n');
    fs.writeFileSync(path.join(dir, 'entry.js'), 'import "./chunk.a1B2c3D4.js";\n');
    const app = express().use(staticFiles(dir));
    const listening = await new Promise<http.Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
      const hashed = await rawGet(`${base}/chunk.a1B2c3D4.js`);
      assert.equal(hashed.headers['cache-control'], 'public, max-age=31536000, immutable');
      const stable = await rawGet(`${base}/entry.js`);
      assert.equal(stable.headers['cache-control'], 'public, max-age=0, must-revalidate');
      // No precompressed copy: sent as it is whatever the browser accepts.
      const plain = await rawGet(`${base}/entry.js`, { 'Accept-Encoding': 'br' });
      assert.equal(plain.headers['content-encoding'], undefined);
    } finally {
      listening.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('pickEncoding reads Accept-Encoding with q-values and *', () => {
    const both = { br: true, gzip: true };
    assert.equal(pickEncoding(undefined, both), 'identity');
    assert.equal(pickEncoding('gzip, br', both), 'br');
    assert.equal(pickEncoding('br;q=0, gzip;q=0.5', both), 'gzip');
    assert.equal(pickEncoding('*', both), 'br');
    assert.equal(pickEncoding('*;q=0', both), 'identity');
    assert.equal(pickEncoding('br', { br: false, gzip: true }), 'identity');
    assert.equal(pickEncoding('identity', both), 'identity');
  });
});
