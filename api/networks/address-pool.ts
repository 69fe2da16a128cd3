/**
 * @module Receiving addresses. Derived networks keep a pool of pre-derived addresses, topped up by
 * a worker thread, so creating a payment claims a row instead of doing elliptic-curve work; an
 * empty pool falls back to deriving one address inline. Tagged networks share one address and
 * hand out a new destination tag per payment.
 */
import { Worker } from 'node:worker_threads';
import type { Db } from '../db/open-database.ts';
import type { Logger } from '../shared/logger.ts';
import type { AssetRegistry } from './asset-registry.ts';
import type { DeriveRequest, DeriveResponse } from './derive-worker.ts';
import { deriveReceiveAddress } from './hd-wallet.ts';

/** Where a payer sends a payment. */
export interface ReceivingAddress {
  address: string;
  destTag: string | null;
}

const BATCH = 100;

/**
 * Starts the derivation worker. Compiled (dist/server), its file is JavaScript beside this one;
 * run from source under tsx (the tests), it is TypeScript, so the worker registers tsx first.
 */
function startDeriveWorker(): Worker {
  if (!new URL(import.meta.url).pathname.endsWith('.ts')) return new Worker(new URL('./derive-worker.js', import.meta.url));
  const workerUrl = new URL('./derive-worker.ts', import.meta.url).href;
  const tsxApiUrl = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsxApiUrl)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(workerUrl)}); });`;
  return new Worker(bootstrap, { eval: true });
}

/** Creates the pool over the addresses table. */
export function createAddressPool(deps: { db: Db; registry: AssetRegistry; poolSize: number; logger: Logger }) {
  const { db, registry, poolSize, logger } = deps;
  // INDEXED BY: without statistics the planner prefers the UNIQUE payment_id index for
  // `payment_id IS NULL`, which walks every network's unclaimed rows through the table on each
  // create; the partial pool index holds exactly one network's unclaimed rows in claim order.
  const claimPooled = db.prepare<[string, string], { address: string }>(
    `UPDATE addresses SET payment_id = ?
     WHERE id = (SELECT id FROM addresses INDEXED BY addresses_pool WHERE network = ? AND payment_id IS NULL ORDER BY id LIMIT 1)
     RETURNING address`,
  );
  const reserveIndexes = db.prepare<[{ count: number; network: string }], { fromIndex: number; xpub: string }>(
    'UPDATE hd_accounts SET next_index = next_index + @count WHERE network = @network RETURNING next_index - @count AS fromIndex, xpub',
  );
  const xpubOf = db.prepare<[string], { xpub: string }>('SELECT xpub FROM hd_accounts WHERE network = ?');
  const insertAddress = db.prepare(
    'INSERT OR IGNORE INTO addresses (network, address, dest_tag, derivation_index, payment_id) VALUES (?, ?, ?, ?, ?)',
  );
  const countPooled = db.prepare<[string], { n: number }>(
    'SELECT COUNT(*) AS n FROM addresses INDEXED BY addresses_pool WHERE network = ? AND payment_id IS NULL',
  );
  const insertBatch = db.transaction((network: string, fromIndex: number, addresses: string[]): number =>
    addresses.reduce((inserted, address, i) => inserted + insertAddress.run(network, address, null, fromIndex + i, null).changes, 0),
  );

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

  function reserve(network: string, count: number): { fromIndex: number; xpub: string } {
    const row = reserveIndexes.get({ count, network });
    if (!row) throw new Error(`network ${network} has no HD account`);
    return row;
  }

  function sharedAddress(network: string): string {
    let address = sharedAddresses.get(network);
    if (!address) {
      const row = xpubOf.get(network);
      if (!row) throw new Error(`network ${network} has no HD account`);
      address = deriveReceiveAddress(row.xpub, network, 0);
      sharedAddresses.set(network, address);
    }
    return address;
  }

  function deriveInWorker(request: Omit<DeriveRequest, 'id'>): Promise<string[]> {
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

  const threshold = Math.ceil(poolSize / 2);
  const derivedNetworks = registry.networks().filter((n) => n.receiveMode === 'derived').map((n) => n.name);

  // Whether a network's pool, as last known, may have fallen to half (unknown counts as yes).
  function mayNeedTopUp(network: string): boolean {
    const known = unclaimed.get(network);
    return known === undefined || poolSize - known >= threshold;
  }

  async function topUp(network: string): Promise<void> {
    if (!mayNeedTopUp(network)) return;
    const counted = countPooled.get(network)!.n;
    unclaimed.set(network, counted);
    let missing = poolSize - counted;
    if (missing < threshold) return;
    while (missing > 0 && !closed) {
      const count = Math.min(BATCH, missing);
      const { fromIndex, xpub } = db.transaction(() => reserve(network, count)).immediate();
      const addresses = await deriveInWorker({ network, xpub, fromIndex, count });
      if (closed) return;
      const inserted = insertBatch.immediate(network, fromIndex, addresses);
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
     * Gives a payment its receiving address. Must run inside the payment's write transaction, so a
     * failed create hands nothing out.
     */
    claim(network: string, paymentId: string): ReceivingAddress {
      if (registry.network(network).receiveMode === 'tagged') {
        const { fromIndex } = reserve(network, 1);
        const address = sharedAddress(network);
        const destTag = String(fromIndex + 1);
        insertAddress.run(network, address, destTag, null, paymentId);
        return { address, destTag };
      }
      const pooled = claimPooled.get(paymentId, network);
      if (pooled) {
        const known = unclaimed.get(network);
        if (known !== undefined) unclaimed.set(network, known - 1);
        return { address: pooled.address, destTag: null };
      }
      const { fromIndex, xpub } = reserve(network, 1);
      const address = deriveReceiveAddress(xpub, network, fromIndex);
      insertAddress.run(network, address, null, fromIndex, paymentId);
      return { address, destTag: null };
    },

    /** Tops every derived network's pool back up to its size; concurrent calls share one run. */
    refill(): Promise<void> {
      if (poolSize === 0 || closed) return Promise.resolve();
      // Called after every create: most of the time every pool is known to be well stocked.
      if (!refilling && !derivedNetworks.some(mayNeedTopUp)) return Promise.resolve();
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
    sizes(): Record<string, number> {
      return Object.fromEntries(derivedNetworks.map((network) => [network, countPooled.get(network)!.n]));
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
