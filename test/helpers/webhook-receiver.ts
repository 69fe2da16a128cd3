/** A real HTTP receiver on loopback for webhook tests: records every request, answers as told. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got. */
export interface ReceivedWebhook {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** How the receiver answers a request to a path. */
export type ReceiverMode =
  /** `failTypes`: events of these types are answered 500 instead (a handler's bug on one kind of event). */
  | { status: number; body?: string; delayMs?: number; failTypes?: string[] }
  | 'hang' | 'hang-after-headers' | { status: number; hugeBody: number };

/** A running receiver. */
export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Requests to one path. */
  at(path: string): ReceivedWebhook[];
  /** The first request to a path: at once if it came, else when it comes. */
  arrival(path: string): Promise<ReceivedWebhook>;
  /** Sets how a path answers (default 200). */
  answer(path: string, mode: ReceiverMode): void;
  close(): Promise<void>;
}

/** Starts a receiver on a free loopback port. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const modes = new Map<string, ReceiverMode>();
  const waiting: Array<{ path: string; resolve: (request: ReceivedWebhook) => void }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const request = { path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(request);
      for (const waiter of waiting.filter((w) => w.path === path)) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve(request);
      }
      const mode = modes.get(path) ?? { status: 200 };
      if (mode === 'hang') return;
      if (mode === 'hang-after-headers') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial');
        return;
      }
      if ('hugeBody' in mode) {
        res.writeHead(mode.status, { 'content-type': 'application/octet-stream' });
        const block = Buffer.alloc(64 * 1024, 97);
        let left = mode.hugeBody;
        const pump = () => {
          while (left > 0) {
            left -= block.length;
            if (!res.write(block)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('error', () => {});
        pump();
        return;
      }
      const failed = mode.failTypes?.includes((JSON.parse(request.body) as { type?: string }).type ?? '') === true;
      setTimeout(() => {
        res.writeHead(failed ? 500 : mode.status, { 'content-type': 'text/plain' });
        res.end(mode.body ?? 'ok');
      }, mode.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    at: (path) => received.filter((r) => r.path === path),
    arrival: (path) => {
      const came = received.find((r) => r.path === path);
      return came ? Promise.resolve(came) : new Promise((resolve) => waiting.push({ path, resolve }));
    },
    answer: (path, mode) => void modes.set(path, mode),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
