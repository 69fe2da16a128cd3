/** Work gathered over one turn of the event loop: handed over together at the turn's end, or early at `max`. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LeftUnanswered, oneAtATime, perTurn, type Waiting } from '../../api/shared/per-turn.ts';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

// A gatherer that records each batch's items and answers each item with its double.
function doubling(max?: number) {
  const flushed: number[][] = [];
  const gather = perTurn<number, number>((batch) => {
    flushed.push(batch.map((caller) => caller.item));
    for (const caller of batch) caller.resolve(caller.item * 2);
  }, max);
  return { flushed, gather };
}

test("the items of one turn are handed over together at the turn's end, those of the next turn apart", async () => {
  const { flushed, gather } = doubling();
  const answers = [gather(1), gather(2)];
  await Promise.resolve();
  answers.push(gather(3));
  assert.deepEqual(flushed, [], 'nothing before the turn ends');
  await nextTurn();
  assert.deepEqual(flushed, [[1, 2, 3]]);
  assert.deepEqual(await Promise.all(answers), [2, 4, 6], 'each caller gets its own answer');
  const later = gather(4);
  await nextTurn();
  assert.deepEqual(flushed, [[1, 2, 3], [4]]);
  assert.equal(await later, 8);
});

test("at `max` waiting items they are handed over at once, and the rest at the turn's end", async () => {
  const { flushed, gather } = doubling(2);
  const answers = [1, 2, 3, 4, 5].map((i) => gather(i));
  assert.deepEqual(flushed, [
    [1, 2],
    [3, 4],
  ]);
  await nextTurn();
  assert.deepEqual(flushed, [[1, 2], [3, 4], [5]]);
  assert.deepEqual(await Promise.all(answers), [2, 4, 6, 8, 10]);
});

test('a flush that throws fails every caller of its batch, and the next turn flushes again', async () => {
  let fail = true;
  const gather = perTurn<number, number>((batch) => {
    if (fail) throw new Error('the database is closed');
    for (const caller of batch) caller.resolve(caller.item);
  });
  const results = await Promise.allSettled([gather(1), gather(2)]);
  assert.deepEqual(
    results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : r.value)),
    ['the database is closed', 'the database is closed'],
  );
  fail = false;
  assert.equal(await gather(3), 3);
});

test('a flush whose promise rejects fails only the callers it left unanswered', async () => {
  const gather = perTurn<number, number>(async (batch: Array<Waiting<number, number>>) => {
    batch[0]!.resolve(10);
    batch[1]!.reject(new Error('this one alone'));
    await Promise.resolve();
    throw new Error('the transaction failed');
  });
  const results = await Promise.allSettled([gather(1), gather(2), gather(3)]);
  assert.deepEqual(
    results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : r.value)),
    [10, 'this one alone', 'the transaction failed'],
  );
});

test('a caller the flush forgot gets an error instead of waiting forever, whether the flush is synchronous or not', async () => {
  for (const flush of [
    (batch: Array<Waiting<number, number>>) => batch[0]!.resolve(1),
    async (batch: Array<Waiting<number, number>>) => {
      await Promise.resolve();
      batch[0]!.resolve(1);
    },
  ]) {
    const gather = perTurn<number, number>(flush);
    const results = await Promise.allSettled([gather(1), gather(2)]);
    assert.equal(results[0]!.status === 'fulfilled' && results[0]!.value, 1);
    assert.ok(results[1]!.status === 'rejected' && results[1]!.reason instanceof LeftUnanswered);
  }
});

test('a flush that throws when `max` hands a batch over early fails that batch alone', async () => {
  let calls = 0;
  const gather = perTurn<number, number>((batch) => {
    calls += 1;
    if (calls === 1) throw new Error('first batch failed');
    for (const caller of batch) caller.resolve(caller.item);
  }, 2);
  const answers = [1, 2, 3].map((i) => gather(i));
  const results = await Promise.allSettled(answers);
  assert.deepEqual(
    results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : r.value)),
    ['first batch failed', 'first batch failed', 3],
  );
});

// oneAtATime: a gatherer whose flushes each wait for `release` and answer each item with its double.
function heldDoubling(max?: number, patienceMs?: number) {
  const flushed: number[][] = [];
  const releases: Array<() => void> = [];
  const gather = oneAtATime<number, number>(async (batch) => {
    flushed.push(batch.map((caller) => caller.item));
    await new Promise<void>((resolve) => releases.push(resolve));
    for (const caller of batch) caller.resolve(caller.item * 2);
  }, { max, patienceMs });
  return { flushed, gather, release: () => releases.shift()!() };
}

test('one at a time: the items asked for while a flush runs go together after it, however many turns they span', async () => {
  const { flushed, gather, release } = heldDoubling();
  const first = [gather(1), gather(2)];
  assert.deepEqual(flushed, [], 'a caller with nothing running waits for the end of its turn');
  await nextTurn();
  assert.deepEqual(flushed, [[1, 2]]);
  const second = [gather(3)];
  await nextTurn();
  second.push(gather(4));
  await nextTurn();
  assert.deepEqual(flushed, [[1, 2]], 'nothing more while the first flush runs');
  release();
  assert.deepEqual(await Promise.all(first), [2, 4]);
  await nextTurn();
  assert.deepEqual(flushed, [[1, 2], [3, 4]], 'the two turns of waiting items go as one batch');
  release();
  assert.deepEqual(await Promise.all(second), [6, 8]);
  const third = gather(5);
  await nextTurn();
  assert.deepEqual(flushed.at(-1), [5], 'once idle, the next caller starts a batch of its own');
  release();
  assert.equal(await third, 10);
});

test('one at a time: at most `max` a batch, and a failed batch fails alone', async () => {
  let calls = 0;
  const flushed: number[][] = [];
  const gather = oneAtATime<number, number>(async (batch) => {
    flushed.push(batch.map((caller) => caller.item));
    if (++calls === 1) throw new Error('the first batch fails');
    for (const caller of batch) caller.resolve(caller.item);
  }, { max: 2 });
  const results = await Promise.allSettled([1, 2, 3, 4, 5].map((i) => gather(i)));
  assert.deepEqual(flushed, [[1, 2], [3, 4], [5]]);
  assert.deepEqual(
    results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
    ['the first batch fails', 'the first batch fails', 3, 4, 5],
  );
  // A flush that leaves a caller unanswered fails it instead of leaving it waiting.
  const forgetful = oneAtATime<number, number>(async () => {});
  await assert.rejects(forgetful(1), LeftUnanswered);
});

test('one at a time: a flush running past its patience lets the next batch start beside it', async () => {
  const { flushed, gather, release } = heldDoubling(undefined, 300);
  const first = gather(1);
  await nextTurn();
  const second = gather(2);
  await nextTurn();
  await nextTurn();
  assert.deepEqual(flushed, [[1]], 'within its patience, the first flush holds the next batch back');
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.deepEqual(flushed, [[1], [2]], 'past it, the next batch starts while the first still runs');
  release();
  release();
  assert.deepEqual(await Promise.all([first, second]), [2, 4]);
});

test('one at a time: a batch of fewer than one item is refused', () => {
  for (const max of [0, -1, Number.NaN]) assert.throws(() => oneAtATime(async () => {}, { max }), RangeError);
});
