/**
 * @module From a fiat price to an asset amount: `ceil(price × (1 + spread/100) ÷ rate)` to the
 * asset's decimals, rounded up once, at the end, so the payer never pays less than the price. All
 * in integers (BigInt) from the decimal strings: no float, no intermediate rounding.
 */

// A decimal string as an integer and a power of ten: "19.99" is 1999 × 10^-2.
function scaled(value: string): { units: bigint; scale: number } {
  if (!/^[0-9]+(\.[0-9]+)?$/.test(value)) throw new Error(`not a plain decimal: "${value}"`);
  const [whole, fraction = ''] = value.split('.');
  return { units: BigInt(whole! + fraction), scale: fraction.length };
}

const TEN = 10n;

/**
 * The asset amount (with exactly `decimals` fractional digits) that pays `price` at `rate`
 * currency units per asset unit, raised by `spreadPercent`: the smallest multiple of 10^-decimals
 * at or above the exact quotient.
 */
export function assetAmountFor(price: string, spreadPercent: string, rate: string, decimals: number): string {
  const p = scaled(price);
  const s = scaled(spreadPercent);
  const r = scaled(rate);
  if (r.units === 0n) throw new Error('a rate of zero converts nothing');
  // price × (100 + spread) / 100 / rate × 10^decimals, as one fraction of integers.
  const factor = 100n * TEN ** BigInt(s.scale) + s.units;
  const numerator = p.units * factor * TEN ** BigInt(decimals + r.scale);
  const denominator = r.units * 100n * TEN ** BigInt(p.scale + s.scale);
  const units = (numerator + denominator - 1n) / denominator;
  const digits = units.toString().padStart(decimals + 1, '0');
  return decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}
