/**
 * A full SQLite database (the disk is full, as far as SQLite can tell: PRAGMA max_page_count caps the
 * file at its current size) answers 503 storage-unavailable with Retry-After, logs once for the
 * episode instead of once per request, and serves again by itself once there is room. SQLite only:
 * PostgreSQL's outage is test/api/database-outage.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { merchantApi, startTestServer, type TestMerchant, type TestServer } from '../helpers/test-server.ts';
import { testClusterUrl } from '../helpers/test-database.ts';

const BTC = { short: 'BTC', network: 'bitcoin' };

describe('a full SQLite database', { skip: testClusterUrl() ? 'about SQLite: runs in the SQLite half of the suite' : false }, () => {
  let server: TestServer;
  let shop: TestMerchant;
  const warnings: string[] = [];
  before(async () => {
    server = await startTestServer();
    shop = await server.createMerchant('Full Disk Shop');
    // Count what the error handler logs, as an operator's log would show it.
    const logger = server.services.logger as unknown as Record<string, (...args: unknown[]) => void>;
    const warn = logger.warn!.bind(logger);
    logger.warn = (...args: unknown[]) => {
      warnings.push(String(args[1] ?? args[0]));
      warn(...args);
    };
  });
  after(() => server.close());

  test('answers 503 storage-unavailable with Retry-After, logs once, and recovers by itself', async () => {
    const api = merchantApi(server, shop);
    const { page_count: pages } = (await server.services.db.get<{ page_count: number }>('PRAGMA page_count'))!;
    await server.services.db.run(`PRAGMA max_page_count = ${pages}`);
    const answers = [];
    for (let i = 0; i < 400 && answers.filter((a) => a.status === 503).length < 5; i++) {
      answers.push(await api.post('/payment', { amount: '0.01', asset: BTC, invoice: `full-${i}`, customer: { name: 'x'.repeat(200) } }));
    }
    const refused = answers.filter((a) => a.status === 503);
    assert.ok(refused.length >= 5, `the file filled up: ${answers.length} creates, statuses ${[...new Set(answers.map((a) => a.status))].join(', ')}`);
    for (const answer of answers) assert.ok(answer.status === 200 || answer.status === 503, `only 200 or 503, got ${answer.status}`);
    for (const answer of refused) {
      assert.deepEqual(answer.body, {
        error: {
          code: 'storage-unavailable',
          message: 'The database cannot be written right now (the disk may be full or read-only). Try again in a few seconds; nothing of this request was stored.',
        },
      });
      assert.equal(answer.headers.get('retry-after'), '5');
    }
    assert.equal(warnings.filter((w) => w.startsWith('storage-unavailable')).length, 1, 'one log line for the episode');

    // Reads still work meanwhile, and every create that was answered 200 is there.
    for (const answer of answers.filter((a) => a.status === 200).slice(-3)) assert.equal((await api.get(`/payment/${answer.body.id}`)).status, 200);

    await server.services.db.run('PRAGMA max_page_count = 1073741823');
    const after = await api.post('/payment', { amount: '0.01', asset: BTC, invoice: 'after-full' });
    assert.equal(after.status, 200);
  });
});
