/**
 * The benchmark's world: a data directory with a merchant's payment history, and the requests of
 * each row with the document the reference answers them with. Shared by `npm run bench` and the
 * profiling script, so a profile looks at exactly what the table measures.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readDemoMerchant } from '../api/merchants/demo-merchant.ts';
import type { LoadSpec } from './load.ts';
import { type BenchProcess, startService } from './processes.ts';
import { seedPayments, type SeedResult } from './seed.ts';
import { CREATE_ASSETS, createRequests } from './signed-create.ts';

/** Payments in the small and the large database. */
export const SMALL_TABLE = 1_000;
export const LARGE_TABLE = 100_000;

// A merchant looking up which of a handful of its orders are paid: two filters, the same matches
// at both sizes (seeded payment n is identical in both databases).
const LOOKUP_INVOICES = [17, 123, 256, 389, 402, 517, 640, 777, 858, 999].map((n) => `order-${n}`);
/** The filtered list request of the two list rows. */
export const LIST_PATH = `/v2/payment?statuses=COMPLETE,CONFIRMING&invoices=${LOOKUP_INVOICES.join(',')}`;

/** A row's load and what the reference answers in its place. */
export interface RowSpec extends LoadSpec {
  referenceStatus: number;
  referenceBody: unknown;
}

/** Names of the rows. */
export type RowKey = 'create' | 'payment' | 'checkout' | 'checkout-304' | 'list';

/**
 * A fresh data directory on which the service has started once (schema, demo merchant, HD keys),
 * then holding SMALL_TABLE seeded payments. The service is stopped when this returns.
 */
export async function prepareDataDir(port: number, seed = SMALL_TABLE): Promise<{ dataDir: string; seeded: SeedResult | undefined }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-bench-'));
  const bootstrap = await startService(dataDir, port, 0);
  await bootstrap.stop();
  return { dataDir, seeded: seed > 0 ? await seedPayments(dataDir, seed) : undefined };
}

/** Tells the reference what to answer on /r/<key>. */
export async function setReference(reference: BenchProcess, key: string, spec: RowSpec): Promise<void> {
  const set = await fetch(`${reference.url}/__doc/${key}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ status: spec.referenceStatus, body: spec.referenceBody }),
  });
  if (set.status !== 204) throw new Error(`could not set the reference document of ${key}: ${set.status}`);
}

async function json(url: string, init?: RequestInit): Promise<{ status: number; body: unknown; headers: Headers }> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
}

/** The demo merchant's keys, from DATA_DIR/demo-merchant.json. */
export function demoKeys(dataDir: string): { apiKey: string; secretKey: string; shopUrl: string } {
  const demo = readDemoMerchant(dataDir);
  if (!demo) throw new Error(`no demo merchant in ${dataDir}`);
  return { apiKey: demo.apiKey, secretKey: demo.secretKey, shopUrl: demo.merchant.siteUrl ?? 'https://shop.example' };
}

/**
 * Makes the payment the reads look at (through the API, with one partial transaction seen) and
 * builds every row's request. Creates one payment.
 */
export async function prepareRows(service: BenchProcess, dataDir: string): Promise<{ rows: Record<RowKey, RowSpec>; paymentId: string; listMatches: number }> {
  const keys = demoKeys(dataDir);
  const nextCreate = createRequests(keys, keys.shopUrl);
  const auth = { 'api-key': keys.apiKey };

  const first = nextCreate();
  const created = await json(`${service.url}/v2/payment`, { method: 'POST', headers: first.headers, body: first.body });
  if (created.status !== 200) throw new Error(`creating the sample payment failed: ${created.status} ${JSON.stringify(created.body)}`);
  const payment = created.body as { id: string; addressTo: string; destTag: string | null; asset: { short: string; network: string } };
  const partial = CREATE_ASSETS.find((a) => a.short === payment.asset.short && a.network === payment.asset.network)!;
  const paid = await json(`${service.url}/v2/dev/transactions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      address: payment.addressTo,
      ...(payment.destTag ? { destTag: payment.destTag } : {}),
      amount: partial.partial,
      asset: payment.asset,
    }),
  });
  if (paid.status !== 200) throw new Error(`paying the sample payment failed: ${paid.status} ${JSON.stringify(paid.body)}`);

  const read = await json(`${service.url}/v2/payment/${payment.id}`, { headers: auth });
  const view = await json(`${service.url}/v2/checkout/${payment.id}`);
  const etag = view.headers.get('etag');
  if (!etag) throw new Error('GET /v2/checkout/:id sent no ETag');
  const listed = await json(`${service.url}${LIST_PATH}`, { headers: auth });
  if (listed.status !== 200) throw new Error(`the filtered list failed: ${listed.status} ${JSON.stringify(listed.body)}`);

  return {
    paymentId: payment.id,
    listMatches: (listed.body as { total: number }).total,
    rows: {
      create: { method: 'POST', path: '/v2/payment', perRequest: nextCreate, expectStatus: 200, referenceStatus: 200, referenceBody: created.body },
      payment: { method: 'GET', path: `/v2/payment/${payment.id}`, headers: auth, expectStatus: 200, referenceStatus: 200, referenceBody: read.body },
      checkout: { method: 'GET', path: `/v2/checkout/${payment.id}`, expectStatus: 200, referenceStatus: 200, referenceBody: view.body },
      'checkout-304': {
        method: 'GET',
        path: `/v2/checkout/${payment.id}`,
        headers: { 'if-none-match': etag },
        expectStatus: 304,
        referenceStatus: 304,
        referenceBody: null,
      },
      list: { method: 'GET', path: LIST_PATH, headers: auth, expectStatus: 200, referenceStatus: 200, referenceBody: listed.body },
    },
  };
}

/** The list row against a restarted service (after more history was seeded). */
export async function listRow(service: BenchProcess, dataDir: string): Promise<{ spec: RowSpec; matches: number }> {
  const auth = { 'api-key': demoKeys(dataDir).apiKey };
  const listed = await json(`${service.url}${LIST_PATH}`, { headers: auth });
  if (listed.status !== 200) throw new Error(`the filtered list failed: ${listed.status} ${JSON.stringify(listed.body)}`);
  return {
    matches: (listed.body as { total: number }).total,
    spec: { method: 'GET', path: LIST_PATH, headers: auth, expectStatus: 200, referenceStatus: 200, referenceBody: listed.body },
  };
}
