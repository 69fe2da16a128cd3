/** `npm run cli -- withdrawal cancel --id ID`: the operator's cancel of an approved withdrawal that cannot go out. */
import { parseArgs } from 'node:util';
import { CancelRefused } from '../withdrawals/withdrawal-cancel.ts';
import { toWithdrawalOutput } from '../withdrawals/withdrawal.view.ts';
import { withServices } from './cli-services.ts';

/** The usage line of the withdrawal command. */
export const WITHDRAWAL_USAGE = '  npm run cli -- withdrawal cancel --id WITHDRAWAL_ID [--json]';

type Print = (text: string) => void;

/** Runs `withdrawal <action> …`; returns the exit code. */
export async function withdrawalCommand(action: string | undefined, args: string[], out: Print, err: Print): Promise<number> {
  if (action !== 'cancel') {
    err(`Unknown command "withdrawal${action ? ` ${action}` : ''}".\nUsage:\n${WITHDRAWAL_USAGE}\n`);
    return 2;
  }
  let values: { id?: string; json?: boolean };
  try {
    ({ values } = parseArgs({ args, options: { id: { type: 'string' }, json: { type: 'boolean' } }, strict: true, allowPositionals: false }));
  } catch (e) {
    err(`${(e as Error).message}\nUsage:\n${WITHDRAWAL_USAGE}\n`);
    return 2;
  }
  if (!values.id) {
    err(`--id is required.\nUsage:\n${WITHDRAWAL_USAGE}\n`);
    return 2;
  }
  const id = values.id.toLowerCase();
  try {
    return await withServices(async (services) => {
      // The running service's dispatcher finds the withdrawal.cancelled event in the outbox.
      const cancelled = await services.withdrawalCancel.cancelApproved(id);
      const merchant = (await services.merchants.findById(cancelled.merchantId))!;
      const output = toWithdrawalOutput(services.registry, cancelled, merchant);
      if (values.json) out(`${JSON.stringify(output)}\n`);
      else out(`Withdrawal ${output.id} (${output.amount} ${output.asset.short}) is CANCELLED; the amount is back in ${merchant.name}'s available balance.\n`);
      return 0;
    });
  } catch (e) {
    if (!(e instanceof CancelRefused)) throw e;
    err(`${e.message}\n`);
    return 1;
  }
}
