/** The payment state machine (api/payments/payment-status.ts) as pure functions, at fixed instants. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  amountDue,
  decideStatus,
  effectiveStatus,
  isLate,
  isTerminal,
  PAYMENT_STATUSES,
  type PaymentStatus,
  type PaymentTerms,
  type ReceivedFunds,
} from '../../api/payments/payment-status.ts';

const EXPIRES_AT = Date.parse('2026-11-21T11:00:00.000Z');
const BEFORE = EXPIRES_AT - 1;
const AFTER = EXPIRES_AT + 1;

function terms(status: PaymentStatus = 'OPEN', amount = '1.00000000'): PaymentTerms {
  return { status, amount, confirmsNeeded: 3, expiresAt: EXPIRES_AT, tolerancePercent: '0' };
}
function funds(amount: string, confirmations = 0, late = false): ReceivedFunds {
  return { amount, confirmations, late };
}

describe('effectiveStatus', () => {
  test('reports a stored OPEN payment as EXPIRED from expiresAt on, before any sweep', () => {
    assert.equal(effectiveStatus(terms('OPEN'), BEFORE), 'OPEN');
    assert.equal(effectiveStatus(terms('OPEN'), EXPIRES_AT), 'EXPIRED');
    assert.equal(effectiveStatus(terms('OPEN'), AFTER), 'EXPIRED');
  });

  test('leaves every other stored status as it is, whatever the time', () => {
    for (const status of ['CONFIRMING', 'COMPLETE', 'EXPIRED'] as const) {
      assert.equal(effectiveStatus(terms(status), BEFORE), status);
      assert.equal(effectiveStatus(terms(status), AFTER), status);
    }
  });
});

describe('decideStatus', () => {
  test('stays OPEN with nothing received, or too little, before expiry', () => {
    assert.equal(decideStatus(terms(), [], BEFORE), 'OPEN');
    assert.equal(decideStatus(terms(), [funds('0.99999999', 10)], BEFORE), 'OPEN');
  });

  test('OPEN → CONFIRMING once on-time funds cover the amount unconfirmed', () => {
    assert.equal(decideStatus(terms(), [funds('1')], BEFORE), 'CONFIRMING');
    assert.equal(decideStatus(terms(), [funds('0.5', 3), funds('0.5', 2)], BEFORE), 'CONFIRMING');
  });

  test('→ COMPLETE once confirmed funds cover the amount, from OPEN or CONFIRMING', () => {
    assert.equal(decideStatus(terms('OPEN'), [funds('1', 3)], BEFORE), 'COMPLETE');
    assert.equal(decideStatus(terms('CONFIRMING'), [funds('0.5', 3), funds('0.5', 4)], BEFORE), 'COMPLETE');
  });

  test('adds amounts exactly: 0.1 + 0.2 covers 0.3', () => {
    assert.equal(decideStatus(terms('OPEN', '0.30000000'), [funds('0.10000000', 3), funds('0.20000000', 3)], BEFORE), 'COMPLETE');
  });

  test('completes an overpayment', () => {
    assert.equal(decideStatus(terms(), [funds('5', 3)], BEFORE), 'COMPLETE');
  });

  test('CONFIRMING → OPEN when the covering funds are gone before expiry', () => {
    assert.equal(decideStatus(terms('CONFIRMING'), [funds('0.4', 3)], BEFORE), 'OPEN');
  });

  test('CONFIRMING → EXPIRED, never OPEN, when the covering funds are gone after expiry', () => {
    assert.equal(decideStatus(terms('CONFIRMING'), [], AFTER), 'EXPIRED');
  });

  test('OPEN → EXPIRED at expiresAt without covering funds', () => {
    assert.equal(decideStatus(terms(), [funds('0.5', 3)], EXPIRES_AT), 'EXPIRED');
  });

  test('keeps a CONFIRMING payment confirming past expiry, and completes it', () => {
    assert.equal(decideStatus(terms('CONFIRMING'), [funds('1', 1)], AFTER), 'CONFIRMING');
    assert.equal(decideStatus(terms('CONFIRMING'), [funds('1', 3)], AFTER), 'COMPLETE');
  });

  test('ignores late funds: an EXPIRED payment stays EXPIRED however much arrives', () => {
    assert.equal(decideStatus(terms('EXPIRED'), [funds('1', 10, true)], AFTER), 'EXPIRED');
    assert.equal(decideStatus(terms('EXPIRED'), [funds('0.5', 10), funds('0.5', 10, true)], AFTER), 'EXPIRED');
  });

  test('never moves a COMPLETE payment', () => {
    assert.equal(decideStatus(terms('COMPLETE'), [], AFTER), 'COMPLETE');
  });

  test('keeps a stored EXPIRED payment expired even if asked before its expiresAt', () => {
    assert.equal(decideStatus(terms('EXPIRED'), [], BEFORE), 'EXPIRED');
  });
});

describe('amountDue', () => {
  test('is the amount minus on-time funds, confirmed or not', () => {
    assert.equal(amountDue(terms(), []).toFixed(8), '1.00000000');
    assert.equal(amountDue(terms(), [funds('0.25'), funds('0.25', 3)]).toFixed(8), '0.50000000');
  });

  test('does not count late funds', () => {
    assert.equal(amountDue(terms(), [funds('0.4'), funds('0.6', 3, true)]).toFixed(8), '0.60000000');
  });

  test('never goes below zero', () => {
    assert.equal(amountDue(terms(), [funds('3')]).toFixed(8), '0.00000000');
    assert.equal(amountDue(terms(), [funds('3')]).isNegative(), false);
  });

  test('is exact at the smallest unit', () => {
    assert.equal(amountDue(terms('OPEN', '0.00000003'), [funds('0.00000001'), funds('0.00000001')]).toFixed(8), '0.00000001');
  });
});

describe('isLate and isTerminal', () => {
  test('a transaction first seen at or after expiresAt is late', () => {
    assert.equal(isLate(terms(), BEFORE), false);
    assert.equal(isLate(terms(), EXPIRES_AT), true);
    assert.equal(isLate(terms(), AFTER), true);
  });

  test('COMPLETE and EXPIRED are terminal; OPEN and CONFIRMING are not', () => {
    assert.deepEqual(
      PAYMENT_STATUSES.map((s) => [s, isTerminal(s)]),
      [
        ['OPEN', false],
        ['CONFIRMING', false],
        ['COMPLETE', true],
        ['EXPIRED', true],
      ],
    );
  });
});
