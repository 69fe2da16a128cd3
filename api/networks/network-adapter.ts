/**
 * @module The boundary between the service and a blockchain. The simulator implements it today; a
 * real adapter (a node or indexer client per network) implements the same interface and feeds the
 * same chain watcher, so nothing above this line changes when a real chain is plugged in.
 */
import type { Asset } from './asset-registry.ts';

/** A transaction seen paying an address, as a network reports it. */
export interface IncomingTransaction {
  network: string;
  txnId: string;
  /** Ticker of the asset moved (the native coin, or a token the adapter recognised by contract). */
  assetShort: string;
  addressFrom: string;
  addressTo: string;
  destTag: string | null;
  amount: string;
  confirmations: number;
}

/** A transaction's confirmations as the chain stands now. */
export interface ConfirmationUpdate {
  txnId: string;
  confirmations: number;
  /** Mined but failed (an Ethereum transaction whose receipt says it reverted): it moved nothing. */
  reverted?: boolean;
  /** Its block is final (the node's finalized block, or deep enough where the node names none). */
  final?: boolean;
}

/** What a network adapter reports. */
export type ChainEvent =
  | { kind: 'transaction'; transaction: IncomingTransaction }
  | { kind: 'confirmations'; network: string; updates: ConfirmationUpdate[] }
  | { kind: 'dropped'; network: string; txnId: string };

/** A payout to broadcast. */
export interface Payout {
  /** Idempotency reference (the withdrawal id): the same reference is never broadcast twice. */
  reference: string;
  asset: Asset;
  addressTo: string;
  destTag: string | null;
  /** What the recipient receives; the network fee is on top. */
  amount: string;
}

/** A broadcast payout. */
export interface SentPayout {
  txnId: string;
  addressFrom: string;
}

/**
 * How a network followed through a node stands, for GET /health. `stalled`: every poll fails on one
 * block (`stalledBlock`), since `stalledSince`.
 */
export interface FollowerStatus {
  state: 'starting' | 'ok' | 'behind' | 'unreachable' | 'stalled';
  height: number | null;
  lastBlockAt: string | null;
  stalledBlock?: number;
  stalledSince?: string;
}

/**
 * Follows a real node's chain for one network and nothing else: it finds what reaches the
 * installation's addresses and what its payouts became, and hands each change to the chain watcher.
 * Payouts are a network's other half (`NetworkPayouts`); `bootstrapChains` joins the two into the
 * network's adapter.
 */
export interface ChainFollower extends Pick<NetworkAdapter, 'network' | 'watch' | 'close'> {
  status(): FollowerStatus;
  /** Stores the starting block on a first start (before any address of the network is handed out). */
  start(): Promise<void>;
  /** Starts following the node: a poll now and one after each (the background loop; startJobs starts it). */
  follow(): void;
  pollOnce(): Promise<void>;
  /** A poll that starts after this call (waits out one under way): what tests use after acting on the node. */
  pollFresh(): Promise<void>;
}

/**
 * A payout that cannot go out yet (the wallet cannot cover it, or holds no signing key): the
 * withdrawal stays APPROVED with this message as its `failureReason`, and is tried again.
 */
export class PayoutWaiting extends Error {
  override name = 'PayoutWaiting';
}

/** Why a payout was not signed: its withdrawal was cancelled (by the operator) meanwhile. */
export const NO_LONGER_PAYABLE = 'The withdrawal no longer waits for a payout (cancelled by the operator); nothing was signed.';

/** How a network on a node pays out: signed and stored before broadcast, never twice. */
export type NetworkPayouts = Pick<NetworkAdapter, 'send' | 'resend' | 'payoutsDisabled'>;

/** One network's connection to its chain. */
export interface NetworkAdapter {
  readonly network: string;
  /** Starts delivering events; each is handed over once the previous one's handling settled. */
  watch(onEvent: (event: ChainEvent) => Promise<void>): void;
  /** Why payouts cannot be made on this network, if they cannot (approve answers 409 payouts-disabled with it). */
  readonly payoutsDisabled?: string;
  /** Broadcasts a payout, or returns the earlier broadcast with the same reference. */
  send(payout: Payout): Promise<SentPayout>;
  /**
   * Follows up a broadcast payout that has no confirmation yet: broadcasts it again if the node lost
   * it, replaces it at a higher fee if it is stuck; returns the transaction id that now stands for it.
   */
  resend?(reference: string): Promise<string | undefined>;
  /** Stops delivering events. */
  close(): void;
}
