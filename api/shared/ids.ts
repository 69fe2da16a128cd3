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

/** A list query with its `ids` filter in stored form (a value that is no UUID is kept, and matches nothing). */
export function withStoredIds<Q extends { ids?: string[] | undefined }>(query: Q): Q {
  return query.ids ? { ...query, ids: query.ids.map((id) => storedId(id) ?? id) } : query;
}
