/** Remembered payment stamps: read again whenever the database may have changed, never kept across a change. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { openSqliteDatabase } from '../../api/db/sqlite-database.ts';
import { createPaymentStamps, STAMPS_PER_READ } from '../../api/payments/payment-stamps.ts';
import type { OwnedStamp } from '../../api/payments/payment.store.ts';

const stamp = (version: number, merchantId = 'm1'): OwnedStamp => ({ id: 'p1', merchantId, version, status: 'OPEN', expiresAt: 0 });

function fakeStore(rows: Map<string, OwnedStamp>, onRead: () => void = () => {}) {
  let reads = 0;
  const asked: string[][] = [];
  let failNext: Error | undefined;
  return {
    reads: () => reads,
    /** The ids of each shared read, in order. */
    asked,
    failNextRead: (error: Error) => (failNext = error),
    ownedStampOf: async (id: string) => {
      reads++;
      onRead();
      return rows.get(id);
    },
    ownedStampsOf: async (ids: readonly string[]) => {
      reads++;
      asked.push([...ids]);
      onRead();
      const error = failNext;
      failNext = undefined;
      if (error) throw error;
      return new Map(ids.flatMap((id) => (rows.has(id) ? [[id, rows.get(id)!] as const] : [])));
    },
  };
}

test('a stamp is read once while the generation stands, and again once it moves', async () => {
  const rows = new Map([['p1', stamp(1)]]);
  const store = fakeStore(rows);
  let generation = 1;
  const stamps = createPaymentStamps(store, { changeGeneration: () => generation });
  assert.equal((await stamps.of('p1'))!.version, 1);
  assert.equal((await stamps.of('p1'))!.version, 1);
  assert.equal(store.reads(), 1);
  rows.set('p1', stamp(2));
  generation = 2;
  assert.equal((await stamps.of('p1'))!.version, 2);
  assert.equal(store.reads(), 2);
});

test('a stamp read while the generation moved is used once, not kept', async () => {
  const rows = new Map([['p1', stamp(1)]]);
  let generation = 1;
  const store = fakeStore(rows, () => (generation += 1));
  const stamps = createPaymentStamps(store, { changeGeneration: () => generation });
  await stamps.of('p1');
  await stamps.of('p1');
  assert.equal(store.reads(), 2);
});

test('without a generation (PostgreSQL) every stamp is read; unknown ids are not kept; another merchant gets nothing', async () => {
  const rows = new Map([['p1', stamp(1)]]);
  const store = fakeStore(rows);
  const uncached = createPaymentStamps(store, { changeGeneration: () => undefined });
  await uncached.of('p1');
  await uncached.of('p1');
  assert.equal(store.reads(), 2);

  const other = fakeStore(rows);
  const stamps = createPaymentStamps(other, { changeGeneration: () => 7 });
  assert.equal(await stamps.of('nope'), undefined);
  assert.equal(await stamps.of('nope'), undefined);
  assert.equal(other.reads(), 2);
  assert.equal(await stamps.forMerchant('m2', 'p1'), undefined);
  assert.equal((await stamps.forMerchant('m1', 'p1'))!.version, 1);
});

test('without a generation, the reads of one turn of the event loop share one query, each answered with its own stamp', async () => {
  const rows = new Map([
    ['p1', stamp(1)],
    ['p2', { ...stamp(4, 'm2'), id: 'p2' }],
  ]);
  const store = fakeStore(rows);
  const stamps = createPaymentStamps(store, { changeGeneration: () => undefined });
  // Another reader over the same store (the payer's views beside the records) joins the same query.
  const views = createPaymentStamps(store, { changeGeneration: () => undefined });
  const answers = await Promise.all([stamps.of('p1'), stamps.of('p2'), stamps.forMerchant('m1', 'p1'), stamps.of('nope'), stamps.forMerchant('m1', 'p2'), views.of('p2')]);
  assert.deepEqual(store.asked, [['p1', 'p2', 'nope']]);
  assert.deepEqual(
    answers.map((a) => a && `${a.id}@${a.version}`),
    ['p1@1', 'p2@4', 'p1@1', undefined, undefined, 'p2@4'],
  );
  // The next turn asks again: nothing is kept on PostgreSQL.
  assert.equal((await stamps.of('p2'))!.version, 4);
  assert.deepEqual(store.asked, [['p1', 'p2', 'nope'], ['p2']]);
});

test('a shared read that fails fails every read it carried, and the next turn reads afresh', async () => {
  const rows = new Map([['p1', stamp(1)]]);
  const store = fakeStore(rows);
  const stamps = createPaymentStamps(store, { changeGeneration: () => undefined });
  store.failNextRead(new Error('connection lost'));
  const settled = await Promise.allSettled([stamps.of('p1'), stamps.of('p2')]);
  assert.deepEqual(
    settled.map((s) => (s.status === 'rejected' ? (s.reason as Error).message : 'fulfilled')),
    ['connection lost', 'connection lost'],
  );
  assert.equal((await stamps.of('p1'))!.version, 1);
});

test(`one shared read asks for at most ${STAMPS_PER_READ} ids; more go in the next`, async () => {
  const ids = Array.from({ length: STAMPS_PER_READ * 2 + 5 }, (_, i) => `p${i}`);
  const store = fakeStore(new Map(ids.map((id, i) => [id, { ...stamp(i), id }])));
  const stamps = createPaymentStamps(store, { changeGeneration: () => undefined });
  const answers = await Promise.all(ids.map((id) => stamps.of(id)));
  assert.deepEqual(store.asked.map((batch) => batch.length), [STAMPS_PER_READ, STAMPS_PER_READ, 5]);
  assert.deepEqual(answers.map((a) => a!.version), ids.map((_, i) => i));
});

test('the reads of one turn of the event loop ask the generation once, after each of them began, whichever reader they use', async () => {
  const rows = new Map([['p1', stamp(1)]]);
  let generation = 1;
  let asks = 0;
  const db = {
    changeGeneration: () => {
      asks++;
      return generation;
    },
  };
  const store = fakeStore(rows);
  const stamps = createPaymentStamps(store, db);
  const others = createPaymentStamps(fakeStore(rows), db);
  assert.equal((await stamps.of('p1'))!.version, 1);
  asks = 0;
  const reads = Promise.all([stamps.of('p1'), stamps.forMerchant('m1', 'p1'), others.of('p1')]);
  // Changed by another process after these reads began, before the turn ends: they all see it.
  rows.set('p1', stamp(2));
  generation = 2;
  assert.deepEqual(
    (await reads).map((s) => s!.version),
    [2, 2, 2],
  );
  // One ask for the turn, and one after each read of a row that was not kept.
  assert.equal(asks, 1 + 3);
  asks = 0;
  assert.equal((await Promise.all([stamps.of('p1'), stamps.of('p1'), others.of('p1')])).length, 3);
  assert.equal(asks, 1, 'kept stamps: one ask for the whole turn');
});

test('a database that cannot tell its generation fails the reads of that turn, and the next turn asks again', async () => {
  const rows = new Map([['p1', stamp(1)]]);
  let closed = false;
  const db = {
    changeGeneration: () => {
      if (closed) throw new Error('The database connection is not open');
      return 1;
    },
  };
  const stamps = createPaymentStamps(fakeStore(rows), db);
  closed = true;
  const settled = await Promise.allSettled([stamps.of('p1'), stamps.of('p1')]);
  assert.deepEqual(
    settled.map((s) => (s.status === 'rejected' ? (s.reason as Error).message : 'fulfilled')),
    ['The database connection is not open', 'The database connection is not open'],
  );
  closed = false;
  assert.equal((await stamps.of('p1'))!.version, 1);
});

test("SQLite's change generation moves with this connection's writes and with another connection's commits, not with reads", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stamps-'));
  const file = path.join(dir, 'checkout.db');
  const db = openSqliteDatabase(file);
  const other = openSqliteDatabase(file);
  try {
    const first = db.changeGeneration();
    await db.get('SELECT COUNT(*) AS n FROM merchants');
    assert.equal(db.changeGeneration(), first, 'a read moves nothing');
    await db.run("UPDATE merchants SET name = name WHERE id = 'none'");
    const afterOwnWrite = db.changeGeneration();
    assert.notEqual(afterOwnWrite, first, 'a statement that may write moves it, even one that changed no row');
    await other.run('CREATE TABLE IF NOT EXISTS scratch (x INTEGER)');
    await other.run('INSERT INTO scratch (x) VALUES (1)');
    assert.notEqual(db.changeGeneration(), afterOwnWrite, "another connection's commit moves it");
  } finally {
    await db.close();
    await other.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a database that stops telling its generation has every stamp read, none kept under no generation', async () => {
  const rows = new Map([['p1', stamp(1)]]);
  const store = fakeStore(rows);
  let generation: number | undefined = 1;
  const stamps = createPaymentStamps(store, { changeGeneration: () => generation });
  generation = undefined;
  assert.equal((await stamps.of('p1'))!.version, 1);
  rows.set('p1', stamp(2));
  assert.equal((await stamps.of('p1'))!.version, 2, 'a change made meanwhile shows');
  assert.equal(store.reads(), 2);
});
