/** Starts the real app on a loopback port over a temporary DATA_DIR, with a clock the test moves. */
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { applyServerTimeouts, createApp, type ServerTimeouts } from '../../api/app.ts';
import { answerClientErrors } from '../../api/http/client-errors.ts';
import type { EventStreamTiming } from '../../api/checkout/checkout.routes.ts';
import { type Config, loadConfig } from '../../api/config.ts';
import type { Database } from '../../api/db/database.ts';
import { openPostgresDatabase } from '../../api/db/postgres-database.ts';
import { openSqliteDatabase } from '../../api/db/sqlite-database.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';
import { parseOrThrow } from '../../api/shared/validation.ts';
import { CreateMerchantInput } from '../../api/merchants/merchant.schema.ts';
import { shippedLogos } from '../../api/networks/logo-files.ts';
import { createServices, type Services } from '../../api/services.ts';
import { createManualClock, type ManualClock } from '../../api/shared/clock.ts';
import { silentLogger } from '../../api/shared/logger.ts';

/** A merchant's keys as `merchant create` returns them. */
export interface TestMerchant {
  merchant: { id: string; name: string; siteUrl: string | null; logoUrl: string | null; email: string | null };
  apiKey: string;
  secretKey: string;
}

/** A running test server. */
export interface TestServer {
  url: string;
  /** `${url}/v2` */
  api: string;
  services: Services;
  clock: ManualClock;
  dataDir: string;
  /** The key merchants' secret keys are sealed with (a restarted service over the same store needs it). */
  serverKey: Buffer;
  /** `postgres` when the suite runs against PostgreSQL (TEST_DATABASE_URL), else `sqlite`. */
  store: 'sqlite' | 'postgres';
  /** Provisions a merchant with fresh keys. */
  createMerchant(name?: string): Promise<TestMerchant>;
  close(): Promise<void>;
}

/** Starts a server; `env` overrides the test defaults (simulator on, no block timer, no pool). */
export async function startTestServer(
  options: { env?: Record<string, string>; eventTiming?: EventStreamTiming; config?: Partial<Config>; serverTimeouts?: Partial<ServerTimeouts> } = {},
): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-test-'));
  // The production server's timeouts, unless a test shortens them to watch them act.
  const server = answerClientErrors(http.createServer(applyServerTimeouts({}, options.serverTimeouts)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const config: Config = {
    ...loadConfig({
      DATA_DIR: dataDir,
      PORT: String(port),
      PUBLIC_URL: url,
      SIMULATOR: 'on',
      SIMULATOR_BLOCK_SECONDS: '0',
      ADDRESS_POOL_SIZE: '0',
      LOG_LEVEL: 'silent',
      ...options.env,
    }),
    ...options.config,
  };
  const clock = createManualClock(Date.now());
  const { db, database } = await openTestStore(dataDir);
  const serverKey = randomBytes(32);
  const services = await createServices({ db, config: { ...config, databaseUrl: database?.url }, clock, logger: silentLogger(), serverKey });
  const app = createApp(services, options.eventTiming ? { eventTiming: options.eventTiming } : {});
  server.on('request', app);
  return {
    url,
    api: `${url}/v2`,
    services,
    clock,
    dataDir,
    serverKey,
    store: db.dialect.name,
    createMerchant: (name = 'Test Shop') =>
      services.merchants.create(parseOrThrow(CreateMerchantInput, { name, email: 'owner@shop.example', siteUrl: 'shop.example', logoUrl: 'https://shop.example/logo.png' })),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await services.close();
      await db.close();
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The store a test server runs on: a fresh SQLite file in its DATA_DIR, or, when the suite runs
 * against PostgreSQL (TEST_DATABASE_URL names a cluster), a fresh database of its own there.
 */
export async function openTestStore(dataDir: string): Promise<{ db: Database; database: TestDatabase | undefined }> {
  const database = await createTestDatabase();
  if (!database) return { db: openSqliteDatabase(path.join(dataDir, 'checkout.db')), database };
  return { db: await openPostgresDatabase(database.url, silentLogger(), { poolSize: 4 }), database };
}

/** The URL the service hands out for one of its shipped asset logos (`btc`): content-hashed. */
export function logoUrl(server: TestServer, name: string): string {
  return server.url + shippedLogos().hashedPath(`/logos/${name}.svg`);
}

/** Hex HMAC-SHA256 of a body, as merchants sign it. */
export function sign(body: string | Buffer, secretKey: string): string {
  return createHmac('sha256', secretKey).update(body).digest('hex');
}

/** A JSON response: status, headers and parsed body. */
export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

async function toJson<T>(response: Response): Promise<JsonResponse<T>> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** A merchant's HTTP calls against a test server, signed the way the README tells merchants to. */
export function merchantApi(server: Pick<TestServer, 'api'>, keys: Pick<TestMerchant, 'apiKey' | 'secretKey'>) {
  return {
    /** GET with the API key. */
    async get<T = any>(pathAndQuery: string): Promise<JsonResponse<T>> {
      return toJson<T>(await fetch(server.api + pathAndQuery, { headers: { 'API-KEY': keys.apiKey } }));
    },
    /** Any method with a raw body (none by default), signed over its exact bytes. */
    async send<T = any>(method: string, pathName: string, raw = ''): Promise<JsonResponse<T>> {
      return toJson<T>(
        await fetch(server.api + pathName, { method, headers: { 'API-KEY': keys.apiKey, 'X-HMAC': sign(raw, keys.secretKey) }, ...(raw ? { body: raw } : {}) }),
      );
    },
    /** POST a JSON body, signed over its exact bytes. */
    async post<T = any>(pathName: string, body: unknown): Promise<JsonResponse<T>> {
      const raw = JSON.stringify(body);
      return toJson<T>(
        await fetch(server.api + pathName, {
          method: 'POST',
          headers: { 'API-KEY': keys.apiKey, 'X-HMAC': sign(raw, keys.secretKey), 'Content-Type': 'application/json' },
          body: raw,
        }),
      );
    },
  };
}

/** Unauthenticated calls (simulator, checkout). */
export async function postJson<T = any>(url: string, body: unknown): Promise<JsonResponse<T>> {
  return toJson<T>(await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }));
}

/** An unauthenticated GET. */
export async function getJson<T = any>(url: string, headers: Record<string, string> = {}): Promise<JsonResponse<T>> {
  return toJson<T>(await fetch(url, { headers }));
}
