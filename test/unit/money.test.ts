/** Money: amounts rendered with exactly the asset's decimals, the same whichever path renders them. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Amount, formatAmount, isAboveZero, isAtMostMaxAmount, MAX_AMOUNT_TEXT } from '../../api/shared/money.ts';

describe('formatAmount', () => {
  test('renders exactly `decimals` fractional digits, from strings and from exact amounts alike', () => {
    for (const [value, decimals, expected] of [
      ['0.01', 8, '0.01000000'],
      ['0.01000000', 8, '0.01000000'],
      ['01.5', 8, '1.50000000'],
      ['25', 6, '25.000000'],
      ['25.000000', 6, '25.000000'],
      ['1000000000', 0, '1000000000'],
      ['0', 0, '0'],
      ['0.0', 0, '0'],
      ['7.10', 2, '7.10'],
      ['7.1', 2, '7.10'],
    ] as const) {
      assert.equal(formatAmount(value, decimals), expected, `${value} at ${decimals}`);
      assert.equal(formatAmount(new Amount(value), decimals), expected, `Amount(${value}) at ${decimals}`);
    }
  });

  test('refuses more fractional digits than the asset has, in either form', () => {
    assert.throws(() => formatAmount('0.123456789', 8), /more than 8 fractional digits/);
    assert.throws(() => formatAmount('1.0000001', 6), /more than 6 fractional digits/);
    assert.throws(() => formatAmount(new Amount('0.001'), 2), /more than 2 fractional digits/);
  });

  test('gives the same text for 20,000 random amounts whether or not they are already in final form', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 20_000; i++) {
      const decimals = Math.floor(random() * 9);
      const whole = String(Math.floor(random() * 10 ** (1 + Math.floor(random() * 9))));
      const fraction = Array.from({ length: Math.floor(random() * (decimals + 1)) }, () => Math.floor(random() * 10)).join('');
      const text = fraction ? `${whole}.${fraction}` : whole;
      const viaAmount = new Amount(text).toFixed(decimals);
      assert.equal(formatAmount(text, decimals), viaAmount, text);
      assert.equal(formatAmount(viaAmount, decimals), viaAmount, viaAmount);
    }
  });
});

describe('request amount bounds', () => {
  const max = new Amount(MAX_AMOUNT_TEXT);
  const agree = (text: string) => {
    assert.equal(isAboveZero(text), new Amount(text).gt(0), `${text} > 0`);
    assert.equal(isAtMostMaxAmount(text), new Amount(text).lte(max), `${text} <= ${MAX_AMOUNT_TEXT}`);
  };

  test('decide the edges as exact decimals do', () => {
    for (const [text, above, atMost] of [
      ['0', false, true],
      ['0000', false, true],
      ['0.000', false, true],
      ['0.0000001', true, true],
      ['1000000000', true, true],
      ['1000000000.0000', true, true],
      ['0001000000000.0', true, true],
      ['1000000000.0000001', true, false],
      ['1000000001', true, false],
      ['9999999999', true, false],
      ['10000000000', true, false],
      ['999999999.99999999', true, true],
      ['000999999999', true, true],
    ] as const) {
      assert.equal(isAboveZero(text), above, `${text} > 0`);
      assert.equal(isAtMostMaxAmount(text), atMost, `${text} <= ${MAX_AMOUNT_TEXT}`);
      agree(text);
    }
  });

  test('agree with exact decimals on 20,000 random amounts around the bounds', () => {
    let seed = 11;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const digits = (length: number, pick: () => string) => Array.from({ length }, pick).join('');
    for (let i = 0; i < 20_000; i++) {
      const zeros = '0'.repeat(Math.floor(random() * 3));
      // Whole parts of 0 to 12 digits, often all zeros, nines, or 1 followed by zeros.
      const shape = Math.floor(random() * 4);
      const length = Math.floor(random() * 13);
      const whole = [() => digits(length, () => String(Math.floor(random() * 10))), () => '0'.repeat(length), () => '9'.repeat(length), () => (length ? `1${'0'.repeat(length - 1)}` : '')][shape]!();
      const fractionLength = Math.floor(random() * 4);
      const fraction = digits(fractionLength, () => (random() < 0.6 ? '0' : String(Math.floor(random() * 10))));
      const text = `${zeros}${whole || '0'}${fraction ? `.${fraction}` : ''}`;
      agree(text);
    }
  });
});
