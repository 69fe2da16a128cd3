/**
 * @module The registry's ERC-20 tokens as the node knows them: each contract's own `decimals()`,
 * read once at start-up. A contract that does not answer (mainnet's default address on another
 * chain, before `asset set-contract`) is logged and left out: its asset is neither watched nor paid out.
 */
import type { Logger } from '../../shared/logger.ts';
import type { Asset } from '../asset-registry.ts';
import { NodeUnreachable, type RpcClient } from '../json-rpc-client.ts';

/** `decimals()`. */
const DECIMALS_CALL = '0x313ce567';

/** A token contract in use: its asset and its on-chain decimals. */
export interface EthToken {
  asset: Asset;
  /** The contract, lowercase. */
  contract: string;
  decimals: number;
}

/** The tokens that answered, by contract (lowercase). */
export type EthTokens = ReadonlyMap<string, EthToken>;

/** Reads each token asset's `decimals()` from its contract. */
export async function loadEthTokens(rpc: RpcClient, assets: readonly Asset[], logger: Logger): Promise<EthTokens> {
  const tokens = new Map<string, EthToken>();
  for (const asset of assets) {
    if (asset.contractAddress === null) continue;
    const contract = asset.contractAddress.toLowerCase();
    try {
      const answer = await rpc.call<string>('eth_call', [{ to: contract, data: DECIMALS_CALL }, 'latest']);
      if (!/^0x[0-9a-fA-F]+$/.test(answer) || answer.length < 3) throw new Error('no contract there');
      tokens.set(contract, { asset, contract, decimals: Number(BigInt(answer)) });
    } catch (err) {
      if (err instanceof NodeUnreachable) throw err;
      logger.warn(
        { asset: asset.short, contract: asset.contractAddress },
        `no ERC-20 answers decimals() at ${asset.short}'s contract on this chain; ${asset.short} is not watched or paid out (npm run cli -- asset set-contract sets it)`,
      );
    }
  }
  return tokens;
}

/** A decimal string as a whole number of units with `decimals` digits after the point (extra digits must be zeros). */
export function parseUnits(amount: string, decimals: number): bigint {
  const [whole = '0', fraction = ''] = amount.split('.');
  if (fraction.length > decimals && /[1-9]/.test(fraction.slice(decimals))) throw new Error(`${amount} has more than ${decimals} decimals`);
  return BigInt(whole + fraction.slice(0, decimals).padEnd(decimals, '0'));
}

/** A whole number of a token's smallest unit as an exact decimal string. */
export function formatUnits(value: bigint, decimals: number): string {
  if (decimals === 0) return value.toString();
  const digits = value.toString().padStart(decimals + 1, '0');
  return `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}
