/** `npm run cli -- user create|list|reset-password|delete`: dashboard users, for operators. */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadConfig } from '../config.ts';
import { systemClock } from '../shared/clock.ts';
import { DomainError } from '../shared/errors.ts';
import { createLogger } from '../shared/logger.ts';
import { createUnitOfWork } from '../unit-of-work.ts';
import { CreateUserInput, UserEmail } from '../users/user.schema.ts';
import { createUserService, type UserService } from '../users/user.service.ts';
import { parseFlags } from './flags.ts';
import { openCliDatabase } from './cli-services.ts';

/** The usage lines of the user commands. */
export const USER_USAGE = `  npm run cli -- user create --merchant MERCHANT_ID --email EMAIL --role owner|viewer [--json]
  npm run cli -- user list --merchant MERCHANT_ID [--json]
  npm run cli -- user reset-password --email EMAIL [--json]
  npm run cli -- user delete --email EMAIL [--json]`;

type Print = (text: string) => void;

// Opens the configured store and runs `work` with the user use cases; a refusal is worded for the operator.
async function withUsers(work: (users: UserService) => Promise<number>, err: Print): Promise<number> {
  const config = loadConfig();
  const db = await openCliDatabase(config, createLogger('warn'));
  try {
    return await work(createUserService({ uow: createUnitOfWork(db), clock: systemClock }));
  } catch (e) {
    if (e instanceof DomainError) {
      err(`${e.message}\n`);
      return 1;
    }
    throw e;
  } finally {
    await db.close();
  }
}

/** Runs `user <action> …`; returns the exit code. */
export async function userCommand(action: string | undefined, args: string[], out: Print, err: Print): Promise<number> {
  let values: { merchant?: string; email?: string; role?: string; json?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: { merchant: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' }, json: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    err(`${(e as Error).message}\nUsage:\n${USER_USAGE}\n`);
    return 2;
  }
  const missing = (flag: string) => {
    err(`--${flag} is required.\nUsage:\n${USER_USAGE}\n`);
    return 2;
  };
  const json = values.json === true;
  if (action === 'create') {
    if (values.merchant === undefined) return missing('merchant');
    if (values.email === undefined) return missing('email');
    if (values.role === undefined) return missing('role');
    const input = parseFlags(CreateUserInput, { merchantId: values.merchant, email: values.email, role: values.role }, { merchantId: '--merchant', email: '--email', role: '--role' }, err);
    if (!input) return 2;
    return withUsers(async (users) => {
      const created = await users.create(input);
      if (json) out(JSON.stringify(created) + '\n');
      else out(`Dashboard user ${created.user.email} (${created.user.role}) created for merchant ${created.user.merchantId}.\n  Password: ${created.password}\nGive it to them now: it is not shown again.\n`);
      return 0;
    }, err);
  }
  if (action === 'list') {
    if (values.merchant === undefined) return missing('merchant');
    const parsed = parseFlags(z.strictObject({ merchantId: z.uuid('must be a merchant id (a UUID)') }), { merchantId: values.merchant }, { merchantId: '--merchant' }, err);
    if (!parsed) return 2;
    const { merchantId } = parsed;
    return withUsers(async (users) => {
      const data = await users.list(merchantId);
      if (json) out(JSON.stringify({ data }) + '\n');
      else if (data.length === 0) out('No dashboard users for this merchant.\n');
      else out(data.map((u) => `${u.id}  ${u.email}  ${u.role}  created ${u.createdAt}`).join('\n') + '\n');
      return 0;
    }, err);
  }
  if (action === 'reset-password' || action === 'delete') {
    if (values.email === undefined) return missing('email');
    const parsed = parseFlags(z.strictObject({ email: UserEmail }), { email: values.email }, { email: '--email' }, err);
    if (!parsed) return 2;
    const { email } = parsed;
    return withUsers(async (users) => {
      if (action === 'delete') {
        const deleted = await users.delete(email);
        if (json) out(JSON.stringify({ user: deleted }) + '\n');
        else out(`Dashboard user ${deleted.email} deleted; their sessions ended.\n`);
        return 0;
      }
      const reset = await users.resetPassword(email);
      if (json) out(JSON.stringify(reset) + '\n');
      else out(`New password for ${reset.user.email} (every session of theirs ended; failed sign-ins forgotten, so it works at once):\n  Password: ${reset.password}\n`);
      return 0;
    }, err);
  }
  err(`Unknown command "user ${action ?? ''}".\nUsage:\n${USER_USAGE}\n`);
  return 2;
}
