/**
 * A real Ethereum node for tests: anvil (from the @foundry-rs/anvil package, which ships its binary)
 * on a free loopback port, its ten unlocked accounts funded, blocks mined on each transaction and on
 * demand; and the test tokens: OpenZeppelin's precompiled ERC20PresetFixedSupply (18 decimals) and
 * six-decimal ERC-20s compiled from test/fixtures/Token6.sol (and BlockableToken6.sol, whose owner
 * can block an address) with solc at test time.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createContract, deployContract, ERC20 } from 'micro-eth-signer/abi.js';
import solc from 'solc';
import { ROOT } from '../../scripts/compiled-server.ts';
import { freePort } from './server-process.ts';

const token6Calls = createContract([
  { type: 'function', name: 'setBlocked', inputs: [{ name: 'account', type: 'address' }, { name: 'value', type: 'bool' }], outputs: [], stateMutability: 'nonpayable' },
] as const);

/** A running anvil. */
export interface Anvil {
  url: string;
  /** Calls the node. */
  rpc<T = any>(method: string, ...params: unknown[]): Promise<T>;
  /** The node's funded, unlocked accounts. */
  accounts: string[];
  /** Mines `count` empty blocks. */
  mine(count: number): Promise<void>;
  /** Sends a transaction from an unlocked account and returns its receipt (mined at once). */
  send(tx: { from: string; to?: string; value?: bigint; data?: string; gas?: number }): Promise<{ transactionHash: string; status: string; contractAddress: string | null; blockNumber: string }>;
  /** Deploys an ERC-20 with `decimals` (18: OpenZeppelin's preset; 6: Token6, or BlockableToken6) holding `supply` for `owner`. */
  deployToken(owner: string, symbol: string, decimals: 6 | 18, supply: bigint, options?: { blockable?: boolean }): Promise<string>;
  /** Sends `amount` (smallest units) of a token; `gas` set makes a transfer that would revert still get mined. */
  transferToken(token: string, from: string, to: string, amount: bigint, gas?: number): Promise<{ transactionHash: string; status: string }>;
  /** A token balance, in smallest units. */
  balanceOf(token: string, owner: string): Promise<bigint>;
  /**
   * BlockableToken6's owner blocks or unblocks an address; with `tip` (wei of priority fee per gas) the call is
   * only sent, not waited for, so that with automine off it is mined ahead of cheaper transactions.
   */
  setBlocked(token: string, owner: string, account: string, value: boolean, tip?: bigint): Promise<void>;
  stop(): Promise<void>;
}

/** The anvil binary of the installed package. */
export function anvilPath(): string {
  return path.join(ROOT, 'node_modules', '.bin', 'anvil');
}

const compiled = new Map<string, { abi: any; bytecode: string }>();
/** Compiles test/fixtures/<name>.sol (imports from the fixtures, else from node_modules) once per process. */
function compileFixture(name: 'Token6' | 'BlockableToken6'): { abi: any; bytecode: string } {
  const cached = compiled.get(name);
  if (cached) return cached;
  const fixtures = path.join(ROOT, 'test', 'fixtures');
  const input = {
    language: 'Solidity',
    sources: { [`${name}.sol`]: { content: fs.readFileSync(path.join(fixtures, `${name}.sol`), 'utf8') } },
    settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { [name]: ['abi', 'evm.bytecode.object'] } } },
  };
  const read = (p: string) => ({ contents: fs.readFileSync(fs.existsSync(path.join(fixtures, p)) ? path.join(fixtures, p) : path.join(ROOT, 'node_modules', p), 'utf8') });
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: read }));
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`${name}.sol: ${errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n')}`);
  const contract = output.contracts[`${name}.sol`][name];
  const result = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  compiled.set(name, result);
  return result;
}

const hex = (n: bigint | number) => `0x${n.toString(16)}`;
const erc20 = createContract(ERC20);

/** Starts anvil with chain id `chainId` (default 31337). */
export async function startAnvil(chainId = 31337): Promise<Anvil> {
  const port = await freePort();
  const child: ChildProcess = spawn(anvilPath(), ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(chainId), '--silent'], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  let id = 0;
  const rpc = async <T>(method: string, ...params: unknown[]): Promise<T> => {
    const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) });
    const body = (await response.json()) as { result: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
  };
  try {
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        await rpc('eth_chainId');
        break;
      } catch (err) {
        if (child.exitCode !== null) throw new Error('anvil exited while starting');
        if (Date.now() > deadline) throw new Error(`anvil did not answer within 20 s: ${(err as Error).message}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const accounts = await rpc<string[]>('eth_accounts');
    const send: Anvil['send'] = async (tx) => {
      const hash = await rpc<string>('eth_sendTransaction', {
        from: tx.from,
        ...(tx.to ? { to: tx.to } : {}),
        ...(tx.value !== undefined ? { value: hex(tx.value) } : {}),
        ...(tx.data ? { data: tx.data } : {}),
        ...(tx.gas ? { gas: hex(tx.gas) } : {}),
      });
      // Mined at once (automine); the receipt may take a moment to be indexed.
      for (let i = 0; ; i++) {
        const receipt = await rpc<Awaited<ReturnType<Anvil['send']>> | null>('eth_getTransactionReceipt', hash);
        if (receipt) return receipt;
        if (i > 100) throw new Error(`no receipt for ${hash}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    return {
      url,
      rpc,
      accounts,
      mine: async (count) => {
        await rpc('anvil_mine', hex(count));
      },
      send,
      async deployToken(owner, symbol, decimals, supply, options = {}) {
        let data: string;
        if (decimals === 18) {
          const artifact = JSON.parse(fs.readFileSync(createRequire(import.meta.url).resolve('@openzeppelin/contracts/build/contracts/ERC20PresetFixedSupply.json'), 'utf8'));
          data = deployContract(artifact.abi, artifact.bytecode, { name: `${symbol} test`, symbol, initialSupply: supply, owner });
        } else {
          const { abi, bytecode } = compileFixture(options.blockable ? 'BlockableToken6' : 'Token6');
          data = deployContract(abi, bytecode, { name_: `${symbol} test`, symbol_: symbol, supply });
        }
        const receipt = await send({ from: owner, data, gas: 3_000_000 });
        if (receipt.status !== '0x1' || !receipt.contractAddress) throw new Error(`deploying ${symbol} failed`);
        return receipt.contractAddress;
      },
      transferToken: (token, from, to, amount, gas) => send({ from, to: token, data: `0x${Buffer.from(erc20.transfer.encodeInput({ to, value: amount })).toString('hex')}`, ...(gas ? { gas } : {}) }),
      async setBlocked(token, owner, account, value, tip) {
        const data = `0x${Buffer.from(token6Calls.setBlocked.encodeInput({ account, value })).toString('hex')}`;
        if (tip === undefined) {
          const receipt = await send({ from: owner, to: token, data });
          if (receipt.status !== '0x1') throw new Error('setBlocked failed');
          return;
        }
        await rpc('eth_sendTransaction', { from: owner, to: token, data, gas: hex(100_000), maxPriorityFeePerGas: hex(tip), maxFeePerGas: hex(tip * 4n) });
      },
      async balanceOf(token, owner) {
        return BigInt(await rpc<string>('eth_call', { to: token, data: `0x${Buffer.from(erc20.balanceOf.encodeInput(owner)).toString('hex')}` }, 'latest'));
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
