/** @module The median of several quotes, exactly. */
import { Amount } from '../shared/money.ts';

/**
 * The median of positive decimal strings: the middle one, or with an even count the mean of the
 * middle two (exact: halving a decimal adds one digit at most). Canonical form, no exponent.
 */
export function median(values: readonly string[]): string {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = values.map((value) => new Amount(value)).sort((a, b) => a.comparedTo(b));
  const middle = Math.floor(sorted.length / 2);
  const result = sorted.length % 2 === 1 ? sorted[middle]! : sorted[middle - 1]!.plus(sorted[middle]!).div(2);
  return result.toFixed();
}
