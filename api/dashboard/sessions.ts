/**
 * @module Dashboard sessions: a random token in an HttpOnly cookie, kept in the database only as
 * its SHA-256, with a CSRF token of its own. A session idle for IDLE_MS is refused (and purged);
 * signing out deletes it, so the cookie is worthless even if it was copied.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../shared/clock.ts';
import type { UnitOfWork } from '../unit-of-work.ts';
import type { DashboardUser } from '../users/user.store.ts';
import type { SessionRecord } from './session.store.ts';

/** A session ends after this long without a request. */
export const IDLE_MS = 12 * 3_600_000;
// Use is written back at most this often: a page of requests costs one write, not one each.
const TOUCH_EVERY_MS = 60_000;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Creates the session use cases. */
export function createSessions(deps: { uow: UnitOfWork; clock: Clock }) {
  const { uow, clock } = deps;
  const store = uow.stores.sessions;
  const peek = (token: string): Promise<SessionRecord | undefined> => store.findLive(hashToken(token), clock() - IDLE_MS);
  return {
    /** Starts a session for a signed-in user: the cookie's token and the CSRF token. */
    async start(user: DashboardUser): Promise<{ token: string; csrfToken: string }> {
      const token = randomBytes(32).toString('base64url');
      const csrfToken = randomBytes(32).toString('base64url');
      await store.insert({ tokenHash: hashToken(token), userId: user.id, csrfToken, now: clock() });
      return { token, csrfToken };
    },

    /** The live session a cookie's token names, marked used now; undefined when unknown, ended or idle too long. */
    async resolve(token: string): Promise<SessionRecord | undefined> {
      const now = clock();
      const session = await store.findLive(hashToken(token), now - IDLE_MS);
      if (session && now - session.lastSeenAt >= TOUCH_EVERY_MS) await store.touch(session.tokenHash, now);
      return session;
    },

    /**
     * The live session a token names, without marking it used: what the page reads again by itself
     * (a live change, an open event stream) is no use, so a forgotten tab still goes idle.
     */
    peek,

    /** Whether the session a token names is still live, without marking it used. */
    async isLive(token: string): Promise<boolean> {
      return (await peek(token)) !== undefined;
    },

    /** Ends the session a token names (sign-out). */
    async end(token: string): Promise<void> {
      await store.delete(hashToken(token));
    },

    /** Deletes sessions idle past their limit (background housekeeping). */
    purgeIdle: () => store.purgeIdle(clock() - IDLE_MS),
  };
}

/** The session use cases. */
export type Sessions = ReturnType<typeof createSessions>;
