import { randomUUID } from 'node:crypto';

/** A random UUID v4: unguessable, so it can double as the payer's bearer link. */
export function newId(): string {
  return randomUUID();
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A record id as stored (UUIDs are case-insensitive; ours are lowercase), or undefined if it is not a UUID. */
export function storedId(value: string): string | undefined {
  return UUID_PATTERN.test(value) ? value.toLowerCase() : undefined;
}

/**
 * The spellings a transaction id may be stored in. A hex id is one number in either case, and
 * networks write them differently (Bitcoin's, Ethereum's and Monero's in lower case, the XRP
 * Ledger's in upper case): it is looked up as given and in both cases. Anything else as given.
 */
export function txnIdSpellings(txnId: string): string[] {
  const hex = /^(0x)?([0-9a-fA-F]+)$/.exec(txnId);
  if (!hex) return [txnId];
  const prefix = hex[1] ?? '';
  return [...new Set([txnId, prefix + hex[2]!.toLowerCase(), prefix + hex[2]!.toUpperCase()])];
}

/**
 * A list query with its record id filters (`ids`, `paymentIds`) in stored form (a value that is no
 * UUID is kept, and matches nothing), and its `txnIds` in every spelling they may be stored in.
 */
export function withStoredIds<Q extends { ids?: string[] | undefined; paymentIds?: string[] | undefined; txnIds?: string[] | undefined }>(query: Q): Q {
  const stored = (ids: string[]) => ids.map((id) => storedId(id) ?? id);
  let result = query;
  if (result.ids) result = { ...result, ids: stored(result.ids) };
  if (result.paymentIds) result = { ...result, paymentIds: stored(result.paymentIds) };
  if (result.txnIds) result = { ...result, txnIds: result.txnIds.flatMap(txnIdSpellings) };
  return result;
}
