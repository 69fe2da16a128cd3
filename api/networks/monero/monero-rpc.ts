/**
 * @module A JSON-RPC 2.0 client for monerod and monero-wallet-rpc (`http://user:password@host:port`,
 * or no credentials for a server run with `--disable-rpc-login`).
 *
 * - HTTP digest authentication (RFC 7616, MD5, qop=auth) as epee implements it: the server ties its
 *   nonce to the TCP connection, so the challenge is answered on the same socket. Every call goes
 *   through one keep-alive socket (Node's `fetch` pools connections and would answer on another).
 * - Amounts are 64-bit integers of 10^-12 units, beyond a double's 53 bits: bigints go out as bare
 *   JSON numbers, and every integer of 16 or more digits in an answer comes back as a digit string.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { NodeUnreachable, RpcError } from '../json-rpc-client.ts';

/** Calls one Monero RPC server. */
export interface MoneroRpc {
  /** Calls a `/json_rpc` method with named parameters. */
  call<T>(method: string, params?: Record<string, unknown>): Promise<T>;
  /** The URL without its credentials, for messages. */
  readonly where: string;
  /** Closes the kept-alive socket. */
  close(): void;
}

interface Challenge {
  realm: string;
  nonce: string;
  opaque: string | undefined;
  count: number;
}

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

// The first `Digest` challenge with qop=auth and plain MD5 (epee also offers MD5-sess, in a header
// of its own: read them apart, as Node would join them into one).
function parseChallenge(headers: string | string[] | undefined): Challenge | undefined {
  for (const header of Array.isArray(headers) ? headers : headers ? [headers] : []) {
    if (!/^Digest /i.test(header)) continue;
    const fields = new Map([...header.slice(7).matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]*))/g)].map((m) => [m[1]!.toLowerCase(), m[2] ?? m[3] ?? '']));
    const algorithm = fields.get('algorithm') ?? 'MD5';
    if (algorithm.toUpperCase() !== 'MD5' || !(fields.get('qop') ?? 'auth').split(',').includes('auth')) continue;
    return { realm: fields.get('realm') ?? '', nonce: fields.get('nonce') ?? '', opaque: fields.get('opaque'), count: 0 };
  }
  return undefined;
}

function authorization(challenge: Challenge, user: string, password: string, uri: string): string {
  challenge.count += 1;
  const nc = challenge.count.toString(16).padStart(8, '0');
  const cnonce = randomBytes(8).toString('hex');
  const ha1 = md5(`${user}:${challenge.realm}:${password}`);
  const ha2 = md5(`POST:${uri}`);
  const response = md5(`${ha1}:${challenge.nonce}:${nc}:${cnonce}:auth:${ha2}`);
  const opaque = challenge.opaque === undefined ? '' : `, opaque="${challenge.opaque}"`;
  return `Digest username="${user}", realm="${challenge.realm}", nonce="${challenge.nonce}", uri="${uri}", algorithm=MD5, qop=auth, nc=${nc}, cnonce="${cnonce}", response="${response}"${opaque}`;
}

const BIGINT_MARK = '\u0000bigint:';

/** A request body: bigints become bare JSON numbers. */
export function encodeBody(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${BIGINT_MARK}${v}` : v));
  return text.replace(/"\\u0000bigint:(\d+)"/g, '$1');
}

/** An answer: integers too long for a double (16 or more digits) are read as digit strings. */
export function decodeBody(text: string): unknown {
  return JSON.parse(text.replace(/([:[,]\s*)(\d{16,})(?=\s*[,}\]])/g, '$1"$2"'));
}

/** A client for the server at `url` (credentials in the URL's user info). */
export function createMoneroRpc(url: string, options: { timeoutMs?: number } = {}): MoneroRpc {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const parsed = new URL(url);
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  const where = `${parsed.protocol}//${parsed.host}`;
  const transport = parsed.protocol === 'https:' ? https : http;
  const agent = new transport.Agent({ keepAlive: true, maxSockets: 1 });
  const path = '/json_rpc';
  let challenge: Challenge | undefined;
  let id = 0;

  function post(body: string, auth: string | undefined): Promise<{ status: number; text: string; challenge: Challenge | undefined }> {
    return new Promise((resolve, reject) => {
      const request = transport.request(
        { host: parsed.hostname, port: parsed.port, path, method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...(auth ? { Authorization: auth } : {}) } },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), challenge: parseChallenge(response.headersDistinct['www-authenticate']) }));
          response.on('error', reject);
        },
      );
      request.setTimeout(timeoutMs, () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      request.on('error', reject);
      request.end(body);
    });
  }

  return {
    where,
    close: () => agent.destroy(),
    async call<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
      const body = encodeBody({ jsonrpc: '2.0', id: ++id, method, params });
      let answer: Awaited<ReturnType<typeof post>>;
      try {
        answer = await post(body, challenge && authorization(challenge, user, password, path));
        // A new connection (or a stale nonce): answer the challenge it just sent, on the same socket.
        for (let attempt = 0; answer.status === 401 && answer.challenge && (user || password) && attempt < 2; attempt++) {
          challenge = answer.challenge;
          answer = await post(body, authorization(challenge, user, password, path));
        }
      } catch (err) {
        throw new NodeUnreachable(`the Monero RPC at ${where} did not answer ${method}: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (answer.status === 401 || answer.status === 403) throw new NodeUnreachable(`the Monero RPC at ${where} refused the credentials in its URL (HTTP ${answer.status})`);
      let decoded: { result?: T; error?: { code: number; message: string } };
      try {
        decoded = decodeBody(answer.text) as typeof decoded;
      } catch {
        throw new NodeUnreachable(`the Monero RPC at ${where} answered ${method} with HTTP ${answer.status} and no JSON`);
      }
      if (decoded.error) throw new RpcError(decoded.error.code, `${method}: ${decoded.error.message}`);
      return decoded.result as T;
    },
  };
}
