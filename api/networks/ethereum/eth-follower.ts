/**
 * @module Receiving on Ethereum through any Ethereum JSON-RPC endpoint (geth, reth, anvil, a hosted
 * provider): ETH and the registry's ERC-20 tokens paid to this installation's addresses.
 *
 * - Each block is read once with its transactions (`eth_getBlockByNumber`, full) and its token
 *   transfers (`eth_getLogs` by block hash, the `Transfer` topic, only the registry's contracts); the
 *   recipients are matched against this installation's addresses with one indexed lookup per block,
 *   so a block's cost follows its size, not the number of addresses.
 * - A plain ETH transfer counts only when its receipt says it succeeded; a token transfer is a log,
 *   which a reverted transaction never leaves. Amounts are scaled by each contract's own
 *   `decimals()`, read at start-up; a token the registry does not name is never looked at, and a
 *   token sent to a payment of another asset is logged and not counted.
 * - The hashes of the last blocks processed are stored. A block whose parent is not the last one
 *   means a reorganisation: the follower walks back block by block against those stored hashes (a
 *   node forgets stale blocks, so it cannot say where the chains part) until one is on the chain,
 *   and the transactions of the blocks that left the chain are reported dropped (Ethereum has no
 *   mempool to wait in); mined again, they are reported anew when their new block is processed.
 * - A poll that fails again and again on one block is a stall: the status says so, and the log names
 *   the block.
 * - A restart resumes from the stored block; the first start begins at the node's tip, stored before
 *   any address is handed out.
 */
import { addr } from 'micro-eth-signer';
import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../../shared/logger.ts';
import type { UnitOfWork } from '../../unit-of-work.ts';
import type { Asset } from '../asset-registry.ts';
import type { ChainCursor } from '../follower.store.ts';
import { NodeUnreachable, type RpcClient, RpcError } from '../json-rpc-client.ts';
import { createFollowLoop } from '../follow-loop.ts';
import { createStallWatch, type FollowStep, statusAfterFailure } from '../follower-stall.ts';
import type { ChainFollower, FollowerStatus } from '../network-adapter.ts';
import { type EthTokens, formatUnits } from './eth-tokens.ts';

/** keccak256("Transfer(address,address,uint256)"). */
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const NETWORK = 'ethereum';
const FORGET_AFTER = 100;
// Blocks whose hashes are kept to walk a reorganisation back against: as deep as a transaction is followed.
const REMEMBERED_BLOCKS = FORGET_AFTER;
// How deep a block is final on a node that names no finalized block (two epochs of 32 slots).
const FINAL_DEPTH = 64;
const BLOCKS_PER_POLL = 50;

interface EthTransaction {
  hash: string;
  from: string;
  to: string | null;
  value: string;
}
interface EthBlock {
  number: string;
  hash: string;
  parentHash: string;
  transactions: EthTransaction[];
}
interface EthLog {
  address: string;
  topics: string[];
  data: string;
  transactionHash: string;
  removed?: boolean;
}

/** What the follower needs. */
export interface EthFollowerOptions {
  rpc: RpcClient;
  uow: UnitOfWork;
  /** ETH. */
  native: Asset;
  /** The registry's ERC-20 tokens that answered on this chain. */
  tokens: EthTokens;
  clock: Clock;
  logger: Logger;
  pollMs?: number;
}

/** Checks that the endpoint answers and is on the configured chain. */
export async function checkEthereumNode(rpc: RpcClient, chainId: number): Promise<void> {
  const reported = Number(BigInt(await rpc.call<string>('eth_chainId')));
  if (reported !== chainId) throw new Error(`the node is on chain id ${reported}, but ETHEREUM_CHAIN_ID is ${chainId}`);
}

const hex = (n: number) => `0x${n.toString(16)}`;

/** Creates the ethereum network's adapter over its node. */
export function createEthFollower(options: EthFollowerOptions): ChainFollower {
  const { rpc, uow, native, clock, logger, tokens } = options;
  const pollMs = options.pollMs ?? 1_000;
  let status: FollowerStatus = { state: 'starting', height: null, lastBlockAt: null };
  let unreachableSince = 0;
  const stalls = createStallWatch(NETWORK, clock, logger);
  // The block being read or walked back from, named when a poll fails.
  let step: FollowStep = { height: 0, hash: null };

  const loop = createFollowLoop(() => poll(), pollMs);
  const emit = loop.emit;

  async function startCursor(): Promise<ChainCursor> {
    const block = await rpc.call<EthBlock>('eth_getBlockByNumber', ['latest', false]);
    const cursor = { height: Number(BigInt(block.number)), hash: block.hash };
    await uow.stores.followers.advance(NETWORK, cursor, REMEMBERED_BLOCKS);
    return cursor;
  }

  async function processBlock(block: EthBlock, tipHeight: number): Promise<void> {
    const height = Number(BigInt(block.number));
    const logs = tokens.size === 0 ? [] : await rpc.call<EthLog[]>('eth_getLogs', [{ blockHash: block.hash, address: [...tokens.keys()], topics: [TRANSFER_TOPIC] }]);
    // Recipients, checksummed as the addresses table keeps them.
    const valued = block.transactions.filter((t) => t.to !== null && BigInt(t.value) > 0n);
    const transfers = logs.filter((l) => !l.removed && l.topics.length === 3 && tokens.has(l.address.toLowerCase()));
    const recipient = (topic: string) => addr.addChecksum(`0x${topic.slice(26)}`);
    const candidates = [...valued.map((t) => addr.addChecksum(t.to!)), ...transfers.map((l) => recipient(l.topics[2]!))];
    const at = { hash: block.hash, height };
    // Payouts this service broadcast: their block is recorded, so their confirmations count.
    // A mined transaction can still have failed (a token contract refusing the transfer): its receipt
    // says so, and a reverted payout must never count as sent.
    const followed = await uow.stores.followers.followedAmong(NETWORK, block.transactions.map((t) => t.hash));
    for (const txnId of followed) await uow.stores.followers.follow(NETWORK, txnId, at, clock(), (await receiptIn(block, txnId)).status === '0x0');
    const own = await uow.stores.followers.ownAddresses(NETWORK, candidates);
    if (own.size === 0) return;
    const confirmations = tipHeight - height + 1;
    const report = async (txnId: string, from: string, to: string, asset: Asset, amount: string) => {
      await uow.stores.followers.follow(NETWORK, txnId, at, clock());
      await emit({ kind: 'transaction', transaction: { network: NETWORK, txnId, assetShort: asset.short, addressFrom: from, addressTo: to, destTag: null, amount, confirmations } });
    };
    for (const txn of valued) {
      const to = addr.addChecksum(txn.to!);
      if (!own.has(to)) continue;
      const receipt = await receiptIn(block, txn.hash);
      if (receipt.status !== '0x1') {
        logger.warn({ txnId: txn.hash, to }, 'a reverted transaction sent ether to a payment address; not counted');
        continue;
      }
      await report(txn.hash, addr.addChecksum(txn.from), to, native, formatUnits(BigInt(txn.value), 18));
    }
    // Transfers of one token to one address in one transaction count together.
    const summed = new Map<string, { txnId: string; from: string; to: string; asset: Asset; decimals: number; value: bigint }>();
    for (const log of transfers) {
      const to = recipient(log.topics[2]!);
      if (!own.has(to)) continue;
      const token = tokens.get(log.address.toLowerCase())!;
      const key = `${log.transactionHash}|${to}|${log.address.toLowerCase()}`;
      const entry = summed.get(key) ?? { txnId: log.transactionHash, from: recipient(log.topics[1]!), to, asset: token.asset, decimals: token.decimals, value: 0n };
      entry.value += BigInt(log.data === '0x' ? 0 : log.data);
      summed.set(key, entry);
    }
    for (const t of summed.values()) await report(t.txnId, t.from, t.to, t.asset, formatUnits(t.value, t.decimals));
  }

  // A transaction's receipt in this block. A node behind a load balancer may not have it yet, or have
  // it from another block: then the block is read again on the next poll, never taken as a success.
  async function receiptIn(block: EthBlock, txnId: string): Promise<{ status?: string }> {
    const receipt = await rpc.call<{ status?: string; blockHash?: string } | null>('eth_getTransactionReceipt', [txnId]);
    if (!receipt || receipt.blockHash !== block.hash) throw new Error(`the node has no receipt of ${txnId} in block ${block.hash} yet; the block is read again`);
    return receipt;
  }

  // The block no reorganisation takes back: the node's finalized block, or FINAL_DEPTH below the tip
  // on a node that names none.
  async function finalizedHeight(tipHeight: number): Promise<number> {
    try {
      const finalized = await rpc.call<EthBlock | null>('eth_getBlockByNumber', ['finalized', false]);
      if (finalized) return Number(BigInt(finalized.number));
    } catch (err) {
      if (!(err instanceof RpcError)) throw err;
    }
    return tipHeight - FINAL_DEPTH;
  }

  // The block processed at `height`: its stored hash; beyond the stored window (or stored by an older
  // version), the parent the node names for the block above, else the node's own block there.
  async function processedAt(height: number, above: string): Promise<string> {
    const stored = await uow.stores.followers.blockHashAt(NETWORK, height);
    if (stored !== undefined) return stored;
    const parent = (await rpc.call<EthBlock | null>('eth_getBlockByHash', [above, false]))?.parentHash;
    return parent ?? (await rpc.call<EthBlock | null>('eth_getBlockByNumber', [hex(height), false]))?.hash ?? '';
  }

  async function followBlocks(): Promise<number> {
    const tipHeight = Number(BigInt(await rpc.call<string>('eth_blockNumber')));
    let cursor = await uow.stores.followers.cursor(NETWORK);
    if (!cursor) {
      await startCursor();
      return tipHeight;
    }
    for (let processed = 0; processed < BLOCKS_PER_POLL; processed++) {
      step = { ...cursor };
      const onChain: EthBlock | null = cursor.height <= tipHeight ? await rpc.call<EthBlock | null>('eth_getBlockByNumber', [hex(cursor.height), false]) : null;
      if (onChain?.hash !== cursor.hash) {
        // The stored block left the chain: what it held is dropped, and the follower steps back to its parent.
        const gone = await uow.stores.followers.unconfirmFrom(NETWORK, cursor.height);
        for (const txnId of gone) {
          await emit({ kind: 'dropped', network: NETWORK, txnId });
          // A payout of ours stays followed (unconfirmed) until it is mined again; a payer's is forgotten.
          if (!(await uow.stores.withdrawals.findByTxnId(txnId))) await uow.stores.followers.forget(NETWORK, [txnId]);
          else await emit({ kind: 'confirmations', network: NETWORK, updates: [{ txnId, confirmations: 0 }] });
        }
        logger.warn({ network: NETWORK, height: cursor.height, dropped: gone.length }, 'chain reorganisation: walking back');
        await uow.stores.followers.forgetBlocksFrom(NETWORK, cursor.height);
        const height: number = cursor.height - 1;
        cursor = { height, hash: await processedAt(height, cursor.hash) };
        await uow.stores.followers.setCursor(NETWORK, cursor);
        continue;
      }
      if (cursor.height >= tipHeight) break;
      step = { height: cursor.height + 1, hash: null };
      const block: EthBlock | null = await rpc.call<EthBlock | null>('eth_getBlockByNumber', [hex(cursor.height + 1), true]);
      if (!block || block.parentHash !== cursor.hash) continue; // a reorganisation under way: the check above walks back
      step = { height: cursor.height + 1, hash: block.hash };
      await processBlock(block, tipHeight);
      cursor = { height: Number(BigInt(block.number)), hash: block.hash };
      await uow.stores.followers.advance(NETWORK, cursor, REMEMBERED_BLOCKS);
      status = { ...status, lastBlockAt: new Date(clock()).toISOString() };
    }
    return tipHeight;
  }

  async function followConfirmations(tipHeight: number): Promise<void> {
    const mined = (await uow.stores.followers.followed(NETWORK)).filter((t) => t.blockHeight !== null);
    if (mined.length === 0) return;
    const final = mined.some((t) => t.reverted) ? await finalizedHeight(tipHeight) : -1;
    const updates = mined.map((t) => ({
      txnId: t.txnId,
      confirmations: tipHeight - t.blockHeight! + 1,
      ...(t.reverted ? { reverted: true, final: t.blockHeight! <= final } : {}),
    }));
    await emit({ kind: 'confirmations', network: NETWORK, updates });
    // A reverted payout is followed until its block is final, however long finality takes.
    const forgotten = mined.filter((t) => tipHeight - t.blockHeight! + 1 >= FORGET_AFTER && (!t.reverted || t.blockHeight! <= final));
    await uow.stores.followers.forget(NETWORK, forgotten.map((t) => t.txnId));
  }

  async function poll(): Promise<void> {
    try {
      const tipHeight = await followBlocks();
      step = { height: tipHeight, hash: null };
      await followConfirmations(tipHeight);
      const cursor = await uow.stores.followers.cursor(NETWORK);
      status = { state: cursor && cursor.height < tipHeight ? 'behind' : 'ok', height: cursor?.height ?? null, lastBlockAt: status.lastBlockAt };
      unreachableSince = 0;
      stalls.succeeded();
    } catch (err) {
      if (err instanceof NodeUnreachable) {
        status = { state: 'unreachable', height: status.height, lastBlockAt: status.lastBlockAt };
        if (unreachableSince === 0) logger.warn({ network: NETWORK, err: err.message }, 'the node is unreachable; payments on this network wait for it');
        unreachableSince ||= clock();
        return;
      }
      const stall = stalls.failed(step, err);
      const height = (await uow.stores.followers.cursor(NETWORK).catch(() => undefined))?.height ?? status.height;
      status = statusAfterFailure(status, height, stall);
    }
  }

  return {
    network: NETWORK,
    watch: loop.watch,
    follow: loop.follow,
    close: loop.close,
    status: () => status,
    async start() {
      if (!(await uow.stores.followers.cursor(NETWORK))) await startCursor();
    },
    pollOnce: loop.pollOnce,
    pollFresh: loop.pollFresh,
  };
}
