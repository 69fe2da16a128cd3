/**
 * @module Receiving on Bitcoin or Litecoin through a Bitcoin Core-compatible node, with no wallet
 * in the node: the follower reads blocks (`getblock <hash> 2`) and the mempool itself and matches
 * every output against this installation's addresses (one indexed lookup per block, whatever the
 * number of addresses), and reports to the chain watcher as the simulator does.
 *
 * - The last block processed and its hash are stored; a block whose parent is not that hash means a
 *   reorganisation: the follower walks back, and the transactions of the blocks that left the chain
 *   go back to unconfirmed (counted anew when mined again).
 * - A reported transaction that is neither in a block nor in the mempool on two polls in a row
 *   (replaced by a fee bump, evicted, conflicted) is reported dropped.
 * - A restart resumes from the stored block, so nothing sent while the service was down is missed.
 *   The first start begins at the node's current tip.
 * - A poll that fails again and again on one block is a stall: the status says so, and the log names
 *   the block.
 */
import { Lru } from '../../shared/lru.ts';
import type { Logger } from '../../shared/logger.ts';
import type { Clock } from '../../shared/clock.ts';
import type { UnitOfWork } from '../../unit-of-work.ts';
import type { Asset } from '../asset-registry.ts';
import { createFollowLoop } from '../follow-loop.ts';
import { createStallWatch, type FollowStep, statusAfterFailure } from '../follower-stall.ts';
import type { ChainFollower, FollowerStatus } from '../network-adapter.ts';
import type { ChainName } from '../../config.ts';
import type { ChainCursor } from '../follower.store.ts';
import { NodeUnreachable, type RpcClient } from '../json-rpc-client.ts';
import { fromSats } from './utxo-payouts.ts';

interface NodeOutput {
  value: number;
  n: number;
  scriptPubKey: { hex: string; address?: string; addresses?: string[] };
}
interface NodeTransaction {
  txid: string;
  /** Inputs: the output each spends (a coinbase input has no txid). */
  vin?: Array<{ txid?: string; vout?: number }>;
  vout: NodeOutput[];
}
interface NodeBlock {
  hash: string;
  height: number;
  previousblockhash?: string;
  tx: NodeTransaction[];
}

/** What a follower needs. */
export interface NodeFollowerOptions {
  network: 'bitcoin' | 'litecoin';
  chain: ChainName;
  rpc: RpcClient;
  uow: UnitOfWork;
  /** The network's native coin. */
  asset: Asset;
  clock: Clock;
  logger: Logger;
  /** The wallet's payout side: its payout address (where change returns) and signing. */
  /** The wallet's payout address, where payouts take their change back (its outputs are the wallet's own). */
  payoutAddress: string;
  /** Between polls of the tip and the mempool. */
  pollMs?: number;
}

// An output's key under the account: chain 0 receives payments, chain 1 index 0 is the payout address.
interface OwnKey {
  chain: 0 | 1;
  index: number;
}

// Confirmations after which a transaction is no longer followed (deeper than any reorganisation
// the chain watcher needs to see: every payment has its confirmations long before).
const FORGET_AFTER = 100;
// Blocks processed per poll, so a long catch-up lets the mempool and other work in between.
const BLOCKS_PER_POLL = 50;

// The output's address: `address` on Bitcoin Core 22+, `addresses[0]` on older nodes (Litecoin Core 0.21).
function addressOf(output: NodeOutput): string | undefined {
  return output.scriptPubKey.address ?? output.scriptPubKey.addresses?.[0];
}

// A JSON number with at most 8 decimals, as the node sends it, as an exact decimal string.
function coins(value: number): string {
  return value.toFixed(8);
}

/** Checks that the node is reachable, accepts the credentials and follows the configured chain. */
export async function checkNode(rpc: RpcClient, network: string, chain: ChainName): Promise<void> {
  const info = await rpc.call<{ chain: string; blocks: number }>('getblockchaininfo');
  if (info.chain !== chain) {
    throw new Error(`the node is on the "${info.chain}" chain, but ${network.toUpperCase()}_CHAIN is "${chain}"`);
  }
}

/** Creates the network's adapter over its node. */
export function createNodeFollower(options: NodeFollowerOptions): ChainFollower {
  const { network, rpc, uow, asset, clock, logger, payoutAddress } = options;
  const pollMs = options.pollMs ?? 1_000;
  let status: FollowerStatus = { state: 'starting', height: null, lastBlockAt: null };
  // Mempool transactions already looked at (and not ours, or reported).
  let mempoolSeen = new Set<string>();
  // Unconfirmed reported transactions missing from the mempool on the last poll.
  let missingOnce = new Set<string>();
  let unreachableSince = 0;
  // The payer's address of our transactions, looked up once each (a transaction is reported again as it confirms).
  const payers = new Lru<string, string>(1_000);
  const stalls = createStallWatch(network, clock, logger);
  // The block being read or walked back from, named when a poll fails.
  let step: FollowStep = { height: 0, hash: null };

  const loop = createFollowLoop(() => poll(), pollMs);
  const emit = loop.emit;

  // The installation's keys among these addresses: payment addresses and the payout address.
  async function ownKeys(addresses: string[]): Promise<Map<string, OwnKey>> {
    const own = new Map<string, OwnKey>();
    for (const [address, index] of await uow.stores.followers.ownAddresses(network, addresses)) own.set(address, { chain: 0, index });
    if (addresses.includes(payoutAddress)) own.set(payoutAddress, { chain: 1, index: 0 });
    return own;
  }

  // The payer: the address of the output the first input spends. Only transactions paying this
  // installation are looked up (one call each); a node without -txindex cannot find a parent that is
  // already mined, and the address stays empty.
  async function payerOf(txn: NodeTransaction): Promise<string> {
    const known = payers.get(txn.txid);
    if (known !== undefined) return known;
    const input = txn.vin?.[0];
    let payer = '';
    if (input?.txid !== undefined && input.vout !== undefined) {
      try {
        const parent = await rpc.call<NodeTransaction>('getrawtransaction', [input.txid, true]);
        const spent = parent.vout.find((o) => o.n === input.vout);
        payer = (spent && addressOf(spent)) ?? '';
      } catch (err) {
        if (err instanceof NodeUnreachable) throw err;
      }
    }
    payers.set(txn.txid, payer);
    return payer;
  }

  async function report(txn: NodeTransaction, block: { hash: string; height: number } | null, tipHeight: number, own: Map<string, OwnKey>): Promise<boolean> {
    // Outputs to the same payment address of one transaction count together.
    const paid = new Map<string, bigint>();
    const outputs = [];
    for (const output of txn.vout) {
      const address = addressOf(output);
      const key = address === undefined ? undefined : own.get(address);
      if (!address || !key) continue;
      const [whole = '0', fraction = ''] = coins(output.value).split('.');
      const sats = BigInt(whole + fraction.padEnd(8, '0'));
      outputs.push({ txnId: txn.txid, vout: output.n, address, script: output.scriptPubKey.hex, value: sats, keyChain: key.chain, keyIndex: key.index });
      if (key.chain === 0) paid.set(address, (paid.get(address) ?? 0n) + sats);
    }
    if (outputs.length === 0) return false;
    // Followed first: until its block is seen, the wallet does not spend what it received.
    await uow.stores.followers.follow(network, txn.txid, block, clock());
    for (const output of outputs) await uow.stores.wallet.addOutput(network, output);
    const confirmations = block ? tipHeight - block.height + 1 : 0;
    const addressFrom = paid.size > 0 ? await payerOf(txn) : '';
    for (const [address, sats] of paid) {
      await emit({
        kind: 'transaction',
        transaction: {
          network,
          txnId: txn.txid,
          assetShort: asset.short,
          addressFrom,
          addressTo: address,
          destTag: null,
          amount: fromSats(sats),
          confirmations,
        },
      });
    }
    return true;
  }

  async function processBlock(block: NodeBlock, tipHeight: number): Promise<void> {
    const addresses = block.tx.flatMap((txn) => txn.vout.map(addressOf).filter((a): a is string => a !== undefined));
    const own = await ownKeys(addresses);
    // Payouts this service broadcast are followed even when they pay no change back.
    const followed = await uow.stores.followers.followedAmong(network, block.tx.map((txn) => txn.txid));
    const at = { hash: block.hash, height: block.height };
    for (const txn of block.tx) {
      if (!(await report(txn, at, tipHeight, own)) && followed.has(txn.txid)) await uow.stores.followers.follow(network, txn.txid, at, clock());
    }
  }

  // First start: from the node's tip on (history before the first start holds no payment of ours).
  // Stored before the service hands out an address, so a crash right after cannot skip a block.
  async function startCursor(): Promise<ChainCursor> {
    const tipHeight = await rpc.call<number>('getblockcount');
    const cursor = { height: tipHeight, hash: await rpc.call<string>('getblockhash', [tipHeight]) };
    await uow.stores.followers.setCursor(network, cursor);
    return cursor;
  }

  async function parentOf(hash: string, height: number, tipHeight: number): Promise<string> {
    try {
      const header = await rpc.call<{ previousblockhash?: string }>('getblockheader', [hash]);
      if (header.previousblockhash) return header.previousblockhash;
    } catch (err) {
      if (err instanceof NodeUnreachable) throw err;
      // A node that never saw that block (resynced): take its own block at the height, if it has one.
    }
    return height <= tipHeight ? rpc.call<string>('getblockhash', [height]) : '';
  }

  async function followBlocks(): Promise<number> {
    const tipHeight = await rpc.call<number>('getblockcount');
    let cursor: ChainCursor | undefined = await uow.stores.followers.cursor(network);
    if (!cursor) {
      await startCursor();
      return tipHeight;
    }
    for (let processed = 0; processed < BLOCKS_PER_POLL; processed++) {
      step = { ...cursor };
      const onChain: string | undefined = cursor.height <= tipHeight ? await rpc.call<string>('getblockhash', [cursor.height]) : undefined;
      if (onChain !== cursor.hash) {
        // The stored block left the chain: step back, and what it confirmed is unconfirmed again.
        const back = await uow.stores.followers.unconfirmFrom(network, cursor.height);
        if (back.length > 0) await emit({ kind: 'confirmations', network, updates: back.map((txnId) => ({ txnId, confirmations: 0 })) });
        logger.warn({ network, height: cursor.height, unconfirmed: back.length }, 'chain reorganisation: walking back');
        // Back to the parent of the block processed there (the node keeps stale blocks' headers), so a
        // reorganisation deeper than one block is walked back block by block to where the chains meet.
        const height: number = cursor.height - 1;
        cursor = { height, hash: await parentOf(cursor.hash, height, tipHeight) };
        await uow.stores.followers.setCursor(network, cursor);
        continue;
      }
      if (cursor.height >= tipHeight) break;
      step = { height: cursor.height + 1, hash: null };
      const hash: string = await rpc.call<string>('getblockhash', [cursor.height + 1]);
      step = { height: cursor.height + 1, hash };
      const block: NodeBlock = await rpc.call<NodeBlock>('getblock', [hash, 2]);
      if (block.previousblockhash !== cursor.hash) continue; // a reorganisation under way: the check above walks back
      await processBlock(block, tipHeight);
      cursor = { height: block.height, hash: block.hash };
      await uow.stores.followers.setCursor(network, cursor);
      status = { ...status, lastBlockAt: new Date(clock()).toISOString() };
    }
    return tipHeight;
  }

  async function followConfirmations(tipHeight: number): Promise<void> {
    const followed = await uow.stores.followers.followed(network);
    const mined = followed.filter((t) => t.blockHeight !== null);
    if (mined.length > 0) {
      await emit({ kind: 'confirmations', network, updates: mined.map((t) => ({ txnId: t.txnId, confirmations: tipHeight - t.blockHeight! + 1 })) });
    }
    await uow.stores.followers.forget(network, mined.filter((t) => tipHeight - t.blockHeight! + 1 >= FORGET_AFTER).map((t) => t.txnId));
  }

  async function followMempool(tipHash: string): Promise<void> {
    const mempool = new Set(await rpc.call<string[]>('getrawmempool'));
    const fresh = [...mempool].filter((txid) => !mempoolSeen.has(txid));
    const transactions: NodeTransaction[] = [];
    for (const txid of fresh) {
      try {
        transactions.push(await rpc.call<NodeTransaction>('getrawtransaction', [txid, true]));
      } catch {
        // Mined or evicted since the mempool was listed: the next poll sees where it went.
      }
    }
    const own = await ownKeys(transactions.flatMap((t) => t.vout.map(addressOf).filter((a): a is string => a !== undefined)));
    for (const txn of transactions) await report(txn, null, 0, own);
    mempoolSeen = new Set(mempool);
    // A block found while the mempool was read would make its transactions look dropped: check again next time.
    if ((await rpc.call<string>('getbestblockhash')) !== tipHash) return;
    const unconfirmed = (await uow.stores.followers.followed(network)).filter((t) => t.blockHeight === null && !mempool.has(t.txnId)).map((t) => t.txnId);
    const gone = unconfirmed.filter((txnId) => missingOnce.has(txnId));
    missingOnce = new Set(unconfirmed.filter((txnId) => !missingOnce.has(txnId)));
    for (const txnId of gone) {
      await uow.stores.wallet.dropOutputs(network, txnId);
      await emit({ kind: 'dropped', network, txnId });
      await uow.stores.followers.forget(network, [txnId]);
    }
  }

  async function poll(): Promise<void> {
    try {
      const tipHeight = await followBlocks();
      step = { height: tipHeight, hash: null };
      const tipHash = await rpc.call<string>('getbestblockhash');
      await followConfirmations(tipHeight);
      await followMempool(tipHash);
      const cursor = await uow.stores.followers.cursor(network);
      status = { state: cursor && cursor.height < tipHeight ? 'behind' : 'ok', height: cursor?.height ?? null, lastBlockAt: status.lastBlockAt };
      unreachableSince = 0;
      stalls.succeeded();
    } catch (err) {
      if (err instanceof NodeUnreachable) {
        status = { state: 'unreachable', height: status.height, lastBlockAt: status.lastBlockAt };
        if (unreachableSince === 0) logger.warn({ network, err: err.message }, 'the node is unreachable; payments on this network wait for it');
        unreachableSince ||= clock();
        return;
      }
      const stall = stalls.failed(step, err);
      const height = (await uow.stores.followers.cursor(network).catch(() => undefined))?.height ?? status.height;
      status = statusAfterFailure(status, height, stall);
    }
  }

  return {
    network,
    watch: loop.watch,
    follow: loop.follow,
    close: loop.close,
    status: () => status,
    /** Stores the starting block on a first start (before any address of this network is handed out). */
    async start() {
      if (!(await uow.stores.followers.cursor(network))) await startCursor();
    },
    pollOnce: loop.pollOnce,
    pollFresh: loop.pollFresh,
  };
}
