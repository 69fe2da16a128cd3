/** Polling a service that acts on its own timers (chain followers, payout retries) until it shows a result. */
import assert from 'node:assert/strict';

/** Waits until `read` gives something `done` accepts; fails naming `what` and the last value seen. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) assert.fail(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
