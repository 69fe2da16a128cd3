/**
 * Group commit (api/db/sqlite-database.ts, `db.grouped`): writes asked for together share one
 * SQLite transaction, each unit in its own savepoint, and each fails alone. This is SQLite's own
 * machinery (PostgreSQL runs `grouped` as a plain transaction), so it runs on SQLite whatever store
 * the suite is on.
 */
import BetterSqlite3 from 'better-sqlite3';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Database, Sql } from '../../api/db/database.ts';
import { FULL_ENOUGH_GROUP, MAX_GROUP, openSqliteDatabase } from '../../api/db/sqlite-database.ts';

describe('group commit', () => {
  let dir: string;
  let db: Database;
  let observer: BetterSqlite3.Database;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-group-'));
    const file = path.join(dir, 'test.db');
    db = openSqliteDatabase(file);
    await db.run('CREATE TABLE parents (id INTEGER PRIMARY KEY)');
    await db.run('CREATE TABLE items (name TEXT PRIMARY KEY, parent INTEGER REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED)');
    // Another connection sees only what is committed.
    observer = new BetterSqlite3(file, { readonly: true });
  });
  afterEach(async () => {
    observer.close();
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const committedRows = () => (observer.prepare('SELECT COUNT(*) AS n FROM items').get() as { n: number }).n;
  /** Resolves like `pending`, with how many rows another connection saw at that moment. */
  const seenWhenSettled = (pending: Promise<unknown>) => pending.then(committedRows, committedRows);
  const stored = async () => (await db.all<{ name: string }>('SELECT name FROM items ORDER BY name')).map((r) => r.name);
  const insert =
    (name: string, parent: number | null = null) =>
    (tx: Sql) =>
      tx.run('INSERT INTO items (name, parent) VALUES (?, ?)', [name, parent]);
  /** A real pause: a later turn of the event loop, after timers and I/O had their chance. */
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  test('commits the writes asked for in one turn of the event loop together, and settles each after the commit', async () => {
    const pending = ['a', 'b', 'c', 'd'].map((name) => db.grouped(insert(name)));
    const seen = pending.map(seenWhenSettled);
    assert.equal(committedRows(), 0, 'nothing is written before the group runs');
    assert.deepEqual(await stored(), [], 'nothing is written before the group runs');
    assert.deepEqual(await Promise.all(pending), [1, 1, 1, 1]);
    assert.deepEqual(await Promise.all(seen), [4, 4, 4, 4], 'the first caller to hear back already sees all four committed');
    assert.equal(await seenWhenSettled(db.grouped(insert('e'))), 5);
    assert.equal(await seenWhenSettled(db.grouped(insert('f'))), 6, 'writes asked for one after another commit one by one');
    assert.deepEqual(await stored(), ['a', 'b', 'c', 'd', 'e', 'f']);
  });

  test('a group smaller than FULL_ENOUGH_GROUP waits one more turn, and what arrives in it joins; a full one goes at once', async () => {
    const first = db.grouped(insert('a'));
    // The next turn of the event loop, as a request read from the socket meanwhile would be.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(committedRows(), 0, 'the small group has not been written yet');
    const second = db.grouped(insert('b'));
    assert.deepEqual(await Promise.all([seenWhenSettled(first), seenWhenSettled(second)]), [2, 2], 'both committed together');

    const full = Array.from({ length: FULL_ENOUGH_GROUP }, (_, i) => db.grouped(insert(`full-${i}`)));
    await new Promise((resolve) => setImmediate(resolve));
    const late = db.grouped(insert('late'));
    const seenFull = await Promise.all(full.map(seenWhenSettled));
    assert.deepEqual(new Set(seenFull), new Set([2 + FULL_ENOUGH_GROUP]), 'the full group went without the next turn');
    assert.equal(await seenWhenSettled(late), 3 + FULL_ENOUGH_GROUP);
  });

  test('rolls back a unit that throws, alone, and gives its caller the error', async () => {
    const results = await Promise.allSettled([
      db.grouped(insert('a')),
      db.grouped(async (tx) => {
        await insert('b')(tx);
        throw new Error('refused after writing');
      }),
      db.grouped(insert('a')), // a duplicate key: SQLite refuses the statement
      db.grouped(insert('c')),
    ]);
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : `${(r.reason as Error).name}: ${(r.reason as Error).message}`)),
      [1, 'Error: refused after writing', 'UniqueViolation: UNIQUE constraint failed: items.name', 1],
    );
    assert.deepEqual(await stored(), ['a', 'c']);
  });

  test("keeps every awaited statement of a unit inside that unit's savepoint, and refuses statements once the transaction has ended", async () => {
    let ended: Sql | undefined;
    let otherRead: string | undefined;
    const results = await Promise.allSettled([
      db.grouped(async (tx) => {
        await insert('a1')(tx);
        await pause(20);
        await insert('a2')(tx);
        return 'a';
      }),
      db.grouped(async (tx) => {
        await insert('b1')(tx);
        // A statement outside the transaction asked for meanwhile would wait for this very unit: it is refused at once.
        await stored().then(
          () => (otherRead = 'answered'),
          (error: Error) => (otherRead = error.name),
        );
        await pause(20);
        await insert('b2')(tx);
        await pause(5);
        throw new Error('refused after two awaited writes');
      }),
      db.grouped(async (tx) => {
        ended = tx;
        await pause(5);
        await insert('c1')(tx);
        return 'c';
      }),
    ]);
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
      ['a', 'refused after two awaited writes', 'c'],
    );
    assert.deepEqual(await stored(), ['a1', 'a2', 'c1'], 'both writes of the failed unit were rolled back, even the one after a pause; the others stand');
    assert.equal(otherRead, 'BareStatementInTransaction', 'the outside read was refused, not queued behind its own transaction');
    assert.equal(committedRows(), 3);

    // The unit's transaction has ended: a statement on it is refused and writes nothing.
    await assert.rejects(insert('late')(ended!), /a statement was run on a transaction that has already ended/);
    let plain: Sql | undefined;
    await db.transaction(async (tx) => {
      plain = tx;
    });
    await assert.rejects(insert('late')(plain!), /a statement was run on a transaction that has already ended/);
    assert.deepEqual(await stored(), ['a1', 'a2', 'c1']);
    assert.equal(committedRows(), 3);
  });

  test('fails every unit and stores none when the commit fails', async () => {
    const results = await Promise.allSettled([db.grouped(insert('a')), db.grouped(insert('orphan', 42)), db.grouped(insert('c'))]);
    for (const result of results) {
      assert.equal(result.status, 'rejected');
      assert.match((result.reason as Error).message, /FOREIGN KEY constraint failed/);
    }
    assert.deepEqual(await stored(), []);
    assert.equal(committedRows(), 0);
    // The connection was not left inside the failed transaction: a new one can begin.
    assert.equal(await db.transaction(async (tx) => insert('in-a-transaction')(tx)), 1);
    assert.equal(await db.grouped(insert('after')), 1, 'the next group starts clean');
    assert.deepEqual(await stored(), ['after', 'in-a-transaction']);
  });

  test('fails every unit, and runs none after it, when an error ends the whole transaction', async () => {
    let ranAfter = false;
    const results = await Promise.allSettled([
      db.grouped(insert('a')),
      db.grouped(async (tx) => {
        // What SQLite does on a full disk or an I/O error: the transaction is gone.
        await tx.run('ROLLBACK');
        throw new Error('disk full');
      }),
      db.grouped(async (tx) => {
        ranAfter = true;
        return insert('c')(tx);
      }),
    ]);
    assert.deepEqual(
      results.map((r) => r.status === 'rejected' && (r.reason as Error).message),
      ['disk full', 'disk full', 'disk full'],
    );
    assert.equal(ranAfter, false);
    assert.deepEqual(await stored(), []);
    assert.equal(committedRows(), 0);
    assert.equal(await db.grouped(insert('after')), 1, 'the next group starts clean');
  });

  test("keeps a group's savepoint journal in memory: no temporary file, whatever the units change", async () => {
    // SQLite journals each page a savepoint changes; past 64 KiB that journal spilled to a temporary
    // file (named etilqs_*, unlinked at once, open until the commit): system calls on every create.
    const temporaryFiles = () =>
      fs
        .readdirSync('/proc/self/fd')
        .map((fd) => {
          try {
            return fs.readlinkSync(`/proc/self/fd/${fd}`);
          } catch {
            return '';
          }
        })
        .filter((target) => target.includes('etilqs_'));
    const filler = 'x'.repeat(3_000);
    await db.transaction(async (tx) => {
      for (let i = 0; i < 200; i++) await tx.run('INSERT INTO items (name) VALUES (?)', [`${String(i).padStart(3, '0')}-${filler}`]);
    });
    let seen: string[] | undefined;
    const units = Array.from({ length: 4 }, (_, unit) =>
      db.grouped(async (tx) => {
        // Every unit rewrites every row (about 600 KiB of pages) and is journaled by its savepoint.
        await tx.run("UPDATE items SET name = substr(name, 1, 3) || '-' || ? || substr(name, 5)", [String(unit)]);
        if (unit === 3) seen = temporaryFiles();
        return unit;
      }),
    );
    assert.deepEqual(await Promise.all(units), [0, 1, 2, 3]);
    assert.deepEqual(seen, []);
    assert.equal((await stored()).length, 200);
  });

  test(`splits more than ${MAX_GROUP} simultaneous units over several transactions, storing all`, async () => {
    const count = MAX_GROUP * 2 + 5;
    const seen = await Promise.all(Array.from({ length: count }, (_, i) => seenWhenSettled(db.grouped(insert(`item-${String(i).padStart(3, '0')}`)))));
    assert.equal((await stored()).length, count);
    assert.deepEqual([...new Set(seen)], [MAX_GROUP, 2 * MAX_GROUP, count], 'three transactions, each settled after its commit');
  });
});
