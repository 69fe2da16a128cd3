/**
 * Dashboard user use cases: the operator creates, lists, resets and deletes users; a user signs in
 * with an e-mail and password. Failed sign-ins are counted per e-mail (known or not) in the
 * database, so the throttle holds across instances and tells no one which e-mails exist.
 */
import { createHash } from 'node:crypto';
import { UniqueViolation } from '../db/database.ts';
import { type Clock, isoTime } from '../shared/clock.ts';
import { Conflict, NotFound, Throttled, Unauthenticated } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import type { UnitOfWork } from '../unit-of-work.ts';
import { DECOY_HASH, generatePassword, hashPassword, verifyPassword } from './password-hash.ts';
import type { CreateUserInput, SignInInput, UserOutput } from './user.schema.ts';
import type { DashboardUser } from './user.store.ts';

/** Failed sign-ins for one e-mail that a window allows; the next are refused until it ends. */
export const SIGN_IN_FAILURES_ALLOWED = 5;
/** The throttle's window, from the first failure. */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;

/** The user as shown (no hash). */
export function toUserOutput(user: DashboardUser): UserOutput {
  return { id: user.id, merchantId: user.merchantId, email: user.email, role: user.role, createdAt: isoTime(user.createdAt) };
}

const emailHash = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('hex');

/** Creates the user use cases. */
export function createUserService(deps: { uow: UnitOfWork; clock: Clock }) {
  const { uow, clock } = deps;
  const store = uow.stores.users;

  async function byEmail(email: string) {
    const user = await store.findByEmail(email.trim().toLowerCase());
    if (!user) throw new NotFound('user-not-found', `No dashboard user with e-mail "${email}".`);
    return user;
  }

  return {
    /** Creates a user of a merchant with a generated password, returned this once. */
    async create(input: CreateUserInput): Promise<{ user: UserOutput; password: string }> {
      if (!(await uow.stores.merchants.findById(input.merchantId))) throw new NotFound('merchant-not-found', `No merchant with id "${input.merchantId}".`);
      const password = generatePassword();
      const user: DashboardUser = { id: newId(), merchantId: input.merchantId, email: input.email, role: input.role, createdAt: clock() };
      try {
        await store.insert({ ...user, passwordHash: await hashPassword(password) });
      } catch (err) {
        if (err instanceof UniqueViolation) throw new Conflict('duplicate-email', `A dashboard user with e-mail "${input.email}" already exists.`);
        throw err;
      }
      return { user: toUserOutput(user), password };
    },

    /** A merchant's users, oldest first; a merchant that does not exist is an error, not an empty list. */
    async list(merchantId: string): Promise<UserOutput[]> {
      if (!(await uow.stores.merchants.findById(merchantId))) throw new NotFound('merchant-not-found', `No merchant with id "${merchantId}".`);
      return (await store.listOf(merchantId)).map(toUserOutput);
    },

    /**
     * Gives a user a new generated password (returned this once), ends every session of theirs and
     * forgets their failed sign-ins: the lock they may have run into (kept in the database, so on
     * every instance) must not refuse the new password.
     */
    async resetPassword(email: string): Promise<{ user: UserOutput; password: string }> {
      const user = await byEmail(email);
      const password = generatePassword();
      const passwordHash = await hashPassword(password);
      await uow.transaction(async (stores) => {
        await stores.users.setPasswordHash(user.id, passwordHash);
        await stores.sessions.deleteOfUser(user.id);
        await stores.users.clearFailures(emailHash(user.email));
      });
      return { user: toUserOutput(user), password };
    },

    /** Deletes a user and their sessions. */
    async delete(email: string): Promise<UserOutput> {
      const user = await byEmail(email);
      await uow.transaction((stores) => stores.users.delete(user.id));
      return toUserOutput(user);
    },

    /**
     * The user an e-mail and password name. Wrong either way is the same 401; after
     * SIGN_IN_FAILURES_ALLOWED failures for an e-mail within SIGN_IN_WINDOW_MS, every attempt is 429
     * until the window ends, whether the e-mail exists or not and whatever the password.
     */
    async signIn(input: SignInInput): Promise<DashboardUser> {
      const hash = emailHash(input.email);
      const now = clock();
      const floor = now - SIGN_IN_WINDOW_MS;
      const throttled = (windowStart: number) => {
        const retryAfter = Math.max(1, Math.ceil((windowStart + SIGN_IN_WINDOW_MS - now) / 1000));
        return new Throttled('rate-limited', `Too many failed sign-ins for this e-mail; try again in ${Math.ceil(retryAfter / 60)} minutes.`, retryAfter);
      };
      const counted = await store.failures(hash, floor);
      if (counted && counted.failures >= SIGN_IN_FAILURES_ALLOWED) throw throttled(counted.windowStart);
      // Counted as a failure before the password is checked, and cleared if it was right: of many
      // attempts sent at once, only the allowed number are checked, the rest are 429 at once.
      const attempt = await store.recordFailure(hash, now, floor);
      if (attempt.failures > SIGN_IN_FAILURES_ALLOWED) throw throttled(attempt.windowStart);
      let user: Awaited<ReturnType<typeof store.findByEmail>>;
      let matches: boolean;
      try {
        user = await store.findByEmail(input.email.trim().toLowerCase());
        // An unknown e-mail costs the same scrypt as a known one.
        matches = await verifyPassword(input.password, user?.passwordHash ?? DECOY_HASH);
      } catch (error) {
        // Not checked (too many sign-ins hashing at once, the database away): not a wrong password.
        await store.forgetAttempt(hash).catch(() => {});
        throw error;
      }
      if (!user || !matches) throw new Unauthenticated('invalid-credentials', 'The e-mail or the password is wrong.');
      await store.clearFailures(hash);
      const { passwordHash: _hash, ...found } = user;
      return found;
    },
  };
}

/** The user use cases. */
export type UserService = ReturnType<typeof createUserService>;
