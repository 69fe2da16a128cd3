/** The current time in epoch milliseconds; injected wherever time decides something. */
export type Clock = () => number;

/** The wall clock. */
export const systemClock: Clock = () => Date.now();

/** A clock that only moves when told to, for tests and simulations. */
export interface ManualClock {
  (): number;
  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void;
  /** Sets the clock to an absolute epoch-millisecond value. */
  set(ms: number): void;
}

/** Creates a clock that starts at `start` and moves only when told to. */
export function createManualClock(start = Date.UTC(2026, 10, 21, 10, 0, 0)): ManualClock {
  let now = start;
  const clock = (() => now) as ManualClock;
  clock.advance = (ms) => {
    now += ms;
  };
  clock.set = (ms) => {
    now = ms;
  };
  return clock;
}

/** Renders epoch milliseconds as an ISO 8601 UTC timestamp with milliseconds. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
