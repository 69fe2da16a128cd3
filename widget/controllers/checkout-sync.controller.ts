/**
 * @module Keeps the view of one payment current: a first GET, then the server-sent event stream,
 * falling back to polling with If-None-Match when the stream cannot be kept; a fresh look when the
 * tab becomes visible again or the network comes back; nothing more once the status is final
 * (an EXPIRED payment a while after its expiry: funds sent just before it may be seen late).
 * A page left for another (kept in the back/forward cache) holds no stream: HTTP/1.1 gives a host six
 * connections, and six cached pages each holding one would stop the next page from loading.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { type CheckoutView, followFor, InvalidCheckoutError, parseCheckoutView } from '../checkout-view.ts';
import type { CheckoutErrorCode } from '../events.ts';

/** How the view is being kept current. */
export type SyncConnection = 'idle' | 'loading' | 'live' | 'polling' | 'reconnecting' | 'stopped';

/** Why the last attempt failed. */
export interface SyncProblem {
  code: CheckoutErrorCode;
  message: string;
}

/** What the controller reports to its host. */
export interface SyncCallbacks {
  /** A view arrived (it replaces the previous one wholesale). */
  view(view: CheckoutView): void;
  /** An attempt failed; for `network` it keeps retrying, for the others it has stopped. */
  problem(problem: SyncProblem): void;
  /** How updates arrive changed (called once per change, not on every retry). */
  connection?(connection: SyncConnection): void;
}

/** Intervals; tests and slow links may change them. */
export interface SyncTiming {
  /** Between polls while the stream is unavailable. */
  pollMs: number;
  /** Longest wait between retries after network failures (they back off from pollMs / 2). */
  maxBackoffMs: number;
  /** A stream that sends no payment event this long after opening is given up for polling. */
  streamWatchdogMs: number;
  /** Consecutive stream errors before falling back to polling. */
  streamErrorLimit: number;
}

/** Default timing: poll every 5 s, back off to 30 s, give a silent stream 10 s. */
export const DEFAULT_SYNC_TIMING: SyncTiming = { pollMs: 5_000, maxBackoffMs: 30_000, streamWatchdogMs: 10_000, streamErrorLimit: 3 };

/** Follows one payment at a time for a Lit host; all requests stop when the host disconnects. */
export class CheckoutSyncController implements ReactiveController {
  /**
   * How updates currently arrive; the host shows "reconnecting" honestly: once entered, it is left
   * only when a read or the stream succeeds again, never because a retry merely changed method.
   */
  connection: SyncConnection = 'idle';

  private url: string | undefined;
  private etag: string | null = null;
  private final = false;
  private connected = false;
  private abort: AbortController | undefined;
  private source: EventSource | undefined;
  private streamErrors = 0;
  private failures = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private watchdog: ReturnType<typeof setTimeout> | undefined;
  private lateEnd: ReturnType<typeof setTimeout> | undefined;
  /** When following an EXPIRED payment ends (Date.now() time); kept across pages left and resumed. */
  private lateDeadline: number | undefined;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly callbacks: SyncCallbacks,
    private readonly timing: SyncTiming = DEFAULT_SYNC_TIMING,
  ) {
    host.addController(this);
  }

  hostConnected(): void {
    this.connected = true;
    window.addEventListener('online', this.resync);
    window.addEventListener('pagehide', this.handlePageHide);
    window.addEventListener('pageshow', this.handlePageShow);
    document.addEventListener('visibilitychange', this.handleVisibility);
    if (this.url) this.start();
  }

  hostDisconnected(): void {
    this.connected = false;
    window.removeEventListener('online', this.resync);
    window.removeEventListener('pagehide', this.handlePageHide);
    window.removeEventListener('pageshow', this.handlePageShow);
    document.removeEventListener('visibilitychange', this.handleVisibility);
    this.halt();
  }

  /** Follows the checkout at `url` (GET /v2/checkout/:id), or nothing when undefined. */
  follow(url: string | undefined): void {
    this.halt();
    this.url = url;
    this.etag = null;
    this.final = false;
    this.lateDeadline = undefined;
    this.failures = 0;
    this.streamErrors = 0;
    this.setConnection('idle');
    if (url && this.connected) this.start();
  }

  /** Looks again now (a retry button, a countdown that reached zero). */
  refresh(): void {
    this.resync();
  }

  private readonly handleVisibility = (): void => {
    if (document.visibilityState === 'visible') this.resync();
  };

  // Leaving the page: the stream, any request and any timer stop, whether or not the page is cached.
  private readonly handlePageHide = (): void => {
    this.halt();
  };

  // Back from the back/forward cache: look once (the payment may have moved on) and reopen the stream.
  private readonly handlePageShow = (event: PageTransitionEvent): void => {
    if (event.persisted) this.resync();
  };

  // Mobile browsers drop streams and freeze timers in the background; catch up and reopen.
  private readonly resync = (): void => {
    if (!this.url || !this.connected || this.final) return;
    if (this.connection === 'stopped') {
      this.start();
      return;
    }
    clearTimeout(this.timer);
    this.armLateEnd();
    this.failures = 0;
    this.streamErrors = 0;
    const signal = this.signal();
    void this.load(signal).then((ok) => {
      if (signal.aborted || this.final) return;
      if (ok && !this.source) this.openStream();
      else if (!ok) this.retryLater();
    });
  };

  private start(): void {
    this.halt();
    this.armLateEnd();
    this.setConnection('loading');
    const signal = this.signal();
    void this.load(signal).then((ok) => {
      if (signal.aborted || this.final) return;
      if (ok) this.openStream();
      else this.retryLater();
    });
  }

  private signal(): AbortSignal {
    this.abort ??= new AbortController();
    return this.abort.signal;
  }

  /** One GET; true when a view (or a 304) came back. */
  private async load(signal: AbortSignal): Promise<boolean> {
    const url = this.url!;
    let response: Response;
    try {
      response = await fetch(url, {
        headers: this.etag ? { 'If-None-Match': this.etag, Accept: 'application/json' } : { Accept: 'application/json' },
        cache: 'no-store',
        signal,
      });
    } catch (err) {
      if (!signal.aborted) this.report({ code: 'network', message: `The payment server could not be reached (${(err as Error).message}).` });
      return false;
    }
    if (signal.aborted) return false;
    if (response.status === 304) {
      this.failures = 0;
      this.recovered();
      return true;
    }
    if (response.status === 404) {
      this.stop({ code: 'not-found', message: 'No payment exists with this id.' });
      return false;
    }
    if (!response.ok) {
      this.report({ code: 'network', message: `The payment server answered ${response.status}.` });
      return false;
    }
    let view: CheckoutView;
    try {
      view = parseCheckoutView(await response.json());
    } catch (err) {
      if (signal.aborted) return false;
      const detail = err instanceof InvalidCheckoutError ? err.message : 'The answer was not JSON.';
      this.stop({ code: 'invalid-response', message: `The payment server sent something that is not a checkout. ${detail}` });
      return false;
    }
    if (signal.aborted) return false;
    this.failures = 0;
    this.etag = response.headers.get('ETag');
    this.recovered();
    this.deliver(view);
    return true;
  }

  private openStream(): void {
    if (typeof EventSource !== 'function') {
      this.poll();
      return;
    }
    const source = new EventSource(`${this.url}/events`);
    this.source = source;
    this.watchdog = setTimeout(() => this.abandonStream(), this.timing.streamWatchdogMs);
    source.addEventListener('payment', (event) => {
      clearTimeout(this.watchdog);
      this.streamErrors = 0;
      let view: CheckoutView;
      try {
        view = parseCheckoutView(JSON.parse((event as MessageEvent<string>).data));
      } catch {
        this.abandonStream();
        return;
      }
      this.etag = (event as MessageEvent<string>).lastEventId || this.etag;
      this.setConnection('live');
      this.deliver(view);
    });
    source.addEventListener('error', () => {
      if (this.source !== source) return;
      this.streamErrors++;
      if (source.readyState === EventSource.CLOSED || this.streamErrors >= this.timing.streamErrorLimit) {
        this.abandonStream();
        return;
      }
      // The browser reconnects by itself after the server's retry delay; look once meanwhile so
      // a change made while the stream was down is not missed. Only if that look fails too is the
      // payer told live updates are interrupted: a stream dropped by a proxy or a redeploy, with
      // the server answering, is no outage.
      const signal = this.signal();
      void this.load(signal).then((ok) => {
        if (!ok && !signal.aborted && this.source === source && !this.final) this.setConnection('reconnecting');
      });
    });
  }

  private abandonStream(): void {
    this.closeStream();
    if (!this.final) this.poll();
  }

  private poll(): void {
    if (this.final) return;
    // Falling back from a failing stream to polling is no sign the server is back.
    if (this.connection !== 'reconnecting') this.setConnection('polling');
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const signal = this.signal();
      void this.load(signal).then((ok) => {
        if (signal.aborted || this.final) return;
        if (ok) this.poll();
        else this.retryLater();
      });
    }, this.timing.pollMs);
  }

  private retryLater(): void {
    if (this.final || this.connection === 'stopped') return;
    this.setConnection('reconnecting');
    clearTimeout(this.timer);
    const wait = Math.min(this.timing.maxBackoffMs, (this.timing.pollMs / 2) * 2 ** Math.min(this.failures - 1, 8));
    this.timer = setTimeout(() => {
      const signal = this.signal();
      void this.load(signal).then((ok) => {
        if (signal.aborted || this.final) return;
        if (ok && !this.source) this.openStream();
        else if (!ok) this.retryLater();
      });
    }, wait);
  }

  private deliver(view: CheckoutView): void {
    const left = followFor(view);
    if (left === 0) {
      this.finish();
    } else if (left !== Infinity) {
      this.lateDeadline = Date.now() + left;
      this.armLateEnd();
    }
    this.callbacks.view(view);
  }

  // A resumed page may get only 304s, which deliver nothing: the end is set again from the deadline.
  private armLateEnd(): void {
    clearTimeout(this.lateEnd);
    if (this.lateDeadline !== undefined) this.lateEnd = setTimeout(() => this.finish(), Math.max(0, this.lateDeadline - Date.now()));
  }

  private finish(): void {
    this.final = true;
    this.halt();
    this.setConnection('stopped');
  }

  private report(problem: SyncProblem): void {
    this.failures++;
    this.callbacks.problem(problem);
  }

  private stop(problem: SyncProblem): void {
    this.halt();
    this.setConnection('stopped');
    this.callbacks.problem(problem);
  }

  private closeStream(): void {
    clearTimeout(this.watchdog);
    this.source?.close();
    this.source = undefined;
  }

  private halt(): void {
    this.abort?.abort();
    this.abort = undefined;
    clearTimeout(this.timer);
    clearTimeout(this.lateEnd);
    this.closeStream();
  }

  // A read succeeded: if updates were interrupted, they flow again (by the stream if it is open).
  private recovered(): void {
    if (this.connection !== 'reconnecting') return;
    this.setConnection(this.source?.readyState === EventSource.OPEN ? 'live' : 'polling');
  }

  private setConnection(connection: SyncConnection): void {
    if (this.connection === connection) return;
    this.connection = connection;
    this.host.requestUpdate();
    this.callbacks.connection?.(connection);
  }
}
