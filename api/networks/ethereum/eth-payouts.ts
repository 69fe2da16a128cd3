/**
 * @module Paying out on Ethereum from the installation's payout address (the account's key 1/0):
 * ETH, or a registry token by its `transfer`, signed here with micro-eth-signer.
 *
 * - EIP-1559 fees from the node: the latest block's base fee twice over plus the node's suggested
 *   priority fee (`eth_maxPriorityFeePerGas`); the gas limit is 21,000 for ETH and the node's
 *   estimate plus a fifth for a token transfer.
 * - Nonces come from a counter row (`eth_nonces`) taken in the transaction that stores the signed
 *   payout, never below what the node counts for the address: concurrent approvals, in any
 *   instance, get consecutive nonces, and a restart neither reuses nor skips one.
 * - The signed transaction is stored before it is broadcast; a crash or a lost broadcast is followed
 *   by a re-broadcast of the same bytes, and "already known" counts as sent.
 * - When the payout address holds too little ETH (amount and gas) or too little of the token, the
 *   payout waits (`PayoutWaiting`: the withdrawal stays APPROVED with a failureReason).
 */
import type { HDKey } from '@scure/bip32';
import { Transaction } from 'micro-eth-signer';
import { createContract, ERC20 } from 'micro-eth-signer/abi.js';
import type { Clock } from '../../shared/clock.ts';
import type { UnitOfWork } from '../../unit-of-work.ts';
import { deriveAddress } from '../hd-wallet.ts';
import { RpcError, type RpcClient } from '../json-rpc-client.ts';
import { NO_LONGER_PAYABLE, type Payout, PayoutWaiting, type SentPayout } from '../network-adapter.ts';
import type { PayoutTransaction } from '../wallet.store.ts';
import { type EthTokens, formatUnits, parseUnits } from './eth-tokens.ts';

/** What the payout side of Ethereum needs. */
export interface EthPayoutOptions {
  rpc: RpcClient;
  uow: UnitOfWork;
  clock: Clock;
  chainId: number;
  xpub: string;
  /** The account with its private key; undefined on a receive-only installation. */
  signer: HDKey | undefined;
  noSignerReason: string;
  tokens: EthTokens;
  /** After how long unmined a payout is replaced at a higher fee (ETHEREUM_STUCK_SECONDS). */
  stuckMs: number;
}

/** The payout side of Ethereum. */
export interface EthPayouts {
  readonly payoutAddress: string;
  readonly payoutsDisabled: string | undefined;
  send(payout: Payout): Promise<SentPayout>;
  /** Follows up a sent payout: the hash mined, a re-broadcast, or a replacement at a higher fee once stuck. */
  resend(reference: string): Promise<string | undefined>;
  /**
   * Sends `value` wei from the payout address to `to` (a sweep's gas top-up), stored under
   * `reference` before it is broadcast like a payout; the same reference never sends twice.
   */
  topUp(reference: string, to: string, value: bigint): Promise<string>;
  /** Broadcasts again the top-ups stored since `since` that the node does not know as mined. */
  rebroadcastTopUps(since: number): Promise<void>;
  /** The account's signing key at chain/index, if this installation can sign. */
  keyAt(chain: 0 | 1, index: number): Uint8Array | undefined;
}

/** The prefix of the stored top-ups' references. */
export const TOP_UP_PREFIX = 'top-up:';

/** EIP-1559 fees from the node: twice the latest base fee plus its suggested priority fee. */
export async function ethFees(rpc: RpcClient): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
  const block = await rpc.call<{ baseFeePerGas?: string }>('eth_getBlockByNumber', ['latest', false]);
  const base = BigInt(block.baseFeePerGas ?? '0x0');
  let tip = 1_000_000_000n;
  try {
    tip = BigInt(await rpc.call<string>('eth_maxPriorityFeePerGas'));
  } catch (err) {
    if (!(err instanceof RpcError)) throw err;
  }
  return { maxFeePerGas: base * 2n + tip, maxPriorityFeePerGas: tip };
}

/** Broadcasts a signed transaction; "already known", or mined already, counts as sent. */
export async function broadcastSigned(rpc: RpcClient, raw: string, hash: string): Promise<void> {
  try {
    await rpc.call<string>('eth_sendRawTransaction', [raw]);
  } catch (err) {
    if (!(err instanceof RpcError)) throw err;
    if (ALREADY_SENT.test(err.message)) return;
    // "nonce too low": sent before and mined since, if the node knows it.
    if ((await rpc.call<unknown>('eth_getTransactionByHash', [hash])) !== null) return;
    throw err;
  }
}

const erc20 = createContract(ERC20);
const ALREADY_SENT = /already known|known transaction|already imported|transaction already exists/i;
const toHex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`;
/** After this many of a withdrawal's payouts reverted on chain, no new one is signed without the operator. */
const MAX_REVERTED_PAYOUTS = 3;
/** How often an unconfirmed payout that is not stuck yet is broadcast again. */
const REBROADCAST_MS = 60_000;

/** The payout address of the ethereum account (1/0). */
export function ethPayoutAddressOf(xpub: string): string {
  return deriveAddress(xpub, 'ethereum', 1, 0, 'main');
}

/** The calldata of an ERC-20 `transfer(to, amount)`. */
export function transferData(to: string, amount: bigint): string {
  return toHex(erc20.transfer.encodeInput({ to, value: amount }));
}

/** A token balance, in smallest units. */
export async function tokenBalance(rpc: RpcClient, contract: string, owner: string, block = 'latest'): Promise<bigint> {
  return BigInt(await rpc.call<string>('eth_call', [{ to: contract, data: toHex(erc20.balanceOf.encodeInput(owner)) }, block]));
}

/** Creates the payout side. */
export function createEthPayouts(options: EthPayoutOptions): EthPayouts {
  const { rpc, uow, clock, tokens } = options;
  const payoutAddress = ethPayoutAddressOf(options.xpub);
  const key = options.signer?.deriveChild(1).deriveChild(0).privateKey ?? undefined;

  const fees = () => ethFees(rpc);
  const lastBroadcast = new Map<string, number>();

  // Signs a transaction from the payout address on the next nonce and stores it, in one transaction.
  async function storeSigned(reference: string, fields: { to: string; value: bigint; data?: string; gasLimit: bigint; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }): Promise<PayoutTransaction> {
    const nodeNext = BigInt(await rpc.call<string>('eth_getTransactionCount', [payoutAddress, 'pending']));
    return uow.transaction(async (stores) => {
      const earlier = await stores.wallet.payout(reference);
      if (earlier) return earlier;
      if (!reference.startsWith(TOP_UP_PREFIX) && !(await stores.withdrawals.lockPayable(reference))) throw new PayoutWaiting(NO_LONGER_PAYABLE);
      const nonce = await stores.wallet.takeNonce(payoutAddress, nodeNext);
      const { data, ...rest } = fields;
      const tx = Transaction.prepare({ ...rest, nonce, chainId: BigInt(options.chainId), ...(data ? { data } : {}) });
      const signed = tx.signBy(key!);
      const record: PayoutTransaction = { withdrawalId: reference, network: 'ethereum', txnId: signed.hash, raw: signed.toHex(), fee: fields.gasLimit * fields.maxFeePerGas, nonce };
      await stores.wallet.insertPayout(record, clock());
      return record;
    });
  }

  // 21,000 for ether to an account without code; otherwise the node's estimate plus a fifth. A
  // transfer the node expects to fail (a token contract refusing it, a contract rejecting ether) is
  // not signed: it would spend gas and move nothing. It waits, saying why, and is tried again.
  async function gasFor(payout: Payout, to: string, value: bigint, data: string | undefined): Promise<bigint> {
    if (data === undefined && (await rpc.call<string>('eth_getCode', [to, 'latest'])) === '0x') return 21_000n;
    try {
      return (BigInt(await rpc.call<string>('eth_estimateGas', [{ from: payoutAddress, to, ...(value > 0n ? { value: `0x${value.toString(16)}` } : {}), ...(data ? { data } : {}) }])) * 6n) / 5n;
    } catch (err) {
      // Only a revert is a refusal; anything else (a node's hiccup) is an error, tried again.
      if (!(err instanceof RpcError) || !(err.code === 3 || /revert/i.test(err.message))) throw err;
      const refuser = data === undefined ? `The recipient ${payout.addressTo} (a contract)` : `The ${payout.asset.short} contract`;
      throw new PayoutWaiting(`${refuser} refuses this payout: the node expects it to fail (${err.message}). Nothing was signed; it is tried again until the transfer would succeed.`);
    }
  }

  async function sign(payout: Payout): Promise<PayoutTransaction> {
    const contract = payout.asset.contractAddress?.toLowerCase();
    const token = contract === undefined ? undefined : tokens.get(contract);
    if (contract !== undefined && !token) throw new PayoutWaiting(`${payout.asset.short} has no contract answering on this chain; set it with npm run cli -- asset set-contract and restart.`);
    const units = parseUnits(payout.amount, token ? token.decimals : 18);
    const { maxFeePerGas, maxPriorityFeePerGas } = await fees();
    const ether = BigInt(await rpc.call<string>('eth_getBalance', [payoutAddress, 'pending']));
    if (token) {
      const held = await tokenBalance(rpc, token.contract, payoutAddress, 'pending');
      if (held < units) {
        throw new PayoutWaiting(
          `The payout address ${payoutAddress} holds ${formatUnits(held, token.decimals)} ${payout.asset.short}, less than the ${payout.amount} to send. It goes out once it holds enough (sweeps move payments there).`,
        );
      }
    }
    const to = token ? token.asset.contractAddress! : payout.addressTo;
    const data = token ? transferData(payout.addressTo, units) : undefined;
    const value = token ? 0n : units;
    const gasLimit = await gasFor(payout, to, value, data);
    const gasCost = gasLimit * maxFeePerGas;
    if (ether < value + gasCost) {
      throw new PayoutWaiting(
        `The payout address ${payoutAddress} holds ${formatUnits(ether, 18)} ETH, less than the ${formatUnits(value + gasCost, 18)} ETH this payout needs with its gas. It goes out once it holds enough.`,
      );
    }
    return storeSigned(payout.reference, { to, value, ...(data ? { data } : {}), gasLimit, maxFeePerGas, maxPriorityFeePerGas });
  }

  const broadcast = (signed: PayoutTransaction) => broadcastSigned(rpc, signed.raw, signed.txnId);

  return {
    payoutAddress,
    payoutsDisabled: key ? undefined : options.noSignerReason,
    async send(payout) {
      let signed = await uow.stores.wallet.payout(payout.reference);
      if (!signed) {
        if (!key) throw new PayoutWaiting(options.noSignerReason);
        const reverted = await uow.stores.wallet.revertedPayouts(payout.reference);
        if (reverted >= MAX_REVERTED_PAYOUTS) {
          throw new PayoutWaiting(
            `${reverted} payout transactions of this withdrawal were mined and reverted (nothing was sent); it is not signed again by itself. The operator must find out why the transfer fails.`,
          );
        }
        signed = await sign(payout);
      }
      // Followed before it is broadcast: a block mined at once (or read by another instance) finds it.
      await uow.stores.followers.followIfNew('ethereum', signed.txnId, clock());
      await broadcast(signed);
      return { txnId: signed.txnId, addressFrom: payoutAddress };
    },
    async resend(reference) {
      const stored = await uow.stores.wallet.payout(reference);
      if (!stored) return undefined;
      // Mined already, as itself or as one it replaced (only one of them can be: they share a nonce).
      for (const hash of [stored.txnId, ...(stored.replaced ?? [])]) {
        if ((await rpc.call<unknown>('eth_getTransactionReceipt', [hash])) !== null) {
          await uow.stores.followers.followIfNew('ethereum', hash, clock());
          return hash;
        }
      }
      const now = clock();
      if (key && now - (stored.createdAt ?? now) >= options.stuckMs) {
        // Stuck: the same payout on the same nonce, both fees raised by at least an eighth (nodes ask a tenth).
        const old = Transaction.fromHex(stored.raw).raw as { to: string; value: bigint; data: string; nonce: bigint; gasLimit: bigint; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
        const fees = await ethFees(rpc);
        const bump = (x: bigint) => x + x / 8n + 1n;
        const larger = (a: bigint, b: bigint) => (a > b ? a : b);
        const maxPriorityFeePerGas = larger(fees.maxPriorityFeePerGas, bump(old.maxPriorityFeePerGas));
        const maxFeePerGas = larger(larger(fees.maxFeePerGas, bump(old.maxFeePerGas)), maxPriorityFeePerGas);
        const data = old.data && old.data !== '0x' ? { data: old.data } : {};
        const signed = Transaction.prepare({ to: old.to, value: old.value, nonce: old.nonce, gasLimit: old.gasLimit, maxFeePerGas, maxPriorityFeePerGas, chainId: BigInt(options.chainId), ...data }).signBy(key);
        const next = { txnId: signed.hash, raw: signed.toHex(), fee: old.gasLimit * maxFeePerGas };
        if (!(await uow.stores.wallet.replacePayout(reference, stored, next, now))) return (await uow.stores.wallet.payout(reference))?.txnId;
        await uow.stores.followers.followIfNew('ethereum', next.txnId, now);
        await broadcastSigned(rpc, next.raw, next.txnId);
        return next.txnId;
      }
      // Not stuck yet: broadcast again now and then, in case the node dropped it.
      if (now - (lastBroadcast.get(reference) ?? 0) >= REBROADCAST_MS) {
        lastBroadcast.set(reference, now);
        await broadcast(stored);
      }
      return stored.txnId;
    },
    async topUp(reference, to, value) {
      if (!key) throw new PayoutWaiting(options.noSignerReason);
      let signed = await uow.stores.wallet.payout(reference);
      if (!signed) {
        const { maxFeePerGas, maxPriorityFeePerGas } = await fees();
        const ether = BigInt(await rpc.call<string>('eth_getBalance', [payoutAddress, 'pending']));
        if (ether < value + 21_000n * maxFeePerGas) throw new PayoutWaiting(`The payout address ${payoutAddress} holds ${formatUnits(ether, 18)} ETH, too little to top up a sweep's gas.`);
        signed = await storeSigned(reference, { to, value, gasLimit: 21_000n, maxFeePerGas, maxPriorityFeePerGas });
      }
      await broadcast(signed);
      return signed.txnId;
    },
    async rebroadcastTopUps(since) {
      for (const signed of await uow.stores.wallet.payoutsLike('ethereum', TOP_UP_PREFIX, since)) {
        if ((await rpc.call<unknown>('eth_getTransactionReceipt', [signed.txnId])) === null) await broadcast(signed);
      }
    },
    keyAt(chain, index) {
      return options.signer?.deriveChild(chain).deriveChild(index).privateKey ?? undefined;
    },
  };
}
