/**
 * The resource bounds of the contract (section 15), measured against the service as `npm start`
 * runs it, on a fresh DATA_DIR:
 *
 * - validation: CPU the service spends on a signed 64 KiB body of unknown keys (target ≤ 50 ms),
 *   and the size of its answer (≤ 64 KiB);
 * - fan-out: 2,000 event streams open on one payment; one change reaches 95% of them within 1.5 s,
 *   GET /v2/payment/:id keeps a p99 under 300 ms meanwhile, and 2,000 idle streams cost under 10%
 *   of one core;
 * - slow clients: a signed request whose body trickles in a byte a second is cut off within 40 s,
 *   headers that never end within 10 s (the production deadlines, measured on their own sockets
 *   while the rest runs).
 *
 *   node --import tsx bench/bounds.ts        (also run at the end of `npm run bench`)
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { createHmac } from 'node:crypto';
import { freePort } from '../test/helpers/server-process.ts';
import { cpuSeconds, startService } from './processes.ts';
import { demoKeys, prepareDataDir } from './scenario.ts';

const STREAMS = 2_000;
const VALIDATION_CALLS = 40;

/** One measured bound. */
export interface Bound {
  label: string;
  value: string;
  target: string;
  met: boolean;
}

function signedPost(url: string, raw: string, keys: { apiKey: string; secretKey: string }) {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'API-KEY': keys.apiKey, 'X-HMAC': createHmac('sha256', keys.secretKey).update(raw).digest('hex') },
    body: raw,
  });
}

/** Opens an event stream with a bare HTTP request (fetch would pool 2,000 sockets awkwardly); resolves on its first event. */
function openStream(url: string, onEvent: (event: string) => void): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false, headers: { Accept: 'text/event-stream' } }, (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`stream answered ${response.statusCode}`));
        return;
      }
      let buffer = '';
      let first = true;
      response.setEncoding('utf8').on('data', (chunk: string) => {
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (!block.includes('event: payment')) continue;
          if (first) {
            first = false;
            resolve(request);
          } else onEvent(block);
        }
      });
    });
    request.on('error', reject);
  });
}

/**
 * Opens a raw socket, writes `head`, then one byte of `body` a second; resolves with how long the
 * server kept it open after the head (Infinity past `giveUpMs`) and the status line it answered.
 */
function trickle(port: number, head: string, body: string, giveUpMs: number): Promise<{ ms: number; status: string }> {
  return new Promise((resolve) => {
    let started = performance.now();
    let sent = 0;
    let answer = '';
    let timer: NodeJS.Timeout | undefined;
    // The trickle starts once the head is written: this process is busy building bodies meanwhile.
    const socket = net.connect(port, '127.0.0.1', () => {
      started = performance.now();
      socket.write(head);
      timer = setInterval(() => {
        if (sent < body.length && !socket.destroyed) socket.write(body[sent++]!);
      }, 1_000);
    });
    const giveUp = setTimeout(() => socket.destroy(new Error('give up')), giveUpMs);
    socket.on('data', (chunk) => (answer += String(chunk)));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      const ms = performance.now() - started;
      resolve({ ms: ms >= giveUpMs ? Infinity : ms, status: answer.split('\r\n')[0] || '(none)' });
    });
  });
}

/** Runs the measurements; returns the rows. */
export async function measureBounds(log: (message: string) => void): Promise<Bound[]> {
  const port = await freePort();
  const { dataDir } = await prepareDataDir(port, 0);
  const bounds: Bound[] = [];
  const streams: http.ClientRequest[] = [];
  const service = await startService(dataDir, port, 0, [], {
    SSE_MAX_STREAMS: String(STREAMS * 2),
    SSE_MAX_STREAMS_PER_CLIENT: String(STREAMS * 2),
    RATE_LIMIT_PUBLIC: '10000000',
    RATE_LIMIT_MERCHANT: '10000000',
  });
  try {
    const keys = demoKeys(dataDir);

    // Slow clients, on sockets of their own while the rest is measured.
    const slowBody = JSON.stringify({ amount: '0.01', asset: { short: 'BTC', network: 'bitcoin' }, invoice: 'a-slow-body-that-would-take-minutes' });
    const slowBodyHead =
      `POST /v2/payment HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${slowBody.length}\r\n` +
      `API-KEY: ${keys.apiKey}\r\nX-HMAC: ${createHmac('sha256', keys.secretKey).update(slowBody).digest('hex')}\r\n\r\n`;
    const slowClients = Promise.all([
      trickle(port, slowBodyHead, slowBody, 120_000),
      trickle(port, 'GET /v2/payment HTTP/1.1\r\nHost: 127.0.0.1\r\n', `X-Slow: ${'a'.repeat(200)}`, 120_000),
    ]);

    // Validation: ~8,000 unknown keys in 64 KiB, signed, many times; the service's CPU per call.
    const body: Record<string, number> = {};
    // Linear: each key adds `"k<i>":1,` to the text.
    for (let i = 0, length = 2; length + `"k${i}":1,`.length < 64 * 1024 - 40; i++) {
      body[`k${i}`] = 1;
      length += `"k${i}":1,`.length;
    }
    const raw = JSON.stringify(body);
    for (let i = 0; i < 5; i++) await (await signedPost(`${service.url}/v2/payment`, raw, keys)).text();
    const before = cpuSeconds(service.pid);
    let answerBytes = 0;
    for (let i = 0; i < VALIDATION_CALLS; i++) answerBytes = (await (await signedPost(`${service.url}/v2/payment`, raw, keys)).text()).length;
    const perCall = ((cpuSeconds(service.pid) - before) / VALIDATION_CALLS) * 1000;
    log(`bounds: 64 KiB of ${Object.keys(body).length} unknown keys: ${perCall.toFixed(1)} ms CPU per request, answer ${answerBytes} bytes`);
    bounds.push({ label: `validation: signed 64 KiB body of ${Object.keys(body).length.toLocaleString('en')} unknown keys, CPU per request`, value: `${perCall.toFixed(1)} ms`, target: '≤ 50 ms', met: perCall <= 50 });
    bounds.push({ label: 'validation: size of that answer', value: `${(answerBytes / 1024).toFixed(1)} KiB`, target: '≤ 64 KiB', met: answerBytes <= 64 * 1024 });

    // Fan-out: 2,000 streams on one payment.
    const created = await signedPost(`${service.url}/v2/payment`, JSON.stringify({ amount: '0.01', asset: { short: 'BTC', network: 'bitcoin' } }), keys);
    const payment = (await created.json()) as { id: string; addressTo: string };
    const arrivals: number[] = [];
    let changedAt = 0;
    const opened = performance.now();
    for (let i = 0; i < STREAMS; i += 100) {
      streams.push(...(await Promise.all(Array.from({ length: Math.min(100, STREAMS - i) }, () => openStream(`${service.url}/v2/checkout/${payment.id}/events`, () => arrivals.push(performance.now() - changedAt))))));
    }
    log(`bounds: ${streams.length} streams open in ${((performance.now() - opened) / 1000).toFixed(1)} s`);

    // Idle: nothing changes for 10 s.
    await new Promise((r) => setTimeout(r, 2_000));
    const idleFrom = cpuSeconds(service.pid);
    await new Promise((r) => setTimeout(r, 10_000));
    const idleShare = (cpuSeconds(service.pid) - idleFrom) / 10;
    bounds.push({ label: `fan-out: ${STREAMS.toLocaleString('en')} idle streams, CPU`, value: `${(idleShare * 100).toFixed(1)}% of a core`, target: '< 10%', met: idleShare < 0.1 });

    // One change, while a merchant reads the payment.
    const latencies: number[] = [];
    let reading = true;
    const reader = (async () => {
      while (reading) {
        const started = performance.now();
        await (await fetch(`${service.url}/v2/payment/${payment.id}`, { headers: { 'API-KEY': keys.apiKey } })).text();
        latencies.push(performance.now() - started);
      }
    })();
    await new Promise((r) => setTimeout(r, 200));
    changedAt = performance.now();
    await fetch(`${service.url}/v2/dev/transactions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ address: payment.addressTo, amount: '0.001', asset: { short: 'BTC', network: 'bitcoin' } }),
    });
    const deadline = performance.now() + 10_000;
    while (arrivals.length < STREAMS && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300));
    reading = false;
    await reader;
    const sorted = [...arrivals].sort((a, b) => a - b);
    const p95 = sorted.length >= Math.ceil(STREAMS * 0.95) ? sorted[Math.ceil(STREAMS * 0.95) - 1]! : Infinity;
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? Infinity;
    log(`bounds: change reached ${arrivals.length}/${STREAMS} streams; 95% within ${p95.toFixed(0)} ms; GET p99 ${p99.toFixed(1)} ms over ${latencies.length} reads`);
    bounds.push({ label: `fan-out: one change reaches 95% of ${STREAMS.toLocaleString('en')} streams`, value: `${p95.toFixed(0)} ms`, target: '≤ 1,500 ms', met: p95 <= 1_500 });
    bounds.push({ label: 'fan-out: GET /v2/payment/:id p99 meanwhile', value: `${p99.toFixed(1)} ms`, target: '< 300 ms', met: p99 < 300 });

    const [slowBodyCut, slowHeadersCut] = await slowClients;
    log(`bounds: a trickling body was cut off after ${(slowBodyCut.ms / 1000).toFixed(1)} s (${slowBodyCut.status}), never-ending headers after ${(slowHeadersCut.ms / 1000).toFixed(1)} s (${slowHeadersCut.status})`);
    // Cut by the server's deadline, which answers 408: anything else closed it for another reason.
    const cutBy408 = (cut: { status: string }) => cut.status.startsWith('HTTP/1.1 408');
    bounds.push({ label: 'slow clients: a signed body sent a byte a second, cut off (408) after', value: `${(slowBodyCut.ms / 1000).toFixed(1)} s`, target: '≤ 40 s', met: slowBodyCut.ms <= 40_000 && cutBy408(slowBodyCut) });
    bounds.push({ label: 'slow clients: headers that never end, cut off (408) after', value: `${(slowHeadersCut.ms / 1000).toFixed(1)} s`, target: '≤ 10 s', met: slowHeadersCut.ms <= 10_000 && cutBy408(slowHeadersCut) });
  } finally {
    for (const stream of streams) stream.destroy();
    await service.stop().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return bounds;
}

/** The rows as a markdown table. */
export function boundsTable(bounds: Bound[]): string {
  return ['| bound | measured | target | met |', '| --- | --- | --- | --- |', ...bounds.map((b) => `| ${b.label} | ${b.value} | ${b.target} | ${b.met ? 'yes' : '**NO**'} |`)].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const bounds = await measureBounds((m) => process.stdout.write(`${m}\n`));
  process.stdout.write(`\n${boundsTable(bounds)}\n`);
}
