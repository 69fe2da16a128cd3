/** XMR amounts between decimal strings and the chain's atomic units (piconero, 10^-12 XMR). */

/** Atomic units as an exact decimal string in XMR (12 digits). */
export function fromPiconero(units: bigint): string {
  const digits = units.toString().padStart(13, '0');
  return `${digits.slice(0, -12)}.${digits.slice(-12)}`;
}

/** A decimal amount in XMR (at most 12 fractional digits) as atomic units. */
export function toPiconero(amount: string): bigint {
  const [whole = '0', fraction = ''] = amount.split('.');
  if (fraction.length > 12 && /[1-9]/.test(fraction.slice(12))) throw new Error(`${amount} has more than 12 decimals`);
  return BigInt(whole + fraction.slice(0, 12).padEnd(12, '0'));
}
