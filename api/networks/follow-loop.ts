/**
 * @module The loop both real-chain followers run: one poll at a time on a timer, events handed to
 * the chain watcher one after another, and the calls tests use to poll on demand.
 */
import type { ChainEvent } from './network-adapter.ts';

/** Creates the loop around a follower's `poll`. */
export function createFollowLoop(poll: () => Promise<void>, pollMs: number) {
  let deliver: ((event: ChainEvent) => Promise<void>) | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const pollOnce = (): Promise<void> => {
    running ??= poll().finally(() => {
      running = undefined;
    });
    return running;
  };

  return {
    /** Hands an event to the watcher (nothing while not watching). */
    async emit(event: ChainEvent): Promise<void> {
      if (deliver) await deliver(event);
    },
    /** Hands every event from now on to `onEvent`; polling starts with `follow`. */
    watch(onEvent: (event: ChainEvent) => Promise<void>): void {
      deliver = onEvent;
    },
    /** Starts polling now and every `pollMs` after the previous poll ends (startJobs calls it). */
    follow(): void {
      if (timer !== undefined) return;
      const tick = () => {
        timer = setTimeout(() => void pollOnce().finally(() => (timer === undefined ? undefined : tick())), pollMs);
      };
      void pollOnce();
      tick();
    },
    /** Stops polling and delivering. */
    close(): void {
      const pending = timer;
      timer = undefined;
      clearTimeout(pending);
      deliver = undefined;
    },
    pollOnce,
    /** A poll that starts after this call (waits out one under way): what tests use after acting on the node. */
    async pollFresh(): Promise<void> {
      while (running) await running;
      await pollOnce();
    },
  };
}
