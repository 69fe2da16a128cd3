/**
 * A loopback HTTP relay in front of a real node's JSON-RPC, for fault injection: it forwards every
 * call unchanged, records the calls it saw, and can cut the connection on the calls of one method
 * (a broadcast lost to a crash or a network failure) or answer chosen calls itself (a node that
 * lacks what it should have) while the node itself stays untouched.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running relay. */
export interface RpcProxy {
  /** The node's RPC URL with the relay's host and port in place of the node's. */
  url: string;
  /** Calls seen so far, in order: method and params. */
  calls: Array<{ method: string; params: unknown[] }>;
  /** Methods whose calls are answered by closing the connection, never reaching the node. */
  cut: Set<string>;
  /** Answers a call itself with what this returns, a result or an error (`undefined` forwards it to the node). */
  answer?: (call: { method: string; params: unknown[] }) => { result: unknown } | { error: { code: number; message: string } } | undefined;
  close(): Promise<void>;
}

/** Starts a relay to the node at `rpcUrl` (credentials in the URL, passed through). */
export async function startRpcProxy(rpcUrl: string): Promise<RpcProxy> {
  const target = new URL(rpcUrl);
  const calls: RpcProxy['calls'] = [];
  const cut = new Set<string>();
  const proxy: RpcProxy = {
    url: '',
    calls,
    cut,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const call = JSON.parse(body.toString('utf8')) as { id?: unknown; method: string; params?: unknown[] };
    calls.push({ method: call.method, params: call.params ?? [] });
    if (cut.has(call.method)) {
      req.socket.destroy();
      return;
    }
    const answered = proxy.answer?.({ method: call.method, params: call.params ?? [] });
    if (answered !== undefined) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id ?? null, ...answered }));
      return;
    }
    const upstream = await fetch(`${target.protocol}//${target.host}${req.url}`, {
      method: 'POST',
      headers: { Authorization: req.headers.authorization ?? '', 'Content-Type': 'application/json' },
      body,
    });
    res.writeHead(upstream.status, { 'Content-Type': 'application/json' });
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(rpcUrl);
  url.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.url = url.toString();
  return proxy;
}
