/**
 * @module Paying out on Bitcoin or Litecoin from this installation's wallet: the outputs its
 * addresses received, spent by transactions this service signs itself (@scure/btc-signer) and
 * broadcasts through the node.
 *
 * - Coin selection by @scure/btc-signer's `selectUTXO` over confirmed, unspent outputs; change goes to
 *   the payout address (the account's key 1/0). The recipient receives the withdrawal's
 *   `receivedAmount`; the network fee comes on top, from the wallet.
 * - The fee rate is the node's `estimatesmartfee` (6 blocks), never below its relay fee, and the
 *   configured fallback when the node has no estimate (a new or quiet chain).
 * - The signed transaction is stored, with its inputs marked spent by the withdrawal, in one
 *   transaction, and only then broadcast: a crash in between re-broadcasts the same transaction and
 *   never signs a second one. "Already known" and "already in the chain" answers count as sent.
 */
import type { HDKey } from '@scure/bip32';
import { selectUTXO } from '@scure/btc-signer';
import { hex } from '@scure/base';
import type { Clock } from '../../shared/clock.ts';
import type { UnitOfWork } from '../../unit-of-work.ts';
import { deriveAddress } from '../hd-wallet.ts';
import { NO_LONGER_PAYABLE, type Payout, PayoutWaiting, type SentPayout } from '../network-adapter.ts';
import type { ChainName } from '../../config.ts';
import type { ChainParams } from '../chain-params.ts';
import { RpcError, type RpcClient } from '../json-rpc-client.ts';
import type { PayoutTransaction, WalletOutput } from '../wallet.store.ts';

/** What the payout side of a UTXO network needs. */
export interface UtxoPayoutOptions {
  network: 'bitcoin' | 'litecoin';
  params: ChainParams;
  /** The chain the node runs (its address forms). */
  chain: ChainName;
  rpc: RpcClient;
  uow: UnitOfWork;
  clock: Clock;
  /** The network's account key (public), as stored in hd_accounts. */
  xpub: string;
  /** The same account with its private key, from the mnemonic; undefined on a receive-only installation. */
  signer: HDKey | undefined;
  /** Why payouts are refused when there is no signer. */
  noSignerReason: string;
  /** Sat/vB when the node has no fee estimate. */
  fallbackFeeRate: bigint;
}

/** The wallet's payout side, as the node follower offers it. */
export interface UtxoPayouts {
  readonly payoutAddress: string;
  readonly payoutsDisabled: string | undefined;
  send(payout: Payout): Promise<SentPayout>;
  /** Broadcasts a sent, unconfirmed payout again now and then (a node that restarted or evicted it); the same transaction. */
  resend(reference: string): Promise<string | undefined>;
}

// The node's answers that mean the transaction is already where a broadcast would put it.
const ALREADY_SENT = /already in (the )?block ?chain|txn-already-in-mempool|txn-already-known|already have transaction|outputs already in utxo set/i;

/** A decimal string in coins as a whole number of the smallest unit (8 decimals). */
export function toSats(amount: string): bigint {
  const [whole = '0', fraction = ''] = amount.split('.');
  if (fraction.length > 8 && /[1-9]/.test(fraction.slice(8))) throw new Error(`${amount} has more than 8 decimals`);
  return BigInt(whole + fraction.slice(0, 8).padEnd(8, '0'));
}

/** A whole number of the smallest unit as a decimal string in coins (8 decimals). */
export function fromSats(sats: bigint): string {
  const digits = sats.toString().padStart(9, '0');
  return `${digits.slice(0, -8)}.${digits.slice(-8)}`;
}

/** The payout address of a network's account: where payouts come from and change returns (1/0). */
export function payoutAddressOf(xpub: string, network: string, chain: ChainName): string {
  return deriveAddress(xpub, network, 1, 0, chain);
}

/** Creates the payout side of a UTXO network. */
export function createUtxoPayouts(options: UtxoPayoutOptions): UtxoPayouts {
  const { network, params, rpc, uow, clock, signer } = options;
  const payoutAddress = payoutAddressOf(options.xpub, network, options.chain);
  let relayFloor: bigint | undefined;

  // Sat/vB: the node's estimate for six blocks, or the fallback, and never below what it relays.
  async function feeRate(): Promise<bigint> {
    if (relayFloor === undefined) {
      const info = await rpc.call<{ relayfee: number }>('getnetworkinfo');
      relayFloor = BigInt(Math.max(1, Math.ceil(info.relayfee * 1e5)));
    }
    const estimate = await rpc.call<{ feerate?: number }>('estimatesmartfee', [6]);
    const rate = estimate.feerate !== undefined && estimate.feerate > 0 ? BigInt(Math.ceil(estimate.feerate * 1e5)) : options.fallbackFeeRate;
    return rate > relayFloor ? rate : relayFloor;
  }

  function keyFor(output: WalletOutput): Uint8Array {
    const key = signer!.deriveChild(output.keyChain).deriveChild(output.keyIndex).privateKey;
    if (!key) throw new Error('the wallet key has no private part');
    return key;
  }

  // Selects, signs and stores the payout in one transaction; a concurrent payout that took one of
  // the same outputs makes this one start again from what is left.
  async function sign(payout: Payout, rate: bigint): Promise<PayoutTransaction> {
    const amount = toSats(payout.amount);
    for (let attempt = 0; ; attempt++) {
      try {
        return await uow.transaction(async (stores) => {
          const earlier = await stores.wallet.payout(payout.reference);
          if (earlier) return earlier;
          if (!(await stores.withdrawals.lockPayable(payout.reference))) throw new PayoutWaiting(NO_LONGER_PAYABLE);
          const outputs = await stores.wallet.spendable(network);
          const inputs = outputs.map((o) => ({ txid: hex.decode(o.txnId), index: o.vout, witnessUtxo: { script: hex.decode(o.script), amount: o.value } }));
          const total = outputs.reduce((sum, o) => sum + o.value, 0n);
          const selected = inputs.length === 0 ? undefined : selectUTXO(inputs, [{ address: payout.addressTo, amount }], 'default', {
            feePerByte: rate,
            changeAddress: payoutAddress,
            network: params,
            createTx: true,
          });
          if (!selected?.tx) {
            throw new PayoutWaiting(
              `The payout wallet cannot cover this withdrawal yet: it holds ${fromSats(total)} ${payout.asset.short} confirmed, and ${payout.amount} plus the network fee (${rate} sat/vB) is needed. It goes out once funds arrive.`,
            );
          }
          const tx = selected.tx;
          for (let i = 0; i < tx.inputsLength; i++) {
            const input = tx.getInput(i);
            const txnId = hex.encode(input.txid!);
            const output = outputs.find((o) => o.txnId === txnId && o.vout === input.index)!;
            tx.signIdx(keyFor(output), i);
            if (!(await stores.wallet.spend(network, txnId, output.vout, payout.reference))) throw new OutputTaken();
          }
          tx.finalize();
          const signed: PayoutTransaction = { withdrawalId: payout.reference, network, txnId: tx.id, raw: tx.hex, fee: tx.fee };
          await stores.wallet.insertPayout(signed, clock());
          return signed;
        });
      } catch (err) {
        if (err instanceof OutputTaken && attempt < 5) continue;
        throw err;
      }
    }
  }

  async function broadcast(signed: PayoutTransaction): Promise<void> {
    try {
      await rpc.call<string>('sendrawtransaction', [signed.raw]);
    } catch (err) {
      if (err instanceof RpcError && ALREADY_SENT.test(err.message)) return;
      throw err;
    }
  }

  const lastBroadcast = new Map<string, number>();

  return {
    payoutAddress,
    payoutsDisabled: signer ? undefined : options.noSignerReason,
    async resend(reference) {
      const signed = await uow.stores.wallet.payout(reference);
      if (!signed) return undefined;
      const now = clock();
      if (now - (lastBroadcast.get(reference) ?? 0) >= 60_000) {
        lastBroadcast.set(reference, now);
        await broadcast(signed);
        await uow.stores.followers.followIfNew(network, signed.txnId, now);
      }
      return signed.txnId;
    },
    async send(payout) {
      let signed = await uow.stores.wallet.payout(payout.reference);
      if (!signed) {
        if (!signer) throw new PayoutWaiting(options.noSignerReason);
        signed = await sign(payout, await feeRate());
      }
      await broadcast(signed);
      // Followed from now on, so its confirmations reach the withdrawal even when it pays no change.
      await uow.stores.followers.followIfNew(network, signed.txnId, clock());
      return { txnId: signed.txnId, addressFrom: payoutAddress };
    },
  };
}

class OutputTaken extends Error {
  override name = 'OutputTaken';
}
