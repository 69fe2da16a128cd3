/**
 * A real Litecoin Core node in regtest for tests: Debian's `litecoind` on free loopback ports with a
 * temporary data directory, a legacy wallet (this build has no sqlite, so no descriptor wallets)
 * funded by mining, and a stop that always removes it.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './server-process.ts';

/** A running regtest node. */
export interface Litecoind {
  /** The RPC URL with credentials, as LITECOIN_RPC_URL takes it. */
  rpcUrl: string;
  /** Calls the node (wallet calls go to the funding wallet). */
  rpc<T = any>(method: string, ...params: unknown[]): Promise<T>;
  /** An address of the node's own wallet, for mining to. */
  minerAddress: string;
  /** Mines blocks to the node's wallet. */
  mine(count: number): Promise<string[]>;
  stop(): Promise<void>;
}

/** Where litecoind is, or undefined when it is not installed. */
export function litecoindPath(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v litecoind'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Starts a node and funds its wallet (101 blocks, so the first coinbase can be spent). */
export async function startLitecoind(): Promise<Litecoind> {
  const binary = litecoindPath();
  if (!binary) throw new Error('litecoind is not installed (Debian: apt-get install litecoind)');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'litecoind-'));
  const rpcPort = await freePort();
  const p2pPort = await freePort();
  const user = 'checkout';
  const password = `pw${Math.random().toString(36).slice(2)}`;
  const child: ChildProcess = spawn(
    binary,
    [
      '-regtest',
      `-datadir=${dataDir}`,
      `-rpcport=${rpcPort}`,
      `-port=${p2pPort}`,
      '-rpcbind=127.0.0.1',
      '-rpcallowip=127.0.0.1',
      `-rpcuser=${user}`,
      `-rpcpassword=${password}`,
      '-listen=0',
      '-server=1',
      '-txindex=1',
      '-fallbackfee=0.0002',
      // Litecoin Core relays no replacement by default; the RBF test needs opt-in replacement on.
      '-mempoolreplacement=1',
      '-printtoconsole=0',
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${rpcPort}`;
  const auth = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const call = async <T>(pathname: string, method: string, params: unknown[]): Promise<T> => {
    const response = await fetch(`${base}${pathname}`, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '1.0', id: 1, method, params }),
    });
    const body = (await response.json()) as { result: T; error: { code: number; message: string } | null };
    if (body.error) throw Object.assign(new Error(`${method}: ${body.error.message}`), { code: body.error.code });
    return body.result;
  };
  const stop = async () => {
    if (child.exitCode === null) {
      await call('/', 'stop', []).catch(() => child.kill('SIGKILL'));
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        await call('/', 'getblockchaininfo', []);
        break;
      } catch (err) {
        if (child.exitCode !== null) throw new Error('litecoind exited while starting');
        if (Date.now() > deadline) throw new Error(`litecoind did not answer within 30 s: ${(err as Error).message}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    await call('/', 'createwallet', ['funding', false, false, '', false, false]);
    const rpc = <T>(method: string, ...params: unknown[]) => call<T>('/wallet/funding', method, params);
    const minerAddress = await rpc<string>('getnewaddress', '', 'bech32');
    await rpc('generatetoaddress', 101, minerAddress);
    return {
      rpcUrl: `http://${user}:${password}@127.0.0.1:${rpcPort}`,
      rpc,
      minerAddress,
      mine: (count) => rpc<string[]>('generatetoaddress', count, minerAddress),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
