/**
 * @module Work gathered and done once for many callers. `perTurn`: over one turn of the event loop,
 * done at its end. Requests that arrive together (the sockets one poll of the loop finds ready) are
 * answered together: one database ask or query for all of them, and their answers leave at once.
 * Whatever the gathered work reads, it reads after each of its callers began, so none sees the
 * data older than when it arrived. `oneAtATime`: gathered while the previous batch's work runs.
 */

/** One caller waiting in a turn's batch: what it asked for, and how to answer it. */
export interface Waiting<T, R> {
  item: T;
  resolve(value: R): void;
  reject(error: unknown): void;
}

/** What a caller gets when `flush` is done without having answered it: a bug in the flush. */
export class LeftUnanswered extends Error {
  override name = 'LeftUnanswered';
  constructor() {
    super('the work of this turn ended without answering this caller');
  }
}

// A caller's answer, settled once: what the flush did not answer is known without a new error per turn.
class Caller<T, R> implements Waiting<T, R> {
  settled = false;
  constructor(
    readonly item: T,
    private readonly answer: (value: R) => void,
    private readonly fail: (error: unknown) => void,
  ) {}
  resolve(value: R): void {
    if (this.settled) return;
    this.settled = true;
    this.answer(value);
  }
  reject(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.fail(error);
  }
}

// Fails the callers of a batch still waiting: with `error`, or with LeftUnanswered, made only if one is.
function failWaiting<T, R>(batch: Array<Caller<T, R>>, error?: unknown): void {
  for (const caller of batch) if (!caller.settled) caller.reject(error ?? new LeftUnanswered());
}

/**
 * Gathers the items asked for during one turn of the event loop and hands them to `flush`
 * together at the turn's end (setImmediate), or at once when `max` are waiting. Each caller gets a
 * promise that `flush` settles; if `flush` throws or its promise rejects, every caller it left
 * unanswered gets that error, and if it ends without answering one, that one gets LeftUnanswered,
 * so no caller waits forever.
 */
export function perTurn<T, R>(flush: (batch: Array<Waiting<T, R>>) => void | Promise<void>, max = Infinity): (item: T) => Promise<R> {
  let waiting: Array<Caller<T, R>> | undefined;
  const send = () => {
    const batch = waiting;
    waiting = undefined;
    if (!batch) return;
    let done: void | Promise<void>;
    try {
      done = flush(batch);
    } catch (error) {
      failWaiting(batch, error);
      return;
    }
    if (done) {
      done.then(
        () => failWaiting(batch),
        (error: unknown) => failWaiting(batch, error),
      );
    } else {
      failWaiting(batch);
    }
  };
  return (item) =>
    new Promise<R>((resolve, reject) => {
      if (!waiting) {
        waiting = [];
        setImmediate(send);
      }
      waiting.push(new Caller(item, resolve, reject));
      if (waiting.length >= max) send();
    });
}

/**
 * Like `perTurn`, but one `flush` at a time: the items asked for while one runs wait for it to end
 * and then go together (at most `max` a batch), without waiting for another turn. A caller alone
 * with nothing running waits for the end of its turn, as with `perTurn`. The batches grow with the
 * time a flush takes, and two of them do not run side by side, unless one runs longer than
 * `patienceMs`: then the next batch starts beside it, so one flush held up (a lock another
 * transaction holds) does not hold up everything after it. Failures are as with `perTurn`: each
 * batch fails alone.
 */
export function oneAtATime<T, R>(flush: (batch: Array<Waiting<T, R>>) => Promise<void>, options: { max?: number; patienceMs?: number } = {}): (item: T) => Promise<R> {
  const { max = Infinity, patienceMs = Infinity } = options;
  if (!(max >= 1)) throw new RangeError(`oneAtATime: max must be at least 1, not ${max}`);
  let waiting: Array<Caller<T, R>> = [];
  // A flush is running and still within its patience: the next batch waits for it.
  let busy = false;
  let scheduled = false;
  const run = async (batch: Array<Caller<T, R>>) => {
    try {
      await flush(batch);
      failWaiting(batch);
    } catch (error) {
      failWaiting(batch, error);
    }
  };
  const startNext = () => {
    if (busy || waiting.length === 0) return;
    const batch = waiting.length <= max ? waiting : waiting.slice(0, max);
    waiting = batch === waiting ? [] : waiting.slice(max);
    busy = true;
    let done = false;
    const release = () => {
      if (done) return;
      done = true;
      busy = false;
      startNext();
    };
    const timer = patienceMs === Infinity ? undefined : setTimeout(release, patienceMs);
    timer?.unref();
    void run(batch).finally(() => {
      clearTimeout(timer);
      release();
    });
  };
  return (item) =>
    new Promise<R>((resolve, reject) => {
      waiting.push(new Caller(item, resolve, reject));
      if (busy || scheduled) return;
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        startNext();
      });
    });
}
