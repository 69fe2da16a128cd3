/**
 * @module Receiving addresses. Derived networks keep a pool of pre-derived addresses, topped up by
 * a worker thread, so creating a payment claims a row instead of doing elliptic-curve work; an
 * empty pool falls back to deriving one address inline. Tagged networks share one address and
 * hand out a new destination tag per payment.
 */
import { type ResourceLimits, Worker } from 'node:worker_threads';
import type { Logger } from '../shared/logger.ts';
import type { UnitOfWork } from '../unit-of-work.ts';
import type { AddressStore } from './address.store.ts';
import type { AssetRegistry } from './asset-registry.ts';
import type { DeriveRequest, DeriveResponse } from './derive-worker.ts';
import { deriveReceiveAddress } from './hd-wallet.ts';

/** Where a payer sends a payment. */
export interface ReceivingAddress {
  address: string;
  destTag: string | null;
}

/** Where a payment stored in one statement receives: the network's pool, or the shared address with a tag. */
export type OneStatementAddress = { network: string; pooled: true } | { network: string; pooled: false; address: string; destTag: string };

const BATCH = 100;
/**
 * The pool of a network whose addresses are made in this thread (a Monero wallet's subaddresses:
 * about 3 ms each, and each one its wallet must also be told of, however long before it is
 * handed out) holds at most this many, made this many at a time.
 */
export const IN_THREAD_POOL = 50;
const IN_THREAD_BATCH = 10;

/** Destination tags reserved at once per tagged network, and how few left start the next reservation. */
export const TAG_BLOCK = 50;
/** Indexes a claim tries before it gives up, should the ones it takes already be recorded. */
const CLAIM_ATTEMPTS = 3;
const TAG_LOW_WATER = 10;

/** Reserved, unused derivation indexes of one tagged network, in the order reserved. */
function tagRanges() {
  const ranges: Array<{ next: number; end: number }> = [];
  return {
    reserving: undefined as Promise<void> | undefined,
    add(fromIndex: number, count: number): void {
      ranges.push({ next: fromIndex, end: fromIndex + count });
    },
    take(): number | undefined {
      while (ranges.length > 0 && ranges[0]!.next >= ranges[0]!.end) ranges.shift();
      const range = ranges[0];
      return range ? range.next++ : undefined;
    },
    left(): number {
      return ranges.reduce((sum, range) => sum + range.end - range.next, 0);
    },
  };
}

/**
 * The derivation worker's heap. V8's defaults size a worker like a main thread (16 MB semi-spaces,
 * an old generation allowed to grow to four times what is live), which made it the largest single
 * part of the service's peak memory, for work that keeps almost nothing: each batch's points and
 * hashes die young. A 2 MB young generation derives as fast (measured: 3,708 addresses on each of
 * four networks in 5.5 s either way) and the worker then adds 21 MB to the process instead of 36.
 * The old-generation cap is far above what it holds (its modules and one batch, about 10 MB); past
 * it the worker fails, the refill reports it and the next refill starts a new worker.
 */
export const DERIVE_WORKER_LIMITS: Readonly<ResourceLimits> = { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 64 };

/**
 * Starts the derivation worker. Compiled (dist/server), its file is JavaScript beside this one;
 * run from source under tsx (the tests), it is TypeScript, so the worker registers tsx first.
 */
export function startDeriveWorker(): Worker {
  const resourceLimits = { ...DERIVE_WORKER_LIMITS };
  if (!new URL(import.meta.url).pathname.endsWith('.ts')) return new Worker(new URL('./derive-worker.js', import.meta.url), { resourceLimits });
  const workerUrl = new URL('./derive-worker.ts', import.meta.url).href;
  const tsxApiUrl = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsxApiUrl)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(workerUrl)}); });`;
  return new Worker(bootstrap, { eval: true, resourceLimits });
}

/** The address at a derivation index of a network whose addresses come from elsewhere than its xpub (Monero's wallet). */
export type AddressDeriver = (index: number) => string;

/**
 * Creates the pool over the addresses table. `derivers` make the addresses of networks that are
 * not derived from their xpub (a Monero wallet's subaddresses), in this thread.
 */
export function createAddressPool(deps: { uow: UnitOfWork; registry: AssetRegistry; poolSize: number; logger: Logger; derivers?: Readonly<Record<string, AddressDeriver>> }) {
  const { uow, registry, poolSize, logger } = deps;
  const derivers = deps.derivers ?? {};
  const store = uow.stores.addresses;

  const sharedAddresses = new Map<string, string>();
  let worker: Worker | undefined;
  let nextRequestId = 1;
  const pending = new Map<number, { worker: Worker; resolve: (addresses: string[]) => void; reject: (reason: Error) => void }>();
  let refilling: Promise<void> | undefined;
  let refillAgain = false;
  let closed = false;
  // Unclaimed addresses per network as last counted, then kept current by this process's claims
  // and inserts, so the refill check after every create reads a number instead of counting the
  // pool. A refill recounts before it derives. A claim rolled back with its payment leaves the
  // figure low, which only brings that recount forward.
  const unclaimed = new Map<string, number>();

  // Destination tags of tagged networks, reserved TAG_BLOCK at a time in a transaction of their own
  // and handed out from memory. A create that reserved its tag in its own transaction would hold the
  // network's counter row until it commits: on PostgreSQL every tagged create would wait for the
  // one before it to reach the disk. A tag taken by a create that fails, or left when the process
  // stops, is never used: tags need only be unique, and there are four billion of them.
  const tagBlocks = new Map<string, ReturnType<typeof tagRanges>>();

  // One address fewer in the pool, or none left whatever this process counted (other instances
  // claim from the same pool), which brings the next refill forward.
  function countPoolClaim(network: string, found: boolean): void {
    const known = unclaimed.get(network);
    if (!found) unclaimed.set(network, 0);
    else if (known !== undefined) unclaimed.set(network, known - 1);
  }

  function takeTag(network: string): number | undefined {
    let tags = tagBlocks.get(network);
    if (!tags) tagBlocks.set(network, (tags = tagRanges()));
    return tags.take();
  }

  function reserveTags(network: string, tags: ReturnType<typeof tagRanges>): void {
    if (tags.reserving || closed) return;
    tags.reserving = uow
      .transaction((stores) => reserve(stores.addresses, network, TAG_BLOCK))
      .then(({ fromIndex }) => tags.add(fromIndex, TAG_BLOCK))
      .catch((err: unknown) => {
        // Creates reserve their own tag meanwhile; the next create tries again.
        if (!closed) logger.warn({ err, network }, 'could not reserve destination tags ahead');
      })
      .finally(() => (tags.reserving = undefined));
  }

  async function reserve(addresses: AddressStore, network: string, count: number): Promise<{ fromIndex: number; xpub: string }> {
    const row = await addresses.reserveIndexes(network, count);
    if (!row) throw new Error(`network ${network} has no HD account`);
    return row;
  }

  async function sharedAddress(addresses: AddressStore, network: string): Promise<string> {
    let address = sharedAddresses.get(network);
    if (!address) {
      const xpub = await addresses.xpubOf(network);
      if (!xpub) throw new Error(`network ${network} has no HD account`);
      address = deriveReceiveAddress(xpub, network, 0, registry.network(network).chain);
      sharedAddresses.set(network, address);
    }
    return address;
  }

  function deriveInWorker(request: Omit<DeriveRequest, 'id' | 'chains'>): Promise<string[]> {
    if (!worker) {
      const started = startDeriveWorker();
      worker = started;
      started.on('message', (response: DeriveResponse) => {
        pending.get(response.id)?.resolve(response.addresses);
        pending.delete(response.id);
        if (![...pending.values()].some((batch) => batch.worker === started)) started.unref();
      });
      // A worker that fails (it cannot load, or it throws) or ends takes its unanswered batches
      // with it: they fail, so the refill ends and the next one starts a new worker.
      const abandon = (reason: Error) => {
        if (worker === started) worker = undefined;
        for (const [id, batch] of pending) {
          if (batch.worker !== started) continue;
          batch.reject(reason);
          pending.delete(id);
        }
      };
      started.on('error', (err) => {
        logger.error({ err }, 'address derivation worker failed');
        abandon(err);
      });
      started.on('exit', (code) => abandon(new Error(`the address derivation worker exited (code ${code})`)));
    }
    const target = worker;
    target.ref();
    const id = nextRequestId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { worker: target, resolve, reject });
      target.postMessage({ id, ...request } satisfies DeriveRequest);
    });
  }

  /** Ends the derivation worker, if one runs; the next refill starts a new one. */
  async function stopWorker(): Promise<void> {
    const stopping = worker;
    worker = undefined;
    // A batch answered during termination would unref the worker, and an unref'd worker's exit
    // does not keep the event loop alive: terminate() would then never settle.
    stopping?.ref();
    await stopping?.terminate();
  }

  // A pool is topped up once a quarter of it is gone, when creates pause (the jobs call refill()
  // once a second while none came for IDLE_MS), or at once when three quarters are gone. So a
  // burst of creates on one network runs on addresses derived before it, with no derivation
  // competing for the CPU, and the pool never runs dry (creates would then derive keys inline).
  const sizeOf = (network: string) => (derivers[network] ? Math.min(poolSize, IN_THREAD_POOL) : poolSize);
  const threshold = (network: string) => Math.ceil(sizeOf(network) / 4);
  const urgentThreshold = (network: string) => Math.ceil((sizeOf(network) * 3) / 4);
  const derivedNetworks = registry.networks().filter((n) => n.receiveMode === 'derived').map((n) => n.name);
  let lastClaimAt = 0;

  // Whether a network's pool, as last known, may have lost a quarter (`urgent`: three quarters) of
  // its addresses (unknown counts as yes).
  function mayNeedTopUp(network: string, urgent = false): boolean {
    const known = unclaimed.get(network);
    return known === undefined || sizeOf(network) - known >= (urgent ? urgentThreshold(network) : threshold(network));
  }

  // Counted again before each batch: instances that top the same pool up together (several
  // started at once) stop once it is full, instead of each adding the whole size.
  async function topUp(network: string): Promise<void> {
    if (!mayNeedTopUp(network)) return;
    const size = sizeOf(network);
    const counted = await store.countPooled(network);
    unclaimed.set(network, counted);
    let missing = size - counted;
    if (missing < threshold(network)) return;
    let first = true;
    while (missing > 0 && !closed) {
      if (!first) {
        const recounted = await store.countPooled(network);
        unclaimed.set(network, recounted);
        missing = size - recounted;
        if (missing <= 0) break;
      }
      first = false;
      const count = Math.min(derivers[network] ? IN_THREAD_BATCH : BATCH, missing);
      const { fromIndex, xpub } = await reserve(store, network, count);
      const deriver = derivers[network];
      const addresses = deriver ? Array.from({ length: count }, (_, i) => deriver(fromIndex + i)) : await deriveInWorker({ network, xpub, fromIndex, count, chain: registry.network(network).chain });
      if (closed) return;
      const inserted = await store.insertPooled(network, addresses, fromIndex);
      unclaimed.set(network, (unclaimed.get(network) ?? 0) + inserted);
      missing -= count;
    }
  }

  async function refillAll(): Promise<void> {
    do {
      refillAgain = false;
      for (const network of derivedNetworks) await topUp(network);
    } while (refillAgain && !closed);
  }

  return {
    /**
     * Gives a payment its receiving address. `addresses` must be bound to the payment's write
     * transaction, so a failed create hands nothing out.
     */
    async claim(addresses: AddressStore, network: string, paymentId: string): Promise<ReceivingAddress> {
      const tagged = registry.network(network).receiveMode === 'tagged';
      if (!tagged) {
        lastClaimAt = Date.now();
        const pooled = await addresses.claimPooled(network, paymentId);
        countPoolClaim(network, pooled !== undefined);
        if (pooled) return { address: pooled, destTag: null };
      }
      // A new tag on the shared address, or a newly derived address. Should the counter have fallen
      // behind the addresses recorded (a database restored or edited by hand), the row is already
      // another payment's: it is left to that payment, the counter is moved past every recorded
      // one and a fresh index taken. The payment never shows an address it does not own.
      for (let attempt = 1; ; attempt++) {
        let taken: { address: string; destTag: string | null; index: number };
        if (tagged) {
          const fromIndex = (attempt === 1 ? takeTag(network) : undefined) ?? (await reserve(addresses, network, 1)).fromIndex;
          taken = { address: await sharedAddress(addresses, network), destTag: String(fromIndex + 1), index: fromIndex };
          if (await addresses.insertAddress(network, taken.address, taken.destTag, null, paymentId)) return { address: taken.address, destTag: taken.destTag };
        } else {
          const { fromIndex, xpub } = await reserve(addresses, network, 1);
          taken = { address: derivers[network]?.(fromIndex) ?? deriveReceiveAddress(xpub, network, fromIndex, registry.network(network).chain), destTag: null, index: fromIndex };
          if (await addresses.insertAddress(network, taken.address, null, fromIndex, paymentId)) return { address: taken.address, destTag: null };
        }
        if (attempt === CLAIM_ATTEMPTS) throw new Error(`no unused receiving address on ${network} after ${CLAIM_ATTEMPTS} attempts: each one taken was already recorded for another payment`);
        logger.error(
          { network, address: taken.address, destTag: taken.destTag, index: taken.index, paymentId, attempt },
          'a receiving address taken for a new payment was already recorded for another payment; the index counter is moved past the recorded ones',
        );
        tagBlocks.delete(network);
        await addresses.raiseNextIndexPastRecorded(network);
      }
    },

    /**
     * Where a payment stored in one statement (PostgreSQL) should receive, decided from what this
     * process knows: a reserved tag on the shared address, or the pool while it is known to hold
     * addresses. Undefined: create it in a transaction with `claim` instead (the shared address not
     * yet read, no tag reserved, the pool perhaps empty). A tag handed out here and not used is
     * skipped for good.
     */
    receivingInOneStatement(network: string): OneStatementAddress | undefined {
      if (registry.network(network).receiveMode === 'tagged') {
        const address = sharedAddresses.get(network);
        const index = address === undefined ? undefined : takeTag(network);
        return index === undefined ? undefined : { network, pooled: false, address: address!, destTag: String(index + 1) };
      }
      return (unclaimed.get(network) ?? 0) > 0 ? { network, pooled: true } : undefined;
    },

    /**
     * Counts what a one-statement create found in the pool, as `claim` does: one address fewer, or
     * none left (other instances took them), which brings the next refill forward.
     */
    claimedFromPool(network: string, found: boolean): void {
      lastClaimAt = Date.now();
      countPoolClaim(network, found);
    },

    /**
     * After a create: reserves destination tags ahead where few are left, and tops the pools up only
     * if one is three quarters gone (a refill mid-burst competes with it).
     */
    afterClaim(): Promise<void> {
      for (const [network, tags] of tagBlocks) if (tags.left() < TAG_LOW_WATER) reserveTags(network, tags);
      if (poolSize === 0 || closed || refilling || !derivedNetworks.some((n) => mayNeedTopUp(n, true))) return Promise.resolve();
      return this.refill();
    },

    /** Whether no address was claimed here for `ms` (a pause in creates: time to top up). */
    idleFor(ms: number): boolean {
      return Date.now() - lastClaimAt >= ms;
    },

    /** Tops every derived network's pool back up to its size; concurrent calls share one run. */
    refill(): Promise<void> {
      if (poolSize === 0 || closed) return Promise.resolve();
      // Called after every create: most of the time every pool is known to be well stocked.
      if (!refilling && !derivedNetworks.some((n) => mayNeedTopUp(n))) return Promise.resolve();
      if (refilling) {
        refillAgain = true;
        return refilling;
      }
      refilling = refillAll()
        .catch((err) => {
          // Stopping drops unanswered batches on purpose; anything else is worth telling.
          if (!closed) logger.error({ err }, 'address pool refill failed');
        })
        .finally(() => {
          refilling = undefined;
          // The worker is a whole V8 isolate (about 45 MB resident) and refills are rare: it lives
          // only while one runs.
          void stopWorker();
        });
      return refilling;
    },

    /** How many unclaimed addresses each derived network has ready. */
    async sizes(): Promise<Record<string, number>> {
      const sizes: Record<string, number> = {};
      for (const network of derivedNetworks) sizes[network] = await store.countPooled(network);
      return sizes;
    },

    /** Stops the worker; pending batches fail and are dropped (their indexes are simply skipped). */
    async close(): Promise<void> {
      closed = true;
      await stopWorker();
    },
  };
}

/** The address pool's interface. */
export type AddressPool = ReturnType<typeof createAddressPool>;
