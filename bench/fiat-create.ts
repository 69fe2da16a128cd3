/**
 * The bench row "a fiat-priced create ÷ an asset-priced create": the same service, the same signed
 * creates, one priced with `price` in USD (converted through the rate book, which loopback stand-ins
 * of Coinbase, Kraken and Bitstamp feed) and one with `amount`. Target 0.9: a fiat price costs a
 * read of the book and a BigInt division, never a call to a source.
 */
import fs from 'node:fs';
import { freePort } from '../test/helpers/server-process.ts';
import { rateEnv, startSourceServer } from '../test/helpers/rate-source-servers.ts';
import { compare, loadOnce } from './load.ts';
import { waitForFullPool } from './pool-fill.ts';
import { type NodeFlags, startService } from './processes.ts';
import { CREATE_WARMUP, poolFor } from './run-settings.ts';
import type { Row } from './report.ts';
import { demoKeys, prepareDataDir } from './scenario.ts';
import { createRequests, DERIVED_NETWORKS } from './signed-create.ts';

// Sixteen rounds of 600, so each kind goes first in as many rounds as the other. A round of
// either kind moves by a third from one round to the next (a WAL checkpoint, tens of milliseconds
// every 1,600 to 2,400 creates on this row's service, or a collection, landing in a round of about
// a tenth of a second), and the kind measured first after the warm-up is a fifth slower for a round
// or two: six rounds of 400 gave medians of 0.86 to 1.17 for the same code (0.89 in the bench of
// 9319a9e), sixteen of 600 gave 0.96, 0.98 and 0.98 in three runs. The service is fresh, so both
// kinds are warmed up first as the create row is (CREATE_WARMUP each), in one load that alternates
// them request by request: warmed one kind after the other, the kind warmed first measured a fifth
// slower than it is (fiat ÷ asset 0.71, 0.75 and 0.79 with fiat warmed first, 1.12, 1.16 and 1.23
// with it warmed second, eight rounds each; 0.89 to 1.04 warmed together), and the bench warmed
// the fiat kind first.
export const FIAT_SHAPE = { connections: 10, seconds: 0, amount: 600, rounds: 16 } as const;
/** Creates of each kind in the shared warm-up. */
export const FIAT_WARMUP = CREATE_WARMUP;
// Both kinds of create draw on the pools: sized, as run.ts's, so no refill runs during the row.
export const FIAT_POOL_SIZE = poolFor(2 * (FIAT_WARMUP + FIAT_SHAPE.rounds * FIAT_SHAPE.amount));
// US dollars per unit of each served ticker, slightly different per source so the median matters.
const QUOTES = { BTC: 64000, LTC: 85, ETH: 3100, USDT: 0.9998, USDC: 1.0001, TRX: 0.25, XRP: 2.5 };

/** Measures the row on a fresh service of its own. */
export async function fiatCreateRow(nodeFlags: NodeFlags, log: (message: string) => void): Promise<Row> {
  const sources = await Promise.all(
    (['coinbase', 'kraken', 'bitstamp'] as const).map((name, i) =>
      startSourceServer(name, Object.fromEntries(Object.entries(QUOTES).map(([short, usd]) => [`${short}/USD`, (usd * (1 + (i - 1) / 1000)).toFixed(6)]))),
    ),
  );
  const port = await freePort();
  const { dataDir } = await prepareDataDir(port, 0);
  const service = await startService(dataDir, port, FIAT_POOL_SIZE, nodeFlags, rateEnv(sources));
  try {
    await waitForFullPool(dataDir, DERIVED_NETWORKS, FIAT_POOL_SIZE, 180_000);
    const keys = demoKeys(dataDir);
    const assetPriced = createRequests(keys, keys.shopUrl);
    // The same bodies with `price` (19.99 USD) in place of `amount`, built the same way.
    const fiatPriced = createRequests(keys, keys.shopUrl, { amount: '19.99', currency: 'USD' });
    const spec = (perRequest: typeof fiatPriced) => ({ method: 'POST' as const, path: '/v2/payment', perRequest, expectStatus: 200 });
    const label = 'POST /v2/payment priced in USD ÷ priced in the asset (same service)';
    const started = performance.now();
    let sent = 0;
    const bothKinds = () => (sent++ % 2 === 0 ? fiatPriced() : assetPriced());
    await loadOnce(service, '/v2/payment', spec(bothKinds), { connections: FIAT_SHAPE.connections, seconds: 0, amount: 2 * FIAT_WARMUP });
    const result = await compare({ service, reference: service }, { service: '/v2/payment', reference: '/v2/payment' }, spec(fiatPriced), FIAT_SHAPE, spec(assetPriced));
    log(`  ${label}: ${result.ours.toFixed(0)} vs ${result.reference.toFixed(0)} req/s (ratio ${result.ratio.toFixed(2)}), p99 ${result.p99.toFixed(2)} vs ${result.referenceP99.toFixed(2)} ms [${((performance.now() - started) / 1000).toFixed(1)} s]`);
    return { label, result, target: 0.9 };
  } finally {
    await service.stop().catch(() => undefined);
    for (const source of sources) await source.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
