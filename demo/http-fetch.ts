/**
 * @module The demo store's `fetch`, over node:http. The store runs in the service's own process, and
 * the global fetch (undici) parses answers with an HTTP parser compiled to WebAssembly, which V8
 * recompiles with its optimising compiler after the first few calls: 32 MB held for a moment, at
 * start (the store registers its webhook endpoint then), while the service starts its address
 * derivation worker. That moment was the peak of the service's memory at start. Node's own parser
 * is native and costs nothing to warm up. Enough of `fetch` for the typed client: method, headers,
 * a byte or string body, an abort signal; no redirects are followed (the client asks for none).
 */
import http from 'node:http';
import https from 'node:https';

/** A `fetch` for the demo store's calls to the service. */
export const httpFetch: typeof globalThis.fetch = (input, init = {}) =>
  new Promise<Response>((resolve, reject) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const signal = init.signal ?? undefined;
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const body = init.body;
    if (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) {
      reject(new TypeError('httpFetch sends only string or byte bodies'));
      return;
    }
    const request = (url.protocol === 'https:' ? https : http).request(url, { method: init.method ?? 'GET', headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('error', fail);
      answer.on('end', () => {
        signal?.removeEventListener('abort', abort);
        const status = answer.statusCode ?? 0;
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(answer.headers)) {
          for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) answerHeaders.append(name, one);
        }
        const hasBody = status !== 204 && status !== 304 && init.method !== 'HEAD';
        resolve(new Response(hasBody ? Buffer.concat(chunks) : null, { status, statusText: answer.statusMessage ?? '', headers: answerHeaders }));
      });
    });
    function fail(err: Error): void {
      signal?.removeEventListener('abort', abort);
      reject(err);
    }
    // Rejects with the signal's reason, as fetch does: a TimeoutError for AbortSignal.timeout.
    function abort(): void {
      request.destroy();
      fail(signal!.reason as Error);
    }
    signal?.addEventListener('abort', abort, { once: true });
    request.on('error', (err) => {
      if (!signal?.aborted) fail(err);
    });
    request.end(body ?? undefined);
  });
