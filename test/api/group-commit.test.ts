/** Group commit: writes asked for together share one transaction, and each fails alone. */
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { createGroupCommit, MAX_GROUP } from '../../api/db/group-commit.ts';

describe('group commit', () => {
  let dir: string;
  let db: Database.Database;
  let observer: Database.Database;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-group-'));
    db = new Database(path.join(dir, 'test.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.exec(`CREATE TABLE parents (id INTEGER PRIMARY KEY);
             CREATE TABLE items (name TEXT PRIMARY KEY, parent INTEGER REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED)`);
    // Another connection sees only what is committed.
    observer = new Database(path.join(dir, 'test.db'));
  });
  afterEach(() => {
    observer.close();
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const committedRows = () => (observer.prepare('SELECT COUNT(*) AS n FROM items').get() as { n: number }).n;
  /** Resolves like `pending`, with how many rows another connection saw at that moment. */
  const seenWhenSettled = (pending: Promise<unknown>) => pending.then(committedRows, committedRows);
  const stored = () => (db.prepare('SELECT name FROM items ORDER BY name').all() as Array<{ name: string }>).map((r) => r.name);
  const insert = (name: string, parent: number | null = null) => () => db.prepare('INSERT INTO items (name, parent) VALUES (?, ?)').run(name, parent).changes;

  test('commits the writes asked for in one turn of the event loop together, and settles each after the commit', async () => {
    const writes = createGroupCommit(db);
    const pending = ['a', 'b', 'c', 'd'].map((name) => writes.run(insert(name)));
    const seen = pending.map(seenWhenSettled);
    assert.deepEqual(stored(), [], 'nothing is written before the group runs');
    assert.deepEqual(await Promise.all(pending), [1, 1, 1, 1]);
    assert.deepEqual(await Promise.all(seen), [4, 4, 4, 4], 'the first caller to hear back already sees all four committed');
    assert.equal(await seenWhenSettled(writes.run(insert('e'))), 5);
    assert.equal(await seenWhenSettled(writes.run(insert('f'))), 6, 'writes asked for one after another commit one by one');
    assert.deepEqual(stored(), ['a', 'b', 'c', 'd', 'e', 'f']);
  });

  test('rolls back a unit that throws, alone, and gives its caller the error', async () => {
    const writes = createGroupCommit(db);
    const results = await Promise.allSettled([
      writes.run(insert('a')),
      writes.run(() => {
        insert('b')();
        throw new Error('refused after writing');
      }),
      writes.run(insert('a')), // a duplicate key: SQLite refuses the statement
      writes.run(insert('c')),
    ]);
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
      [1, 'refused after writing', 'UNIQUE constraint failed: items.name', 1],
    );
    assert.deepEqual(stored(), ['a', 'c']);
  });

  test('refuses work that returns a promise, rolling back what it wrote', async () => {
    const writes = createGroupCommit(db);
    const result = writes.run(async () => insert('async')());
    await assert.rejects(result, { name: 'TypeError', message: 'group commit work must be synchronous; it returned a promise' });
    assert.deepEqual(stored(), []);
  });

  test('fails every unit and stores none when the commit fails', async () => {
    const writes = createGroupCommit(db);
    const results = await Promise.allSettled([writes.run(insert('a')), writes.run(insert('orphan', 42)), writes.run(insert('c'))]);
    for (const result of results) {
      assert.equal(result.status, 'rejected');
      assert.match((result.reason as Error).message, /FOREIGN KEY constraint failed/);
    }
    assert.deepEqual(stored(), []);
    assert.equal(committedRows(), 0);
    assert.equal(db.inTransaction, false);
    assert.equal(await writes.run(insert('after')), 1, 'the next group starts clean');
  });

  test('fails every unit, and runs none after it, when an error ends the whole transaction', async () => {
    const writes = createGroupCommit(db);
    let ranAfter = false;
    const results = await Promise.allSettled([
      writes.run(insert('a')),
      writes.run(() => {
        // What SQLite does on a full disk or an I/O error: the transaction is gone.
        db.exec('ROLLBACK');
        throw new Error('disk full');
      }),
      writes.run(() => {
        ranAfter = true;
        return insert('c')();
      }),
    ]);
    assert.deepEqual(
      results.map((r) => r.status === 'rejected' && (r.reason as Error).message),
      ['disk full', 'disk full', 'disk full'],
    );
    assert.equal(ranAfter, false);
    assert.deepEqual(stored(), []);
  });

  test(`splits more than ${MAX_GROUP} simultaneous units over several transactions, storing all`, async () => {
    const writes = createGroupCommit(db);
    const count = MAX_GROUP * 2 + 5;
    const seen = await Promise.all(Array.from({ length: count }, (_, i) => seenWhenSettled(writes.run(insert(`item-${String(i).padStart(3, '0')}`)))));
    assert.equal(stored().length, count);
    assert.deepEqual([...new Set(seen)], [MAX_GROUP, 2 * MAX_GROUP, count], 'three transactions, each settled after its commit');
  });
});
