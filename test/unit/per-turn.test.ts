/** Work gathered over one turn of the event loop: handed over together at the turn's end, or early at `max`. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { perTurn } from '../../api/shared/per-turn.ts';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test("the items of one turn are handed over together at the turn's end, those of the next turn apart", async () => {
  const flushed: number[][] = [];
  const gather = perTurn<number>((items) => flushed.push(items));
  gather(1);
  gather(2);
  await Promise.resolve();
  gather(3);
  assert.deepEqual(flushed, [], 'nothing before the turn ends');
  await nextTurn();
  assert.deepEqual(flushed, [[1, 2, 3]]);
  gather(4);
  await nextTurn();
  assert.deepEqual(flushed, [[1, 2, 3], [4]]);
});

test('at `max` waiting items they are handed over at once, and the rest at the turn\'s end', async () => {
  const flushed: number[][] = [];
  const gather = perTurn<number>((items) => flushed.push(items), 2);
  for (let i = 1; i <= 5; i++) gather(i);
  assert.deepEqual(flushed, [
    [1, 2],
    [3, 4],
  ]);
  await nextTurn();
  assert.deepEqual(flushed, [[1, 2], [3, 4], [5]]);
});
