/**
 * The webhook outbox on PostgreSQL, where another instance may delete an endpoint while a change
 * that announces an event is being written: the change is stored, and the deleted endpoint gets no
 * delivery (it used to fail the whole change on the deliveries' foreign key: a payment's receipt
 * answered 500). SQLite runs one writer at a time, so this runs in the PostgreSQL half only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { testClusterUrl } from '../helpers/test-database.ts';
import { startTestServer, type TestServer } from '../helpers/test-server.ts';

describe('the webhook outbox beside a deleted endpoint', { skip: testClusterUrl() ? false : 'concurrent writers are PostgreSQL only: runs in the PostgreSQL half' }, () => {
  let server: TestServer;
  let merchantId: string;
  let other: pg.Client;

  before(async () => {
    server = await startTestServer();
    merchantId = (await server.createMerchant('Outbox Shop')).merchant.id;
    other = new pg.Client({ connectionString: server.services.config.databaseUrl! });
    await other.connect();
  });
  after(async () => {
    await other?.end();
    await server?.close();
  });

  let sequence = 0;
  const newEndpoint = async () => {
    const id = `ep-outbox-${++sequence}`;
    await server.services.uow.stores.webhooks.insertEndpoint({ id, merchantId, url: 'https://shop.example/hook', events: null, secretSealed: 'sealed', createdAt: Date.now(), disabledAt: null, disabledReason: null });
    return id;
  };
  const event = () => ({ id: `msg_outbox_${++sequence}`, merchantId, subjectId: null, type: 'payment.completed', body: '{}', createdAt: Date.now() });
  const deliveriesOf = async (eventId: string) =>
    Number((await server.services.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM webhook_deliveries WHERE event_id = ?', [eventId]))!.n);
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  test('an endpoint deleted after it was read gets no delivery, and the change is stored', async () => {
    const [kept, deleted] = [await newEndpoint(), await newEndpoint()];
    const announced = event();
    await server.services.uow.transaction(async (stores) => {
      const endpoints = await stores.webhooks.enabledEndpointsOf(merchantId);
      await other.query('DELETE FROM webhook_endpoints WHERE id = $1', [deleted]);
      await stores.webhooks.insertEvent(announced, endpoints.map((e) => e.id).filter((id) => id === kept || id === deleted));
    });
    assert.equal(await deliveriesOf(announced.id), 1, 'the kept endpoint got its delivery');
  });

  test('a delete in flight is waited for; a delete after the read waits for the change and takes its deliveries', async () => {
    const endpoint = await newEndpoint();
    // Deleted by a transaction that has not committed when the change writes its deliveries.
    await other.query('BEGIN');
    await other.query('DELETE FROM webhook_endpoints WHERE id = $1', [endpoint]);
    const first = event();
    const written = server.services.uow.transaction((stores) => stores.webhooks.insertEvent(first, [endpoint]));
    await pause(200);
    await other.query('COMMIT');
    await written;
    assert.equal(await deliveriesOf(first.id), 0);

    // Deleted while a change that queued it is still open: the delete waits, then removes the delivery.
    const second = await newEndpoint();
    const later = event();
    let deleted: Promise<unknown> | undefined;
    await server.services.uow.transaction(async (stores) => {
      await stores.webhooks.insertEvent(later, [second]);
      deleted = other.query('DELETE FROM webhook_endpoints WHERE id = $1', [second]);
      await pause(200);
      const waiting = await server.services.db.get<{ n: number }>(
        "SELECT COUNT(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'DELETE FROM webhook_endpoints%'",
      );
      assert.equal(Number(waiting!.n), 1, 'the delete waits for the change to end');
    });
    await deleted;
    assert.equal(await deliveriesOf(later.id), 0, 'the delete took the new delivery with it');
  });
});
