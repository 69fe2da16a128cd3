/** `npm run cli -- sweep --network ethereum [--json]`: sweep every Ethereum payment address now. */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { withServices } from './cli-services.ts';

/** The usage line of the sweep command. */
export const SWEEP_USAGE = '  npm run cli -- sweep --network ethereum [--json]';

type Print = (text: string) => void;

/** Runs `sweep …`; returns the exit code. */
export async function sweepCommand(args: string[], out: Print, err: Print): Promise<number> {
  let values: { network?: string; json?: boolean };
  try {
    ({ values } = parseArgs({ args, options: { network: { type: 'string' }, json: { type: 'boolean' } }, strict: true, allowPositionals: false }));
  } catch (e) {
    err(`${(e as Error).message}\nUsage:\n${SWEEP_USAGE}\n`);
    return 2;
  }
  if (values.network !== 'ethereum') {
    err(`--network ${values.network ?? '(missing)'}: sweeps gather ethereum payments (on bitcoin and litecoin payouts spend the payment outputs directly).\nUsage:\n${SWEEP_USAGE}\n`);
    return 2;
  }
  const config = loadConfig();
  if (!config.ethereum) {
    err('ethereum does not run on a node here: set ETHEREUM_RPC_URL and ETHEREUM_CHAIN_ID as the service has them.\n');
    return 1;
  }
  return withServices(async (services) => {
    const wallet = services.ethereum!;
    if (wallet.payouts.payoutsDisabled) {
      err(`${wallet.payouts.payoutsDisabled}\n`);
      return 1;
    }
    const report = await wallet.sweeper.sweep();
    if (values.json) {
      out(`${JSON.stringify({ payoutAddress: wallet.payouts.payoutAddress, ...report })}\n`);
    } else {
      for (const s of report.swept) out(`swept ${s.amount} ${s.asset} from ${s.address} (${s.txnId})\n`);
      for (const t of report.toppedUp) out(`sent ${t.gas} ETH of gas to ${t.address} for its ${t.asset}; run sweep again once it is mined (${t.txnId})\n`);
      for (const w of report.waiting) out(`waiting: ${w.address} ${w.asset}: ${w.reason}\n`);
      if (report.swept.length + report.toppedUp.length + report.waiting.length === 0) out('nothing to sweep\n');
    }
    return 0;
  });
}
