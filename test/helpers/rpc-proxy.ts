/**
 * A loopback HTTP relay in front of a real node's JSON-RPC, for fault injection: it forwards every
 * call unchanged, records the calls it saw, and can cut the connection on the calls of one method
 * (a broadcast lost to a crash or a network failure) while the node itself stays untouched.
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
  close(): Promise<void>;
}

/** Starts a relay to the node at `rpcUrl` (credentials in the URL, passed through). */
export async function startRpcProxy(rpcUrl: string): Promise<RpcProxy> {
  const target = new URL(rpcUrl);
  const calls: RpcProxy['calls'] = [];
  const cut = new Set<string>();
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const call = JSON.parse(body.toString('utf8')) as { method: string; params?: unknown[] };
    calls.push({ method: call.method, params: call.params ?? [] });
    if (cut.has(call.method)) {
      req.socket.destroy();
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
  return {
    url: url.toString(),
    calls,
    cut,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
