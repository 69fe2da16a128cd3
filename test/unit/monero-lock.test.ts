/** A Monero transfer its sender locked (unlock_time) is not counted until it unlocks, by height or by time. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lockedBeyond } from '../../api/networks/monero/monero-follower.ts';

const NOW = Date.parse('2026-11-26T12:00:00Z');

test('an ordinary transfer (unlock_time 0, or none listed) is never locked', () => {
  assert.equal(lockedBeyond({ unlock_time: 0 }, 100, NOW), false);
  assert.equal(lockedBeyond({}, 100, NOW), false);
});

test('below 500,000,000 the unlock time is a block height: locked until the chain reaches it', () => {
  assert.equal(lockedBeyond({ unlock_time: 120 }, 119, NOW), true);
  assert.equal(lockedBeyond({ unlock_time: 120 }, 120, NOW), false);
  assert.equal(lockedBeyond({ unlock_time: 499_999_999 }, 3_000_000, NOW), true);
});

test('from 500,000,000 on it is a Unix time: locked until the clock reaches it', () => {
  const inAYear = Math.floor(NOW / 1000) + 365 * 86_400;
  assert.equal(lockedBeyond({ unlock_time: inAYear }, 3_000_000, NOW), true);
  assert.equal(lockedBeyond({ unlock_time: Math.floor(NOW / 1000) - 1 }, 3_000_000, NOW), false);
  assert.equal(lockedBeyond({ unlock_time: 500_000_000 }, 3_000_000, NOW), false);
});
