/**
 * The unit of work keeps a transaction's stores and the database's apart: in the types (a store of
 * the database cannot be passed where a transaction's is asked for) and, on SQLite, at run time (a
 * statement on the database itself from inside a transaction's work, which holds the only
 * connection, is refused within two turns, where it used to wait for itself forever: the timeout
 * turns such a hang into a failure). Another caller's statement waits for the transaction instead.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../api/db/database.ts';
import { BareStatementInTransaction, openSqliteDatabase } from '../../api/db/sqlite-database.ts';
import { createUnitOfWork, type Stores, type UnitOfWork } from '../../api/unit-of-work.ts';
import { testClusterUrl } from '../helpers/test-database.ts';

describe('the SQLite unit of work', { timeout: 10_000, skip: testClusterUrl() ? 'about the SQLite driver: runs in the SQLite half' : false }, () => {
  let dir: string;
  let db: Database;
  let uow: UnitOfWork;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-uow-'));
    db = openSqliteDatabase(path.join(dir, 'checkout.db'));
    uow = createUnitOfWork(db);
  });
  after(async () => {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('refuses a bare read inside a read transaction instead of waiting for itself', async () => {
    const outcome = uow.snapshot(async () => uow.stores.merchants.findById('m1'));
    await assert.rejects(outcome, (error) => error instanceof BareStatementInTransaction);
    // The transaction ended and gave the connection back: the database answers again.
    assert.equal(await uow.stores.merchants.findById('m1'), undefined);
  });

  test('refuses a bare write inside a write transaction and stores nothing of that transaction', async () => {
    const outcome = uow.transaction(async (stores) => {
      await stores.leases.acquire('job-a', 'owner-1', 0, 1_000);
      return db.run('DELETE FROM job_leases');
    });
    await assert.rejects(outcome, (error) => error instanceof BareStatementInTransaction);
    assert.equal(await db.get('SELECT name FROM job_leases'), undefined);
  });

  test("lets another caller's bare statement wait for a transaction that is getting on", async () => {
    // Two requests answered in the same turn: one's read transaction holds the connection when the
    // other asks for a statement outside any transaction. The second waits; it is not its own.
    const order: string[] = [];
    const snapshot = uow.snapshot(async (stores) => {
      await stores.merchants.findById('m1');
      await Promise.resolve();
      order.push('transaction');
      return 'snapshot';
    });
    const bareRead = uow.stores.merchants.findById('m1').then((merchant) => {
      order.push('bare');
      return merchant ?? 'none';
    });
    assert.deepEqual(await Promise.all([snapshot, bareRead]), ['snapshot', 'none']);
    assert.deepEqual(order, ['transaction', 'bare']);

    // A bare write waits for the write transaction ahead of it, and then runs on its own, after it.
    const transaction = uow.transaction(async (stores) => {
      await stores.leases.acquire('job-c', 'owner-1', 0, 1_000);
      await Promise.resolve();
      return 'committed';
    });
    const bareWrite = db.run("DELETE FROM job_leases WHERE name = 'job-c'");
    assert.deepEqual(await Promise.all([transaction, bareWrite]), ['committed', 1]);
    assert.equal(await db.get("SELECT name FROM job_leases WHERE name = 'job-c'"), undefined);
  });

  test('lets the transaction itself and later transactions run', async () => {
    const [one, two] = await Promise.all([
      uow.transaction(async (stores) => (await stores.leases.acquire('job-b', 'owner-1', 0, 1_000)) && 'first'),
      uow.transaction(async (stores) => (await stores.leases.acquire('job-b', 'owner-2', 0, 1_000)) || 'second refused'),
    ]);
    assert.deepEqual([one, two], ['first', 'second refused']);
  });

  test("keeps the database's stores out of a transaction's work in the types", async () => {
    const inTransaction = (stores: Stores): string => stores.boundTo;
    // `npm run typecheck` fails if this call ever compiles: the types are the guard, at run time it would get through.
    // @ts-expect-error the database's stores are not a transaction's
    assert.equal(inTransaction(uow.stores), 'database');
    assert.equal(await uow.snapshot(async (stores) => inTransaction(stores)), 'transaction');
  });
});
