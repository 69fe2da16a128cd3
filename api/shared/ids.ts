import { randomUUID } from 'node:crypto';

/** A random UUID v4: unguessable, so it can double as the payer's bearer link. */
export function newId(): string {
  return randomUUID();
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a string has the shape of a UUID (any version). */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
