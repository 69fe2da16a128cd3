/**
 * Rate limits without a database write per request: a GET writes no row on either store (every
 * row written is counted by triggers), and on PostgreSQL several limiters on one database, each
 * counting in memory against claims on the shared count, admit no more than the limit between
 * them, and keep answering while the database is unreachable.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { pino } from 'pino';
import type { Database } from '../../api/db/database.ts';
import { openPostgresDatabase } from '../../api/db/postgres-database.ts';
import { createRateLimiter, type RateLimiter, type RateLimitResult } from '../../api/rate-limits/rate-limiter.ts';
import { silentLogger } from '../../api/shared/logger.ts';
import { createUnitOfWork } from '../../api/unit-of-work.ts';
import { testClusterUrl } from '../helpers/test-database.ts';
import { merchantApi, startTestServer, type TestMerchant, type TestServer } from '../helpers/test-server.ts';
import { until } from '../helpers/until.ts';

const BTC = { short: 'BTC', network: 'bitcoin' };
const onPostgres = testClusterUrl() !== undefined;

// Counts every row inserted, updated or deleted in each table of the service's database.
async function countWrites(db: Database): Promise<() => Promise<Record<string, number>>> {
  await db.run('CREATE TABLE test_write_counts (tbl TEXT PRIMARY KEY, n BIGINT NOT NULL)');
  const postgres = db.dialect.name === 'postgres';
  const tables = (
    await db.all<{ name: string }>(
      postgres ? 'SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()' : "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
    )
  )
    .map((t) => t.name)
    .filter((name) => name !== 'test_write_counts');
  assert.ok(tables.includes('rate_limit_windows') && tables.includes('payments'));
  if (postgres) {
    await db.run(`CREATE FUNCTION test_count_write() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN UPDATE test_write_counts SET n = n + 1 WHERE tbl = TG_TABLE_NAME; RETURN NULL; END $$`);
  }
  for (const table of tables) {
    await db.run('INSERT INTO test_write_counts (tbl, n) VALUES (?, 0)', [table]);
    if (postgres) await db.run(`CREATE TRIGGER test_count_${table} AFTER INSERT OR UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION test_count_write()`);
    else {
      for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
        await db.run(`CREATE TRIGGER test_count_${event}_${table} AFTER ${event} ON ${table} BEGIN UPDATE test_write_counts SET n = n + 1 WHERE tbl = '${table}'; END`);
      }
    }
  }
  return async () => Object.fromEntries((await db.all<{ tbl: string; n: number | string }>('SELECT tbl, n FROM test_write_counts WHERE n > 0')).map((row) => [row.tbl, Number(row.n)]));
}

describe('reads under rate limits', () => {
  let server: TestServer;
  let shop: TestMerchant;
  before(async () => {
    server = await startTestServer();
    shop = await server.createMerchant();
  });
  after(() => server.close());

  test('200 GETs of a payment and 200 of its checkout view write no row per request', async () => {
    const created = await merchantApi(server, shop).post('/payment', { amount: '0.01', asset: BTC });
    assert.equal(created.status, 200);
    const writes = await countWrites(server.services.db);
    for (let i = 0; i < 20; i++) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, j) =>
          j % 2 === 0 ? fetch(`${server.api}/payment/${created.body.id}`, { headers: { 'API-KEY': shop.apiKey } }) : fetch(`${server.api}/checkout/${created.body.id}`),
        ),
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        answers.map(() => 200),
      );
      await Promise.all(answers.map((a) => a.arrayBuffer()));
    }
    const afterFirst = await fetch(`${server.api}/payment/${created.body.id}`, { headers: { 'API-KEY': shop.apiKey } });
    // 102 of 6,000 counted for the key (the create, 100 reads, this one): known without asking anyone.
    assert.equal(afterFirst.headers.get('ratelimit')?.replace(/;t=\d+$/, ''), '"merchant";r=5898');
    const written = await writes();
    if (server.store === 'sqlite') assert.deepEqual(written, {}, 'one process counts in memory');
    else {
      // Claims for the two buckets (the key, the client address), a handful each: never one per request.
      assert.deepEqual(Object.keys(written), ['rate_limit_windows'], `rows written: ${JSON.stringify(written)}`);
      assert.ok(written.rate_limit_windows! <= 10, `${written.rate_limit_windows} rate-limit rows written for 401 requests`);
    }
  });
});

describe('several limiters on one PostgreSQL', { skip: onPostgres ? false : 'runs in the PostgreSQL half of the suite (TEST_DATABASE_URL)' }, () => {
  let server: TestServer;
  const databases: Database[] = [];
  let instances: RateLimiter[];
  const limiterOn = async (logger = silentLogger()) => {
    const db = await openPostgresDatabase(server.services.config.databaseUrl!, silentLogger(), { poolSize: 2 });
    databases.push(db);
    return createRateLimiter({ uow: createUnitOfWork(db), clock: server.clock, logger });
  };
  const hitsOf = async (bucket: string) =>
    Number((await server.services.db.get<{ hits: number }>('SELECT hits FROM rate_limit_windows WHERE bucket = ?', [bucket]))?.hits ?? 0);
  before(async () => {
    server = await startTestServer();
    instances = [await limiterOn(), await limiterOn(), await limiterOn()];
  });
  after(async () => {
    for (const limiter of instances) await limiter.close();
    for (const db of databases) await db.close();
    await server.close();
  });

  test('asked at the same moment for the whole limit, three instances admit it once between them', async () => {
    const answers = await Promise.all(instances.flatMap((limiter) => Array.from({ length: 60 }, () => limiter.hit('test:together', 60))));
    assert.equal(answers.filter((a) => a.allowed).length, 60);
    // Each asked for 60: the row counted 180 until the parts past the limit were given back.
    await until(() => hitsOf('test:together'), (hits) => hits === 60, 'the claims past the limit given back', 5_000);
  });

  test('hammered in waves, they never admit more than the limit; a second of quiet later, the rest of it can be had', async () => {
    server.clock.set(Date.UTC(2026, 10, 26, 12, 0, 10)); // the whole test in one window
    const admitted = [0, 0, 0];
    const waves = async (count: number, perInstance: number) => {
      let last: RateLimitResult[] = [];
      for (let wave = 0; wave < count; wave++) {
        last = await Promise.all(
          instances.flatMap((limiter, i) =>
            Array.from({ length: perInstance }, async () => {
              const answer = await limiter.hit('test:waves', 200);
              if (answer.allowed) admitted[i]!++;
              return answer;
            }),
          ),
        );
        await new Promise((resolve) => setImmediate(resolve));
      }
      return last;
    };
    const last = await waves(12, 7);
    const total = () => admitted.reduce((a, b) => a + b, 0);
    assert.ok(total() <= 200, `admitted ${admitted.join(' + ')} = ${total()} of 200`);
    assert.ok(total() >= 180, `admitted ${admitted.join(' + ')} = ${total()} of 200: claims held by one instance kept more than a tenth from the others`);
    assert.ok(admitted.every((n) => n > 0), `each instance admitted some: ${admitted.join(', ')}`);
    assert.deepEqual(last.map((a) => [a.allowed, a.remaining]), last.map(() => [false, 0]), 'the last wave is refused on all');
    // A second without requests: each gives back what it holds above its first claim (4 of 200).
    server.clock.advance(1_000);
    await until(() => hitsOf('test:waves'), (hits) => hits <= total() + 3 * 4, 'unused claims given back', 5_000);
    await waves(1, 30);
    assert.equal(total(), 200, `admitted ${admitted.join(' + ')} in all`);
  });

  test('while the database refuses connections, an instance counts on its own (one log line); then adds what it admitted', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(JSON.parse(chunk.toString()).msg as string), done()) }));
    const limiter = await limiterOn(logger);
    instances.push(limiter);
    const name = new URL(server.services.config.databaseUrl!).pathname.slice(1);
    const admin = new pg.Client({ connectionString: testClusterUrl() });
    await admin.connect();
    try {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
      const answers: RateLimitResult[] = [];
      for (let i = 0; i < 5; i++) answers.push(await limiter.hit('test:outage', 4));
      assert.deepEqual(answers.map((a) => a.allowed), [true, true, true, true, false]);
      assert.deepEqual(answers.map((a) => a.remaining), [3, 2, 1, 0, 0]);
      await new Promise((resolve) => setTimeout(resolve, 600)); // two ticks fail meanwhile: still one line
      assert.deepEqual(lines, ['rate-limit counts cannot reach the database: this instance limits on its own counts until they can']);
    } finally {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    await until(() => hitsOf('test:outage'), (hits) => hits === 4, 'the hits admitted offline reach the row', 10_000);
    assert.equal(lines[1], 'rate-limit counts reach the database again');
  });
});
