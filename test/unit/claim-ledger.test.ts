/**
 * One instance's claims on a shared rate-limit count, without a database: what it answers from
 * memory, what each batched statement sends, and what it makes of the counts that come back. The
 * clock is a number the test moves. (Several instances on a real PostgreSQL: test/api/rate-limits.test.ts.)
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type ClaimLedger, createClaimLedger, NEEDS_CLAIM, type PlannedRow } from '../../api/rate-limits/claim-ledger.ts';
import type { RateLimitResult } from '../../api/rate-limits/rate-limit-result.ts';

const MINUTE = Date.UTC(2026, 10, 26, 9, 0, 0);
const BUCKET = 'merchant:k1';

// Settles a plan as the database would answer it when the row stood at `before`.
function settleFrom(ledger: ClaimLedger, rows: PlannedRow[], before: number): number {
  let after = before;
  ledger.settle(rows, (row) => (after = before + row.delta));
  return after;
}

function allowed(answer: RateLimitResult | typeof NEEDS_CLAIM): RateLimitResult {
  assert.notEqual(answer, NEEDS_CLAIM, 'answered from memory');
  return answer as RateLimitResult;
}

describe('claim ledger', () => {
  test('a first request waits for a claim of 1/64 of the limit; the next ones are answered from memory', () => {
    const ledger = createClaimLedger();
    assert.equal(ledger.decide(BUCKET, 6400, MINUTE + 10_000), NEEDS_CLAIM);
    const rows = ledger.plan(MINUTE + 10_000);
    assert.deepEqual(rows, [{ bucket: BUCKET, windowStart: MINUTE, delta: 100, claim: 100, unbacked: 0 }]);
    settleFrom(ledger, rows, 0);
    assert.deepEqual(ledger.decide(BUCKET, 6400, MINUTE + 10_000), { allowed: true, remaining: 6399, resetSeconds: 50 });
    for (let i = 2; i <= 49; i++) allowed(ledger.decide(BUCKET, 6400, MINUTE + 10_000));
    assert.equal(ledger.urgent, false, 'half of the claim left: no statement yet');
    assert.deepEqual(ledger.plan(MINUTE + 10_000), [], 'nothing to send while the bucket is busy');
  });

  test('claims more before the claim runs out, twice as much each time, at most an eighth of what is left', () => {
    const ledger = createClaimLedger();
    ledger.decide(BUCKET, 1000, MINUTE);
    let row = settleFrom(ledger, ledger.plan(MINUTE), 0);
    const claims: number[] = [];
    let admitted = 0;
    for (let i = 0; i < 2000; i++) {
      const answer = ledger.decide(BUCKET, 1000, MINUTE);
      if (answer === NEEDS_CLAIM || ledger.urgent) {
        const rows = ledger.plan(MINUTE);
        claims.push(...rows.map((r) => r.claim));
        row = settleFrom(ledger, rows, row);
      }
      if (answer !== NEEDS_CLAIM && answer.allowed) admitted++;
    }
    assert.equal(admitted, 1000, 'every hit claimed was admitted');
    assert.equal(row, 1000);
    // 16 first, then doubling until an eighth of what is left is less; near the limit, down to 1.
    assert.deepEqual(claims.slice(0, 6), [32, 64, 111, 98, 85, 75]);
    assert.equal(claims.length, 42, 'statements for 1,000 requests: most of them for the last hundred');
    const refused = ledger.decide(BUCKET, 1000, MINUTE + 1000);
    assert.deepEqual(refused, { allowed: false, remaining: 0, resetSeconds: 59 });
  });

  test('a claim past the limit is granted only up to it, and the rest given back at the next statement', () => {
    const ledger = createClaimLedger();
    for (let i = 0; i < 3; i++) assert.equal(ledger.decide(BUCKET, 64, MINUTE), NEEDS_CLAIM);
    const rows = ledger.plan(MINUTE);
    assert.deepEqual(rows, [{ bucket: BUCKET, windowStart: MINUTE, delta: 3, claim: 3, unbacked: 0 }], 'as much as waits');
    // Other instances had claimed 62 of 64: two of the three are granted.
    assert.equal(settleFrom(ledger, rows, 62), 65);
    assert.deepEqual(allowed(ledger.decide(BUCKET, 64, MINUTE)), { allowed: true, remaining: 1, resetSeconds: 60 });
    assert.deepEqual(allowed(ledger.decide(BUCKET, 64, MINUTE)), { allowed: true, remaining: 0, resetSeconds: 60 });
    assert.deepEqual(ledger.decide(BUCKET, 64, MINUTE), { allowed: false, remaining: 0, resetSeconds: 60 });
    assert.deepEqual(ledger.plan(MINUTE), [{ bucket: BUCKET, windowStart: MINUTE, delta: -1, claim: 0, unbacked: 0 }], 'the hit past the limit goes back');
  });

  test('refuses from memory while the row is full, and reads it again (no write) at the next statement', () => {
    const ledger = createClaimLedger();
    ledger.decide(BUCKET, 10, MINUTE);
    // Other instances had claimed 9 of 10: this one gets the last.
    settleFrom(ledger, ledger.plan(MINUTE), 9);
    assert.deepEqual(allowed(ledger.decide(BUCKET, 10, MINUTE)), { allowed: true, remaining: 0, resetSeconds: 60 });
    for (let i = 0; i < 3; i++) assert.deepEqual(ledger.decide(BUCKET, 10, MINUTE), { allowed: false, remaining: 0, resetSeconds: 60 });
    const read = ledger.plan(MINUTE);
    assert.deepEqual(read, [{ bucket: BUCKET, windowStart: MINUTE, delta: 0, claim: 0, unbacked: 0 }]);
    // Another instance gave 3 back.
    settleFrom(ledger, read, 7);
    assert.equal(ledger.decide(BUCKET, 10, MINUTE), NEEDS_CLAIM, 'room again: claim it');
  });

  test('an idle bucket gives back what it holds above its first claim once, then is not written again', () => {
    const ledger = createClaimLedger();
    ledger.decide(BUCKET, 640, MINUTE);
    let row = settleFrom(ledger, ledger.plan(MINUTE), 0);
    for (let i = 0; i < 8; i++) {
      if (ledger.decide(BUCKET, 640, MINUTE) === NEEDS_CLAIM || ledger.urgent) row = settleFrom(ledger, ledger.plan(MINUTE), row);
    }
    assert.equal(row, 30, 'claims of 10 and 20');
    assert.deepEqual(ledger.plan(MINUTE + 999), [], 'not idle for a second yet');
    const giveBack = ledger.plan(MINUTE + 1000);
    assert.deepEqual(giveBack, [{ bucket: BUCKET, windowStart: MINUTE, delta: -12, claim: 0, unbacked: 0 }], '22 held, 10 kept');
    settleFrom(ledger, giveBack, row);
    assert.equal(ledger.pending, false);
    assert.deepEqual(ledger.plan(MINUTE + 5000), []);
  });

  test('when the database fails, counts on its own up to the limit, then adds those hits to the row', () => {
    const ledger = createClaimLedger();
    ledger.decide(BUCKET, 5, MINUTE);
    const claim = ledger.plan(MINUTE);
    ledger.fail(claim);
    assert.equal(ledger.offline, true);
    // The request that waited is decided again by its caller, like the ones after it: from memory.
    const answers = [1, 2, 3, 4, 5, 6].map(() => allowed(ledger.decide(BUCKET, 5, MINUTE)).allowed);
    assert.deepEqual(answers, [true, true, true, true, true, false]);
    const unbacked = ledger.plan(MINUTE);
    assert.deepEqual(unbacked, [{ bucket: BUCKET, windowStart: MINUTE, delta: 5, claim: 0, unbacked: 5 }], 'no claim while offline: the hits admitted');
    ledger.fail(unbacked);
    const again = ledger.plan(MINUTE);
    assert.deepEqual(again, [{ bucket: BUCKET, windowStart: MINUTE, delta: 5, claim: 0, unbacked: 5 }], 'sent again after a second failure');
    settleFrom(ledger, again, 0);
    assert.equal(ledger.offline, false);
  });

  test('hits given back in a statement that failed are not given back twice', () => {
    const ledger = createClaimLedger();
    ledger.decide(BUCKET, 64, MINUTE);
    ledger.decide(BUCKET, 64, MINUTE);
    const rows = ledger.plan(MINUTE);
    settleFrom(ledger, rows, 63);
    ledger.decide(BUCKET, 64, MINUTE);
    const back = ledger.plan(MINUTE);
    assert.equal(back[0]!.delta, -1);
    ledger.fail(back);
    assert.deepEqual(ledger.plan(MINUTE), []);
  });

  test('a new minute starts from nothing, and the final statement gives back everything held', () => {
    const ledger = createClaimLedger();
    ledger.decide(BUCKET, 640, MINUTE);
    settleFrom(ledger, ledger.plan(MINUTE), 0);
    assert.equal(ledger.decide(BUCKET, 640, MINUTE + 60_000), NEEDS_CLAIM);
    const rows = ledger.plan(MINUTE + 60_000);
    assert.deepEqual(rows, [{ bucket: BUCKET, windowStart: MINUTE + 60_000, delta: 10, claim: 10, unbacked: 0 }]);
    settleFrom(ledger, rows, 0);
    allowed(ledger.decide(BUCKET, 640, MINUTE + 60_000));
    assert.deepEqual(ledger.plan(MINUTE + 60_000, true), [{ bucket: BUCKET, windowStart: MINUTE + 60_000, delta: -9, claim: 0, unbacked: 0 }]);
  });
});
