/**
 * @module Passwords as scrypt hashes (Node's crypto.scrypt, no dependency): `scrypt$N$r$p$salt$hash`,
 * salt and hash in base64url. The parameters travel with the hash, so they can be raised later
 * without making old hashes unreadable. Comparison is constant-time after a length check.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { Throttled } from '../shared/errors.ts';

/** scrypt's cost: N = 2^15, r = 8, p = 1 (OWASP's minimum is N = 2^17 with r = 8 at p = 1 for 64 MiB; 2^15 keeps 32 MiB per sign-in). */
const PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
// Enough for N = 2^15, r = 8 (128 · N · r = 32 MiB) with room.
const MAX_MEMORY = 64 * 1024 * 1024;

/** scrypt runs at most this many at once in the process (each holds 32 MiB and a thread-pool thread for about 60 ms). */
export const HASHES_AT_ONCE = 1;
/** How many more may wait for their turn (about a second's worth); beyond that a sign-in is refused at once. */
export const HASHES_WAITING = 16;

let running = 0;
const queue: Array<() => void> = [];

/**
 * Waits for a turn to hash. Sign-ins are unauthenticated and each costs 32 MiB and tens of
 * milliseconds: without a bound, a burst of them took the service's memory from 114 to 216 MB.
 */
function turn(): Promise<void> {
  if (running < HASHES_AT_ONCE) {
    running += 1;
    return Promise.resolve();
  }
  if (queue.length >= HASHES_WAITING) return Promise.reject(new Throttled('rate-limited', 'Too many sign-ins at this moment; try again in a second.', 1));
  return new Promise((resolve) => queue.push(resolve));
}
function done(): void {
  const next = queue.shift();
  if (next) next();
  else running -= 1;
}

async function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  await turn();
  try {
    return await new Promise((resolve, reject) => {
      scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { ...params, maxmem: MAX_MEMORY }, (err, key) => (err ? reject(err) : resolve(key)));
    });
  } finally {
    done();
  }
}

/** A new hash of `password` with a fresh 16-byte salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` is the one `stored` was made from; false for anything not in our format. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash of no one's password: checked against when the e-mail is unknown, so both cases cost the same. */
export const DECOY_HASH = `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(KEY_LENGTH).toString('base64url')}`;

/** A generated password: 20 characters from a 56-letter alphabet without look-alikes (about 116 bits). */
export function generatePassword(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
  // 256 - 256 % 56 = 224: bytes at or above it are skipped, so every letter is equally likely.
  let out = '';
  while (out.length < 20) for (const byte of randomBytes(32)) if (byte < 224 && out.length < 20) out += alphabet[byte % alphabet.length];
  return out;
}
