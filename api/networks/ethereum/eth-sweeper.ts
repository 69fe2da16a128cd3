/**
 * @module Sweeping Ethereum payments to the payout address. Every payment has its own address (so a
 * transfer needs no memo to be matched), which leaves the funds spread over many addresses; payouts
 * are sent from one. A sweep moves each payment address's ETH and tokens there:
 *
 * - ETH: the balance less the gas of a plain transfer (21,000 × the max fee), signed with the
 *   address's own key.
 * - A token: `transfer` of the whole balance. A payment address holds no ETH for gas, so the payout
 *   address first sends it exactly what the transfer's gas costs (a "top-up", stored and re-broadcast
 *   like a payout); the token moves on a later pass, once the top-up is there.
 * - Automatically (a background job) for balances at or above the thresholds, and on demand
 *   (`npm run cli -- sweep --network ethereum`) for every balance worth its gas.
 *
 * A payment address is only ever spent by sweeps, so its nonce is the node's count; a sweep lost to
 * a crash is simply made again on the next pass.
 */
import { Transaction } from 'micro-eth-signer';
import type { Logger } from '../../shared/logger.ts';
import type { UnitOfWork } from '../../unit-of-work.ts';
import type { RpcClient } from '../json-rpc-client.ts';
import { PayoutWaiting } from '../network-adapter.ts';
import { broadcastSigned, ethFees, type EthPayouts, TOP_UP_PREFIX, tokenBalance, transferData } from './eth-payouts.ts';
import { type EthTokens, formatUnits } from './eth-tokens.ts';

/** What one pass did. */
export interface SweepReport {
  swept: Array<{ address: string; asset: string; amount: string; txnId: string }>;
  toppedUp: Array<{ address: string; asset: string; gas: string; txnId: string }>;
  waiting: Array<{ address: string; asset: string; reason: string }>;
}

/** Sweep thresholds: balances below them are left for a later (or an on-demand) pass. */
export interface SweepThresholds {
  /** Wei. */
  ether: bigint;
  /** In each token's smallest unit, by contract (lowercase). */
  token: (contract: string) => bigint;
}

/** What the sweeper needs. */
export interface EthSweeperOptions {
  rpc: RpcClient;
  uow: UnitOfWork;
  chainId: number;
  tokens: EthTokens;
  payouts: EthPayouts;
  logger: Logger;
}

/** Creates the sweeper. */
export function createEthSweeper(options: EthSweeperOptions) {
  const { rpc, uow, tokens, payouts, logger } = options;

  async function sendFrom(key: Uint8Array, address: string, fields: { to: string; value: bigint; data?: string; gasLimit: bigint; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }): Promise<string> {
    const nonce = BigInt(await rpc.call<string>('eth_getTransactionCount', [address, 'pending']));
    const { data, ...rest } = fields;
    const signed = Transaction.prepare({ ...rest, nonce, chainId: BigInt(options.chainId), ...(data ? { data } : {}) }).signBy(key);
    await broadcastSigned(rpc, signed.toHex(), signed.hash);
    return signed.hash;
  }

  return {
    /** One pass over the payment addresses that ever received; `thresholds` undefined sweeps all that is worth its gas. */
    async sweep(thresholds?: SweepThresholds): Promise<SweepReport> {
      const report: SweepReport = { swept: [], toppedUp: [], waiting: [] };
      if (!payouts.keyAt(0, 0)) {
        report.waiting.push({ address: '*', asset: '*', reason: payouts.payoutsDisabled ?? 'no signing key' });
        return report;
      }
      await payouts.rebroadcastTopUps(0);
      const fees = await ethFees(rpc);
      for (const { address, index } of await uow.stores.addresses.receivedOn('ethereum')) {
        const key = payouts.keyAt(0, index)!;
        let ether = BigInt(await rpc.call<string>('eth_getBalance', [address, 'pending']));
        let tokenPending = false;
        for (const token of tokens.values()) {
          const held = await tokenBalance(rpc, token.contract, address, 'pending');
          if (held === 0n || (thresholds && held < thresholds.token(token.contract))) continue;
          tokenPending = true;
          const data = transferData(payouts.payoutAddress, held);
          const gasLimit = (BigInt(await rpc.call<string>('eth_estimateGas', [{ from: address, to: token.asset.contractAddress, data }])) * 6n) / 5n;
          const gas = gasLimit * fees.maxFeePerGas;
          if (ether < gas) {
            // The top-up's reference names the address and its nonce: one top-up per sweep transfer.
            const nonce = BigInt(await rpc.call<string>('eth_getTransactionCount', [address, 'pending']));
            try {
              const txnId = await payouts.topUp(`${TOP_UP_PREFIX}${address}:${nonce}`, address, gas - ether);
              report.toppedUp.push({ address, asset: token.asset.short, gas: formatUnits(gas - ether, 18), txnId });
            } catch (err) {
              if (!(err instanceof PayoutWaiting)) throw err;
              report.waiting.push({ address, asset: token.asset.short, reason: err.message });
            }
            break; // the transfer goes on a later pass, with the gas there
          }
          const txnId = await sendFrom(key, address, { to: token.asset.contractAddress!, value: 0n, data, gasLimit, ...fees });
          report.swept.push({ address, asset: token.asset.short, amount: formatUnits(held, token.decimals), txnId });
          ether -= gas;
        }
        if (tokenPending) continue; // ETH left over waits until the tokens have moved
        const gas = 21_000n * fees.maxFeePerGas;
        if (ether <= gas || (thresholds && ether < thresholds.ether)) continue;
        const txnId = await sendFrom(key, address, { to: payouts.payoutAddress, value: ether - gas, gasLimit: 21_000n, ...fees });
        report.swept.push({ address, asset: 'ETH', amount: formatUnits(ether - gas, 18), txnId });
      }
      if (report.swept.length + report.toppedUp.length > 0) logger.info({ swept: report.swept.length, toppedUp: report.toppedUp.length }, 'ethereum sweep');
      return report;
    },
  };
}

/** The sweeper. */
export type EthSweeper = ReturnType<typeof createEthSweeper>;
