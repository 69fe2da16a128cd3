/**
 * @module Telling a stall from a hiccup: a follower whose polls fail again and again on the same
 * block (a node that never serves that block's receipt, a block the follower cannot read) makes no
 * progress however long it retries. After a few failures in a row on one block the follower is
 * stalled: `/health` says since when and at which block, and the log names the block once, with
 * the error; progress (or a failure on another block) ends it.
 */
import type { Clock } from '../shared/clock.ts';
import type { Logger } from '../shared/logger.ts';
import type { FollowerStatus } from './network-adapter.ts';

// Failing polls in a row on one block that make a stall (about three seconds at the default pace).
const STALL_AFTER = 3;

/** The block a follower was reading, or walking back from, when a poll failed. */
export interface FollowStep {
  height: number;
  /** Null while the block at that height was not read yet. */
  hash: string | null;
}

/** A stall: the block every poll fails on, and since when (ISO 8601). */
export interface Stall {
  stalledBlock: number;
  stalledSince: string;
}

/** Creates the stall watch of one network's follower. */
export function createStallWatch(network: string, clock: Clock, logger: Logger) {
  let failing: { step: FollowStep; since: number; count: number } | undefined;

  return {
    /** Records a failed poll (logged, naming the block); returns the stall, once the same block has failed often enough. */
    failed(step: FollowStep, err: unknown): Stall | undefined {
      if (failing && failing.step.height === step.height && failing.step.hash === step.hash) failing.count += 1;
      else failing = { step, since: clock(), count: 1 };
      const named = { network, block: step.height, blockHash: step.hash };
      if (failing.count < STALL_AFTER) {
        logger.error({ err, ...named }, 'following the chain failed; it will be retried');
        return undefined;
      }
      const stall = { stalledBlock: step.height, stalledSince: new Date(failing.since).toISOString() };
      if (failing.count === STALL_AFTER) logger.error({ err, ...named, failures: failing.count, since: stall.stalledSince }, `the follower is stalled at block ${step.height}: every poll fails there`);
      return stall;
    },
    /** Records a poll that went through: a stall, if there was one, is over. */
    succeeded(): void {
      if (failing && failing.count >= STALL_AFTER) logger.warn({ network, block: failing.step.height }, 'the follower moves again');
      failing = undefined;
    },
  };
}

/** A follower's status after a failed poll at cursor `height`: stalled, or as it was (a stall that moved on is behind). */
export function statusAfterFailure(previous: FollowerStatus, height: number | null, stall: Stall | undefined): FollowerStatus {
  if (stall) return { state: 'stalled', height, lastBlockAt: previous.lastBlockAt, ...stall };
  return { state: previous.state === 'stalled' ? 'behind' : previous.state, height, lastBlockAt: previous.lastBlockAt };
}
