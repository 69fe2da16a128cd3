/**
 * @module What one instance may still admit per bucket when several instances share a limit
 * (PostgreSQL). The shared row of a bucket's window counts hits *claimed* by any instance: an
 * instance adds a claim to it before it admits those hits, admits them from memory without asking
 * again, and gives back what it did not use. The row never exceeds the limit by a claim (a claim
 * past it is granted only up to the limit), so the instances together never admit more than the
 * limit; the cost is that hits claimed by an instance that then goes quiet are held until it gives
 * them back (the part above a small reserve, once the bucket is idle for a second).
 *
 * Pure bookkeeping, no I/O: `decide` answers a request from memory or says a claim is needed;
 * `plan` says what the next batched statement sends; `settle` and `fail` take its outcome.
 */
import type { RateLimitResult } from './rate-limit-result.ts';

const WINDOW_MS = 60_000;
// Windows kept in memory at most; the oldest go first (a flood of addresses cannot grow it).
const MEMORY_BUCKETS = 100_000;
// A window's first claim is this share of the limit; later ones double while the bucket keeps
// spending them, up to this share of what is left (or as many as wait): near the limit no instance
// holds much that another could have used.
const FIRST_CLAIM_SHARE = 64;
const LEFT_CLAIM_SHARE = 8;
// A bucket without a request for this long gives back what it holds above its first claim.
const IDLE_MS = 1_000;

/** One bucket's window as this instance knows it. */
interface Entry {
  bucket: string;
  windowStart: number;
  limit: number;
  /** The shared row after this instance's last statement (undefined: not read yet). */
  known: number | undefined;
  /** Hits claimed and granted to this instance, not yet admitted. */
  spare: number;
  /** Hits this instance added to the row beyond the limit (not granted): given back next. */
  phantom: number;
  /** Hits admitted while the database could not be reached: added to the row next. */
  unbacked: number;
  /** Requests waiting for a claim. */
  waiting: number;
  /** The hits of a claim in flight (0: none). */
  claiming: number;
  lastGrant: number;
  /** A request was refused since the row was last read: read it again (another may have given back). */
  refused: boolean;
  /** The row was past the limit and still moving when last read: others are giving back, read again at once. */
  settling: boolean;
  lastHitAt: number;
}

/** One bucket's part of a batched statement: `delta` added to its row (0 only reads it). */
export interface PlannedRow {
  bucket: string;
  windowStart: number;
  delta: number;
  /** Hits claimed in it (granted up to the limit). */
  claim: number;
  /** Hits admitted unbacked that it adds. */
  unbacked: number;
}

/** `decide`'s answer when memory cannot: wait for the next statement, then decide again. */
export const NEEDS_CLAIM = 'needs-claim';

/** The state of every bucket this instance counts in, and whether the database answers. */
export function createClaimLedger() {
  const entries = new Map<string, Entry>();
  // Buckets the next statement may have something to send for.
  const dirty = new Set<Entry>();
  let offline = false;
  // A request waits for a claim, or a bucket is about to run out: the next statement should go at once.
  let urgent = false;

  function entryFor(bucket: string, windowStart: number, limit: number): Entry {
    const found = entries.get(bucket);
    if (found && found.windowStart === windowStart) {
      found.limit = limit;
      return found;
    }
    if (found) {
      dirty.delete(found);
      entries.delete(bucket);
    }
    if (entries.size >= MEMORY_BUCKETS) {
      const oldest = entries.values().next().value!;
      dirty.delete(oldest);
      entries.delete(oldest.bucket);
    }
    const entry: Entry = { bucket, windowStart, limit, known: undefined, spare: 0, phantom: 0, unbacked: 0, waiting: 0, claiming: 0, lastGrant: 0, refused: false, settling: false, lastHitAt: 0 };
    entries.set(bucket, entry);
    return entry;
  }

  // Hits of the window claimed by every instance (unused claims of others count as spent), plus
  // this instance's unbacked ones.
  const claimed = (e: Entry) => (e.known ?? 0) - e.phantom + e.unbacked;
  const result = (e: Entry, allowed: boolean, now: number): RateLimitResult => ({
    allowed,
    remaining: allowed ? Math.max(0, e.limit - (claimed(e) - e.spare)) : 0,
    resetSeconds: Math.max(1, Math.ceil((e.windowStart + WINDOW_MS - now) / 1000)),
  });
  const firstClaim = (limit: number) => Math.ceil(limit / FIRST_CLAIM_SHARE);

  return {
    /** Whether the last statement failed: requests are then decided from memory alone. */
    get offline(): boolean {
      return offline;
    },

    /**
     * Counts a request in `bucket` against `limit` per minute, from memory, or says it needs a claim
     * first. `alone`: decide without a claim, as when the database cannot be reached.
     */
    decide(bucket: string, limit: number, now: number, alone = false): RateLimitResult | typeof NEEDS_CLAIM {
      const e = entryFor(bucket, now - (now % WINDOW_MS), limit);
      e.lastHitAt = now;
      if (e.spare > 0) {
        e.spare--;
        // Claim more before this runs out, so requests go on without waiting.
        if (e.spare <= e.lastGrant / 2 && e.claiming === 0 && claimed(e) < limit) {
          dirty.add(e);
          urgent = true;
        } else if (e.spare > firstClaim(limit)) dirty.add(e); // to give back once idle
        return result(e, true, now);
      }
      if (claimed(e) >= limit) {
        e.refused = true;
        dirty.add(e);
        if (e.settling && e.claiming === 0) urgent = true;
        return result(e, false, now);
      }
      if (offline || alone) {
        e.unbacked++;
        dirty.add(e);
        return result(e, true, now);
      }
      e.waiting++;
      dirty.add(e);
      urgent = true;
      return NEEDS_CLAIM;
    },

    /** Whether the next statement should go at once rather than at the next tick. */
    get urgent(): boolean {
      return urgent;
    },

    /** Whether anything is left for a later statement. */
    get pending(): boolean {
      return dirty.size > 0;
    },

    /**
     * The rows of the next statement, and the bookkeeping as if it succeeds. `final` (shutting
     * down) gives back everything held and claims nothing.
     */
    plan(now: number, final = false): PlannedRow[] {
      const rows: PlannedRow[] = [];
      urgent = false;
      for (const e of final ? entries.values() : dirty) {
        if (e.windowStart + WINDOW_MS <= now) {
          dirty.delete(e);
          continue;
        }
        const idle = final || now - e.lastHitAt >= IDLE_MS;
        const wants = e.waiting > 0 || (!idle && e.lastGrant > 0 && e.spare <= e.lastGrant / 2);
        let giveBack = e.phantom;
        e.phantom = 0;
        const keep = final ? 0 : firstClaim(e.limit);
        if (idle && e.spare > keep) {
          giveBack += e.spare - keep;
          e.spare = keep;
          // Claims grow again from the first size: a client that bursts, then polls, is not re-claimed and given back each time.
          e.lastGrant = Math.min(e.lastGrant, keep);
        }
        const unbacked = e.unbacked;
        e.unbacked = 0;
        let claim = 0;
        const left = e.limit - (claimed(e) - giveBack + unbacked);
        if (!final && !offline && e.claiming === 0 && wants && left > 0) {
          const grown = e.lastGrant > 0 ? 2 * e.lastGrant : firstClaim(e.limit);
          claim = Math.min(left, Math.max(e.waiting, Math.min(grown, Math.ceil(left / LEFT_CLAIM_SHARE))));
        }
        e.waiting = 0;
        const read = !final && !offline && e.refused && e.claiming === 0;
        if (claim > 0 || giveBack > 0 || unbacked > 0 || read) {
          rows.push({ bucket: e.bucket, windowStart: e.windowStart, delta: claim + unbacked - giveBack, claim, unbacked });
          // Given back and added as if the statement succeeded; a failure keeps it so (see `fail`).
          if (e.known !== undefined) e.known += unbacked - giveBack;
          e.claiming = claim;
          e.refused = false;
        }
        // Still holding more than its reserve while requests go on: look again at a later tick.
        if (!(e.spare > firstClaim(e.limit))) dirty.delete(e);
      }
      return rows.sort((a, b) => (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : a.windowStart - b.windowStart));
    },

    /** Takes the counts the statement returned (`count(row)`: the row after it, 0 if absent). */
    settle(rows: readonly PlannedRow[], count: (row: PlannedRow) => number): void {
      offline = false;
      for (const row of rows) {
        const e = entries.get(row.bucket);
        if (!e || e.windowStart !== row.windowStart) continue;
        const total = count(row);
        // The claim came last in the row's change: what stood before it, plus the claim, reached `total`.
        const granted = Math.max(0, Math.min(row.claim, e.limit - (total - row.claim)));
        // Past the limit: some instance's claim was not granted in full, and it gives the rest back at once.
        e.settling = total - e.phantom - (row.claim - granted) > e.limit && total !== e.known;
        e.known = total;
        e.spare += granted;
        e.phantom += row.claim - granted;
        if (e.phantom > 0) urgent = true;
        if (granted > 0) e.lastGrant = granted;
        e.claiming = 0;
        if (e.phantom > 0 || e.spare > firstClaim(e.limit)) dirty.add(e);
      }
    },

    /**
     * The statement failed, perhaps after it committed. What errs towards admitting less is
     * assumed: hits given back stay given back, a claim is not granted, unbacked hits are sent again.
     */
    fail(rows: readonly PlannedRow[]): void {
      offline = true;
      for (const row of rows) {
        const e = entries.get(row.bucket);
        if (!e || e.windowStart !== row.windowStart) continue;
        e.claiming = 0;
        e.unbacked += row.unbacked;
        if (e.known !== undefined) e.known -= row.unbacked;
        if (row.unbacked > 0) dirty.add(e);
      }
    },
  };
}

/** One instance's claims on shared rate-limit counts. */
export type ClaimLedger = ReturnType<typeof createClaimLedger>;
