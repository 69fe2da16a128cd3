/** How the bench loads each row, and the address pool sized for its creates; shared by run.ts and memory.ts. */
import type { LoadShape } from './load.ts';

/** A row's load: measured rounds, each after a warm-up of its own shape. */
export type Shape = LoadShape & { rounds: number; warmup: LoadShape };

/** Concurrent connections of every row but the burst. */
export const CONNECTIONS = 10;
const ROUNDS = 5;
/** Each read row: 5 rounds of 2 s after 1 s of warm-up, on each server in turn. */
export const READ_SHAPE: Shape = { connections: CONNECTIONS, seconds: 2, rounds: ROUNDS, warmup: { connections: CONNECTIONS, seconds: 1 } };

/** Requests of each measured create round. */
export const CREATES_PER_ROUND = 600;
/** Measured create rounds. */
export const CREATE_ROUNDS = ROUNDS;
// Creates run the longest code path: both servers get 1,500 before the first measured round, so
// the rounds compare code that V8 has finished optimising (after 300, the reference still took
// almost twice its settled CPU per request, which flattered the ratio).
/** Creates sent to each server before the first measured round. */
export const CREATE_WARMUP = 1_500;
/** Every create the service answers on its first start. */
export const CREATE_ROUNDS_TOTAL = CREATE_ROUNDS * CREATES_PER_ROUND + CREATE_WARMUP;
/** The create row: a fixed number of signed creates per round rather than a duration. */
export const CREATE_SHAPE: Shape = { connections: CONNECTIONS, seconds: 0, amount: CREATES_PER_ROUND, rounds: CREATE_ROUNDS, warmup: { connections: CONNECTIONS, seconds: 0, amount: CREATE_WARMUP } };
/**
 * ADDRESS_POOL_SIZE for a service that answers `creates` signed creates. Creates cycle through five
 * networks, four of which claim pooled addresses. A pool refills once a quarter of a network's
 * addresses are gone (when creates pause, or at once past three quarters), so it is sized never to
 * have a quarter used: no key derivation competes with the measurement.
 */
export function poolFor(creates: number): number {
  return 4 * Math.ceil((creates + 10) / 5) + 100;
}
/** ADDRESS_POOL_SIZE of the bench's first start (3,708 per network). */
export const BENCH_POOL_SIZE = poolFor(CREATE_ROUNDS_TOTAL);
/** Instances the three-instance PostgreSQL rows add to the first. */
export const ADDED_INSTANCES = 2;
/**
 * The PostgreSQL rows' pool (12,108 per network): the single instance's create row, the warm-up of
 * each added instance alone, then the three instances' row, whose rounds also load the first
 * instance alone.
 */
export const POSTGRES_POOL_SIZE = poolFor((2 + ADDED_INSTANCES) * CREATE_WARMUP + 3 * CREATE_ROUNDS * CREATES_PER_ROUND);
