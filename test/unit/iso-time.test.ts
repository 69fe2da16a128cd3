import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isoTime } from '../../api/shared/clock.ts';

const DAY_MS = 86_400_000;

describe('isoTime', () => {
  test('renders exactly what Date#toISOString renders, at the edges of days, months, years and leap days', () => {
    const edges = [
      0,
      1,
      DAY_MS - 1,
      Date.UTC(1970, 11, 31, 23, 59, 59, 999),
      Date.UTC(2000, 1, 29, 12, 0, 0, 5),
      Date.UTC(2000, 2, 1),
      Date.UTC(2100, 1, 28, 23, 59, 59, 999),
      Date.UTC(2100, 2, 1),
      Date.UTC(2024, 1, 29, 0, 0, 0, 0),
      Date.UTC(2026, 10, 21, 10, 15, 30, 123),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    ];
    for (const ms of edges) assert.equal(isoTime(ms), new Date(ms).toISOString(), String(ms));
  });

  test('agrees with Date#toISOString on 200,000 random instants from 1970 to 9999', () => {
    const last = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
    let seed = 12345;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 200_000; i++) {
      const ms = Math.floor(random() * last);
      assert.equal(isoTime(ms), new Date(ms).toISOString());
    }
  });

  test('leaves instants outside 1970-9999 and fractional milliseconds to Date, including its errors', () => {
    for (const ms of [-1, Date.UTC(1969, 6, 20, 20, 17), Date.UTC(10000, 0, 1), 1.5]) assert.equal(isoTime(ms), new Date(ms).toISOString());
    assert.throws(() => isoTime(Number.NaN), RangeError);
  });
});
