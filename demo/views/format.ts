/** Small text formats shared by the store's pages. */

/** "2026-11-21 10:15 UTC" from an ISO timestamp. */
export function utcText(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** "10:15:31 UTC" from an ISO timestamp. */
export function utcTime(iso: string): string {
  return `${iso.slice(11, 19)} UTC`;
}

/** An amount without trailing fractional zeros: "0.01800000" → "0.018". */
export function trimAmount(amount: string): string {
  return amount.includes('.') ? amount.replace(/\.?0+$/, '') : amount;
}

/** "$18.00" from a decimal string of dollars: at least two decimals ("0.5" → "$0.50"), never fewer than given, thousands grouped ("$64,000.12"). */
export function usd(amount: string): string {
  const [whole, fraction = ''] = amount.split('.');
  return `$${whole!.replace(/\B(?=(\d{3})+$)/g, ',')}.${fraction.padEnd(2, '0')}`;
}

/** A network's display name: "bitcoin" → "Bitcoin". */
export function networkName(network: string): string {
  return network.charAt(0).toUpperCase() + network.slice(1);
}
