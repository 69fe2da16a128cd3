/**
 * Real Monero daemons for tests: Debian's `monerod` in regtest (offline, fixed difficulty 1, blocks
 * mined on demand) and `monero-wallet-rpc`s with throw-away wallets, on free loopback ports in a
 * temporary directory. Stopped by `stop()` (every test file's `after`), and killed when the test
 * process exits whatever happened.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createMoneroRpc, type MoneroRpc } from '../../api/networks/monero/monero-rpc.ts';
import { freePort } from './server-process.ts';

/** Coinbase outputs unlock after this many blocks; a wallet spends only unlocked outputs. */
export const COINBASE_UNLOCK = 60;

/** A running monero-wallet-rpc with one wallet open. */
export interface MoneroWalletProcess {
  /** As MONERO_WALLET_RPC_URL takes it (with `user:password@` when it runs with a login). */
  rpcUrl: string;
  /** Calls the wallet. */
  rpc<T = any>(method: string, params?: Record<string, unknown>): Promise<T>;
  /** Its primary address. */
  address: string;
  stop(): Promise<void>;
}

/** A regtest monerod and the wallets started on it. */
export interface MoneroNodes {
  /** As MONERO_DAEMON_RPC_URL takes it. */
  daemonUrl: string;
  daemon<T = any>(method: string, params?: Record<string, unknown>): Promise<T>;
  /** Mines `count` blocks paying their coinbase to `address`. */
  mine(count: number, address: string): Promise<void>;
  /**
   * Mines until a transaction `wallet` knows has exactly `confirmations`: one block at a time until
   * the transaction is in one (the daemon keeps a transaction its own wallet just sent out of block
   * templates for a moment), then the rest.
   */
  confirm(wallet: MoneroWalletProcess, txid: string, confirmations: number, address: string): Promise<void>;
  /**
   * Starts a wallet RPC: a new wallet, or a view-only one of an address and its view key. `login`
   * runs it with digest-auth credentials (as in production), else with --disable-rpc-login.
   */
  startWallet(options?: { login?: boolean; viewOnly?: { address: string; viewKey: string } }): Promise<MoneroWalletProcess>;
  stop(): Promise<void>;
}

/** Whether Debian's monero package is installed. */
export function moneroInstalled(): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v monerod && command -v monero-wallet-rpc'], { encoding: 'utf8' });
    return true;
  } catch {
    return false;
  }
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function launch(binary: string, args: string[]): { child: ChildProcess; exited: Promise<void> } {
  const child = spawn(binary, args, { stdio: 'ignore' });
  running.add(child);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      running.delete(child);
      resolve();
    }),
  );
  return { child, exited };
}

async function kill(process: { child: ChildProcess; exited: Promise<void> }): Promise<void> {
  if (process.child.exitCode === null && process.child.signalCode === null) process.child.kill('SIGKILL');
  await process.exited;
}

// Polls a starting server until it answers (a daemon loads its database, a wallet RPC binds).
async function ready(rpc: MoneroRpc, method: string, child: ChildProcess, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await rpc.call(method);
      return;
    } catch (err) {
      if (child.exitCode !== null) throw new Error(`${what} exited while starting`);
      if (Date.now() > deadline) throw new Error(`${what} did not answer within 60 s: ${(err as Error).message}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** Starts a regtest monerod; wallets are started on it with `startWallet`. */
export async function startMonero(): Promise<MoneroNodes> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'monero-'));
  const rpcPort = await freePort();
  const p2pPort = await freePort();
  const daemonProcess = launch('monerod', [
    '--regtest',
    '--offline',
    '--fixed-difficulty', '1',
    '--data-dir', path.join(dir, 'daemon'),
    '--rpc-bind-ip', '127.0.0.1',
    '--rpc-bind-port', String(rpcPort),
    '--p2p-bind-ip', '127.0.0.1',
    '--p2p-bind-port', String(p2pPort),
    '--no-zmq',
    '--no-igd',
    '--non-interactive',
    '--log-level', '0',
    '--log-file', path.join(dir, 'monerod.log'),
  ]);
  const daemonUrl = `http://127.0.0.1:${rpcPort}`;
  const daemon = createMoneroRpc(daemonUrl, { timeoutMs: 120_000 });
  const wallets: Array<{ child: ChildProcess; exited: Promise<void>; rpc: MoneroRpc }> = [];
  const stop = async () => {
    for (const wallet of wallets) {
      wallet.rpc.close();
      await kill(wallet);
    }
    daemon.close();
    await kill(daemonProcess);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await ready(daemon, 'get_info', daemonProcess.child, 'monerod');
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    daemonUrl,
    daemon: (method, params) => daemon.call(method, params),
    async mine(count, address) {
      await daemon.call('generateblocks', { amount_of_blocks: count, wallet_address: address });
    },
    async confirm(wallet, txid, confirmations, address) {
      for (let blocks = 0; ; blocks++) {
        await wallet.rpc('refresh');
        const { transfer } = await wallet.rpc<{ transfer: { height: number } }>('get_transfer_by_txid', { txid, account_index: 0 });
        if (transfer.height > 0) break;
        if (blocks === 10) throw new Error(`${txid} is in no block after ${blocks} blocks`);
        await daemon.call('generateblocks', { amount_of_blocks: 1, wallet_address: address });
      }
      const { height } = await daemon.call<{ height: number }>('get_info');
      const { transfer } = await wallet.rpc<{ transfer: { height: number } }>('get_transfer_by_txid', { txid, account_index: 0 });
      const missing = confirmations - (height - transfer.height);
      if (missing > 0) await daemon.call('generateblocks', { amount_of_blocks: missing, wallet_address: address });
    },
    async startWallet(options = {}) {
      const port = await freePort();
      const walletDir = fs.mkdtempSync(path.join(dir, 'wallet-'));
      const credentials = options.login ? `checkout:pw${Math.random().toString(36).slice(2)}` : undefined;
      const launched = launch('monero-wallet-rpc', [
        '--daemon-address', `127.0.0.1:${rpcPort}`,
        '--trusted-daemon',
        '--rpc-bind-ip', '127.0.0.1',
        '--rpc-bind-port', String(port),
        '--wallet-dir', walletDir,
        ...(credentials ? ['--rpc-login', credentials] : ['--disable-rpc-login']),
        '--non-interactive',
        '--log-level', '0',
        '--log-file', path.join(walletDir, 'wallet-rpc.log'),
      ]);
      const rpcUrl = credentials ? `http://${credentials}@127.0.0.1:${port}` : `http://127.0.0.1:${port}`;
      const rpc = createMoneroRpc(rpcUrl, { timeoutMs: 120_000 });
      const wallet = { ...launched, rpc };
      wallets.push(wallet);
      await ready(rpc, 'get_version', launched.child, 'monero-wallet-rpc');
      if (options.viewOnly) {
        await rpc.call('generate_from_keys', { filename: 'wallet', address: options.viewOnly.address, viewkey: options.viewOnly.viewKey, password: '', restore_height: 0 });
      } else {
        await rpc.call('create_wallet', { filename: 'wallet', password: '', language: 'English' });
      }
      const { address } = await rpc.call<{ address: string }>('get_address', { account_index: 0 });
      return {
        rpcUrl,
        rpc: (method, params) => rpc.call(method, params),
        address,
        async stop() {
          rpc.close();
          await kill(wallet);
        },
      };
    },
    stop,
  };
}
