/**
 * @module Receiving XMR through monero-wallet-rpc: each poll tells the wallet of the subaddresses
 * handed out, has it refresh, and reads its transfers (`get_transfers`: `in` and `pool`, and `out`
 * and `pending` for this service's payouts) since the stored cursor, reporting to the chain
 * watcher as the other followers do.
 *
 * - A transfer is matched by its subaddress (account 0): reported when first seen, and again when
 *   it moves (pool → block, or back to the pool when its block left the chain); confirmations for
 *   every followed mined transaction come in one event per poll.
 * - A followed transaction that the wallet lists nowhere on two polls in a row (flushed from the
 *   pool, or its block left the chain and it did not come back) is reported dropped.
 * - The cursor (the wallet height of the last poll) is stored: a restart reads every transfer since
 *   it, so what arrived meanwhile is found; the wallet itself keeps every transfer it ever saw.
 */
import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../../shared/logger.ts';
import type { UnitOfWork } from '../../unit-of-work.ts';
import type { Asset } from '../asset-registry.ts';
import { createFollowLoop } from '../follow-loop.ts';
import { NodeUnreachable } from '../json-rpc-client.ts';
import type { ChainFollower, FollowerStatus } from '../network-adapter.ts';
import type { MoneroRpc } from './monero-rpc.ts';
import { fromPiconero } from './monero-units.ts';
import { MONERO, type MoneroWallet } from './monero-wallet.ts';

/** A transfer as `get_transfers` lists it (amounts are digit strings when long, see monero-rpc). */
export interface MoneroTransfer {
  txid: string;
  amount: number | string;
  /** 0 while in the pool. */
  height: number;
  address: string;
  subaddr_index: { major: number; minor: number };
  type: 'in' | 'pool' | 'out' | 'pending' | 'failed' | 'block';
  /** 0, or the height (below 500,000,000) or Unix time before which the sender made it unspendable. */
  unlock_time?: number;
}

// Monero reads an unlock_time below this as a block height, else as a Unix time.
const MAX_BLOCK_NUMBER = 500_000_000;

/**
 * Whether a sender locked a transfer beyond now: its outputs cannot be spent until then (a payer can
 * lock a payment for years), so it counts no confirmations, and credits nothing, until it unlocks.
 */
export function lockedBeyond(transfer: Pick<MoneroTransfer, 'unlock_time'>, height: number, nowMs: number): boolean {
  const until = Number(transfer.unlock_time ?? 0);
  if (!until) return false;
  return until < MAX_BLOCK_NUMBER ? until > height : until * 1000 > nowMs;
}

type Transfers = Partial<Record<'in' | 'pool' | 'out' | 'pending', MoneroTransfer[]>>;

/** What the follower needs. */
export interface MoneroFollowerOptions {
  wallet: MoneroRpc;
  daemon: MoneroRpc;
  moneroWallet: MoneroWallet;
  uow: UnitOfWork;
  asset: Asset;
  clock: Clock;
  logger: Logger;
  pollMs?: number;
}

// Confirmations after which a transaction is no longer followed (far deeper than the 10 needed).
const FORGET_AFTER = 100;

/** Creates the monero network's adapter over its wallet. */
export function createMoneroFollower(options: MoneroFollowerOptions): ChainFollower {
  const { wallet, daemon, moneroWallet, uow, asset, clock, logger } = options;
  const followers = uow.stores.followers;
  let status: FollowerStatus = { state: 'starting', height: null, lastBlockAt: null };
  let missingOnce = new Set<string>();
  let unreachableSince = 0;
  const loop = createFollowLoop(() => poll(), options.pollMs ?? 2_000);
  const emit = loop.emit;

  async function walletHeight(): Promise<number> {
    return (await wallet.call<{ height: number }>('get_height')).height;
  }

  async function follow(): Promise<number> {
    await moneroWallet.knowHandedOut();
    await wallet.call('refresh');
    const height = await walletHeight();
    const cursor = (await followers.cursor(MONERO)) ?? { height, hash: '' };
    const followed = new Map((await followers.followed(MONERO)).map((t) => [t.txnId, t]));
    // Transfers in blocks above `since` (min_height is exclusive): every one since the last poll,
    // and every followed one (forgotten once FORGET_AFTER deep, unless still locked).
    const oldestFollowed = Math.min(...[...followed.values()].map((t) => t.blockHeight ?? Number.POSITIVE_INFINITY));
    const since = Math.max(0, Math.min(Math.min(cursor.height, height) - FORGET_AFTER, oldestFollowed) - 1);
    const listed = await wallet.call<Transfers>('get_transfers', { in: true, pool: true, out: true, pending: true, account_index: 0, filter_by_height: true, min_height: since });
    const incoming = [...(listed.in ?? []), ...(listed.pool ?? [])].filter((t) => t.subaddr_index.major === 0 && t.subaddr_index.minor > 0);
    const now = clock();
    const locked = new Set(incoming.filter((t) => lockedBeyond(t, height, now)).map((t) => t.txid));
    const confirmationsAt = (txid: string, blockHeight: number | null) => (blockHeight === null || locked.has(txid) ? 0 : height - blockHeight);
    const seen = new Set<string>();
    for (const transfer of incoming) {
      seen.add(transfer.txid);
      const blockHeight = transfer.height > 0 ? transfer.height : null;
      const known = followed.get(transfer.txid);
      if (known && known.blockHeight === blockHeight) continue;
      if (locked.has(transfer.txid)) {
        logger.warn({ network: MONERO, txnId: transfer.txid, unlockTime: transfer.unlock_time }, 'a payment arrived locked by its sender: it counts no confirmations until it unlocks');
      }
      // Mined below the cursor and never followed: older than every address handed out since the
      // first start (another installation's, or a restored database's, use of the same subaddress).
      if (!known && blockHeight !== null && blockHeight < cursor.height) continue;
      const block = blockHeight === null ? null : { hash: '', height: blockHeight };
      await followers.follow(MONERO, transfer.txid, block, clock());
      await emit({
        kind: 'transaction',
        transaction: {
          network: MONERO,
          txnId: transfer.txid,
          assetShort: asset.short,
          addressFrom: '',
          addressTo: transfer.address,
          destTag: null,
          amount: fromPiconero(BigInt(transfer.amount)),
          confirmations: confirmationsAt(transfer.txid, blockHeight),
        },
      });
    }
    // This service's payouts: followed from their relay on, mined when the wallet says so.
    for (const transfer of [...(listed.out ?? []), ...(listed.pending ?? [])]) {
      const known = followed.get(transfer.txid);
      if (!known) continue;
      seen.add(transfer.txid);
      const blockHeight = transfer.height > 0 ? transfer.height : null;
      if (known.blockHeight !== blockHeight) await followers.follow(MONERO, transfer.txid, blockHeight === null ? null : { hash: '', height: blockHeight }, clock());
    }
    const following = await followers.followed(MONERO);
    const mined = following.filter((t) => t.blockHeight !== null && seen.has(t.txnId));
    if (mined.length > 0) await emit({ kind: 'confirmations', network: MONERO, updates: mined.map((t) => ({ txnId: t.txnId, confirmations: confirmationsAt(t.txnId, t.blockHeight) })) });
    await followers.forget(MONERO, mined.filter((t) => confirmationsAt(t.txnId, t.blockHeight) >= FORGET_AFTER).map((t) => t.txnId));
    // Gone from the pool and from the chain: dropped once missing on two polls in a row.
    const missing = following.filter((t) => !seen.has(t.txnId)).map((t) => t.txnId);
    const gone = missing.filter((txnId) => missingOnce.has(txnId));
    missingOnce = new Set(missing.filter((txnId) => !missingOnce.has(txnId)));
    for (const txnId of gone) {
      logger.warn({ network: MONERO, txnId }, 'a followed transaction left the pool and the chain');
      await emit({ kind: 'dropped', network: MONERO, txnId });
      await followers.forget(MONERO, [txnId]);
    }
    if (height !== cursor.height) status = { ...status, lastBlockAt: new Date(clock()).toISOString() };
    await followers.setCursor(MONERO, { height, hash: '' });
    return height;
  }

  async function poll(): Promise<void> {
    try {
      await follow();
      const info = await daemon.call<{ height: number }>('get_info');
      status = { state: 'ok', height: info.height, lastBlockAt: status.lastBlockAt };
      unreachableSince = 0;
    } catch (err) {
      if (err instanceof NodeUnreachable) {
        status = { ...status, state: 'unreachable' };
        if (unreachableSince === 0) logger.warn({ network: MONERO, err: err.message }, 'monero-wallet-rpc or monerod is unreachable; XMR payments wait for it');
        unreachableSince ||= clock();
        return;
      }
      logger.error({ err, network: MONERO }, 'following the Monero wallet failed; it will be retried');
    }
  }

  return {
    network: MONERO,
    watch: loop.watch,
    follow: loop.follow,
    close: loop.close,
    status: () => status,
    /** Stores the starting cursor on a first start: transfers before it are not this installation's payments. */
    async start() {
      if (!(await followers.cursor(MONERO))) await followers.setCursor(MONERO, { height: await walletHeight(), hash: '' });
    },
    pollOnce: loop.pollOnce,
    pollFresh: loop.pollFresh,
  };
}
