/**
 * @module ISO 4217: the active currency codes and how many minor digits each has (2 for USD and
 * EUR, 0 for JPY, 3 for KWD). Funds, precious metals and testing codes (XAU, XDR, XTS) have no
 * minor unit and price nothing here, so they are left out.
 */

const ZERO_DIGITS = 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF';
const THREE_DIGITS = 'BHD IQD JOD KWD LYD OMR TND';
const FOUR_DIGITS = 'CLF UYW';
const TWO_DIGITS =
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD ' +
  'CAD CDF CHE CHF CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS ' +
  'GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL ' +
  'MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK ' +
  'PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS ' +
  'TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST XCD XCG YER ZAR ZMW ZWG';

const MINOR_DIGITS: ReadonlyMap<string, number> = new Map([
  ...ZERO_DIGITS.split(' ').map((code) => [code, 0] as const),
  ...TWO_DIGITS.split(' ').map((code) => [code, 2] as const),
  ...THREE_DIGITS.split(' ').map((code) => [code, 3] as const),
  ...FOUR_DIGITS.split(' ').map((code) => [code, 4] as const),
]);

/** ISO 4217 codes of no currency a price could be given in: precious metals, funds, testing. */
const NO_MINOR_UNIT = new Set('XAG XAU XBA XBB XBC XBD XDR XPD XPT XSU XTS XUA XXX'.split(' '));

/** Whether `code` is an ISO 4217 code of a precious metal, fund or testing (no minor unit, no prices here). */
export function isNonCurrencyCode(code: string): boolean {
  return NO_MINOR_UNIT.has(code);
}

/** Whether `code` is an active ISO 4217 currency code (upper case, as the contract requires). */
export function isCurrencyCode(code: string): boolean {
  return MINOR_DIGITS.has(code);
}

/** The minor digits of an ISO 4217 currency (2 for USD, 0 for JPY); undefined for anything else. */
export function minorDigits(code: string): number | undefined {
  return MINOR_DIGITS.get(code);
}
