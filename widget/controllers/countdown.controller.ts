/**
 * @module The time left to pay, from the server's `expiresAt` read against the server's clock:
 * the offset between `serverTime` and the local clock is measured on each view, so a wrong
 * device clock does not shorten or stretch the countdown, and nothing counts from page load.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** Moments before expiry worth one announcement each (seconds left). */
export const COUNTDOWN_MILESTONES = [300, 60] as const;

/** What the countdown tells its host besides re-rendering every second. */
export interface CountdownCallbacks {
  /** Time is up by the server's clock; the host asks the server what happened. */
  elapsed(): void;
  /** The countdown crossed one of COUNTDOWN_MILESTONES (given in seconds). */
  milestone(mark: number): void;
}

/** Re-renders its host once per second of remaining time while a deadline is set. */
export class CountdownController implements ReactiveController {
  private deadline: number | undefined;
  private offset = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private connected = false;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly callbacks: CountdownCallbacks,
  ) {
    host.addController(this);
  }

  hostConnected(): void {
    this.connected = true;
    this.schedule();
  }

  hostDisconnected(): void {
    this.connected = false;
    clearTimeout(this.timer);
  }

  /** Counts down to `expiresAt`, both times as the server sent them. */
  start(expiresAt: string, serverTime: string): void {
    this.offset = Date.parse(serverTime) - Date.now();
    this.deadline = Date.parse(expiresAt);
    this.schedule();
  }

  /** Stops counting; `secondsLeft` becomes undefined. */
  stop(): void {
    this.deadline = undefined;
    clearTimeout(this.timer);
  }

  /** Whole seconds left by the server's clock (rounded up, never below zero), or undefined when stopped. */
  get secondsLeft(): number | undefined {
    const ms = this.msLeft();
    return ms === undefined ? undefined : Math.ceil(ms / 1000);
  }

  private msLeft(): number | undefined {
    if (this.deadline === undefined) return undefined;
    return Math.max(0, this.deadline - (Date.now() + this.offset));
  }

  private schedule(): void {
    clearTimeout(this.timer);
    const ms = this.msLeft();
    if (ms === undefined || !this.connected || ms === 0) return;
    // Wake exactly when the displayed second changes, so the display never lags or skips.
    const before = Math.ceil(ms / 1000);
    this.timer = setTimeout(() => this.tick(before), ms % 1000 || 1000);
  }

  private tick(before: number): void {
    const now = this.secondsLeft;
    if (now === undefined) return;
    this.host.requestUpdate();
    for (const mark of COUNTDOWN_MILESTONES) if (before > mark && now <= mark && now > 0) this.callbacks.milestone(mark);
    if (now === 0) this.callbacks.elapsed();
    else this.schedule();
  }
}
