/** A request counted against a limit. */
export interface RateLimitResult {
  allowed: boolean;
  /** Requests left in this window after this one. */
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}
