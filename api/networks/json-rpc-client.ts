/**
 * @module A JSON-RPC client for a node: Bitcoin Core and Litecoin Core (JSON-RPC 1.0,
 * `http://user:password@host:port`) or an Ethereum client (JSON-RPC 2.0; credentials in the URL are
 * optional, a provider's key may sit in its path). One POST per call, a deadline, and errors that say
 * whether the node answered (RpcError, with the node's code) or could not be reached (NodeUnreachable).
 */

/** The node answered with an error. */
export class RpcError extends Error {
  override name = 'RpcError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The node could not be reached, refused the credentials, or did not answer in time. */
export class NodeUnreachable extends Error {
  override name = 'NodeUnreachable';
}

/** Calls one node. */
export interface RpcClient {
  call<T>(method: string, params?: unknown[]): Promise<T>;
  /** The URL without its credentials, for messages. */
  readonly where: string;
}

/** A client for the node at `url` (credentials in the URL's user info). */
export function createRpcClient(url: string, options: { timeoutMs?: number; version?: '1.0' | '2.0' } = {}): RpcClient {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const version = options.version ?? '1.0';
  const parsed = new URL(url);
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (parsed.username || parsed.password) {
    headers.Authorization = `Basic ${Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString('base64')}`;
  }
  parsed.username = '';
  parsed.password = '';
  const endpoint = parsed.toString();
  const where = `${parsed.protocol}//${parsed.host}`;
  let id = 0;
  return {
    where,
    async call<T>(method: string, params: unknown[] = []): Promise<T> {
      let response: Response;
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers,
          body: JSON.stringify({ jsonrpc: version, id: ++id, method, params }),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (err) {
        throw new NodeUnreachable(`the node at ${where} did not answer ${method}: ${err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err)}`);
      }
      if (response.status === 401 || response.status === 403) {
        await response.body?.cancel();
        throw new NodeUnreachable(`the node at ${where} refused the credentials in its RPC URL (HTTP ${response.status})`);
      }
      const text = await response.text();
      let body: { result?: T; error?: { code: number; message: string } | null };
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        throw new NodeUnreachable(`the node at ${where} answered ${method} with HTTP ${response.status} and no JSON`);
      }
      if (body.error) throw new RpcError(body.error.code, `${method}: ${body.error.message}`);
      return body.result as T;
    },
  };
}
