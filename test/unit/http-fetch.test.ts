/**
 * The demo store's fetch over node:http answers the typed client as the global fetch would:
 * status, headers and body bytes, no body on a 204, and a rejection with the signal's reason.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { httpFetch } from '../../demo/http-fetch.ts';

describe('the demo store fetch', () => {
  let server: http.Server;
  let base: string;
  const received: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: Buffer }> = [];
  let heardHanging: () => void = () => {};

  before(async () => {
    server = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
      if (req.url === '/empty') res.writeHead(204).end();
      else if (req.url === '/hang') heardHanging();
      else res.writeHead(409, { 'Content-Type': 'application/json', 'X-Request-Id': 'req-1', 'Set-Cookie': ['a=1', 'b=2'] }).end('{"error":"é"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  test('sends the method, headers and exact body bytes, and answers status, headers and body', async () => {
    const body = new TextEncoder().encode('{"amount":"1.5","name":"Zoë"}');
    const response = await httpFetch(`${base}/v2/payment?x=1`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'API-KEY': 'ak_1' }, body, redirect: 'manual' });
    const request = received.at(-1)!;
    assert.equal(request.method, 'POST');
    assert.equal(request.url, '/v2/payment?x=1');
    assert.equal(request.headers['api-key'], 'ak_1');
    assert.equal(request.headers['content-type'], 'application/json');
    assert.deepEqual(new Uint8Array(request.body), body);
    assert.equal(response.status, 409);
    assert.equal(response.ok, false);
    assert.equal(response.headers.get('x-request-id'), 'req-1');
    assert.deepEqual(response.headers.getSetCookie(), ['a=1', 'b=2']);
    assert.equal(await response.text(), '{"error":"é"}');
  });

  test('answers a 204 without a body', async () => {
    const response = await httpFetch(`${base}/empty`, { method: 'DELETE' });
    assert.equal(response.status, 204);
    assert.equal(response.body, null);
    assert.equal(received.at(-1)!.method, 'DELETE');
  });

  test('rejects with the reason of the signal that aborts it, as fetch does', async () => {
    const controller = new AbortController();
    heardHanging = () => controller.abort(new DOMException('no answer in time', 'TimeoutError'));
    await assert.rejects(httpFetch(`${base}/hang`, { signal: controller.signal }), { name: 'TimeoutError', message: 'no answer in time' });
    const aborted = new AbortController();
    aborted.abort(new DOMException('gone', 'AbortError'));
    await assert.rejects(httpFetch(`${base}/empty`, { signal: aborted.signal }), { name: 'AbortError' });
  });
});
