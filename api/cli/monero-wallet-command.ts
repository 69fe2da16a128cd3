/** `npm run cli -- wallet --network monero [--json]`: the Monero wallet open in monero-wallet-rpc. */
import { loadConfig } from '../config.ts';
import { createMoneroRpc } from '../networks/monero/monero-rpc.ts';
import { fromPiconero } from '../networks/monero/monero-units.ts';
import { formatCounted } from '../shared/money.ts';

type Print = (text: string) => void;

// monerod's nettype, in the chain names the other networks print (regtest runs as "fakechain").
const CHAINS: Record<string, string> = { mainnet: 'main', fakechain: 'regtest', testnet: 'test', stagenet: 'stage' };

/** Prints the wallet's primary address (where payouts come from) and what it can send now (unlocked). */
export async function moneroWalletCommand(json: boolean, out: Print, err: Print): Promise<number> {
  const config = loadConfig().monero;
  if (!config) {
    err('monero does not run on a wallet here: set MONERO_WALLET_RPC_URL and MONERO_DAEMON_RPC_URL as the service has them.\n');
    return 1;
  }
  const wallet = createMoneroRpc(config.walletRpcUrl);
  const daemon = createMoneroRpc(config.daemonRpcUrl);
  try {
    const { nettype } = await daemon.call<{ nettype: string }>('get_info');
    const { address } = await wallet.call<{ address: string }>('get_address', { account_index: 0 });
    const balance = await wallet.call<{ balance: number | string; unlocked_balance: number | string }>('get_balance', { account_index: 0 });
    const unlocked = fromPiconero(BigInt(balance.unlocked_balance));
    const locked = BigInt(balance.balance) - BigInt(balance.unlocked_balance);
    const shown = { network: 'monero', chain: CHAINS[nettype] ?? nettype, payoutAddress: address, spendable: { XMR: formatCounted(unlocked, 8) } };
    if (json) {
      out(`${JSON.stringify(shown)}\n`);
    } else {
      out(
        `Network:        monero (${shown.chain})\n` +
          `Payout address: ${address} (the wallet's primary address; payouts are sent from this wallet)\n` +
          `Spendable:      ${unlocked} XMR` +
          (locked > 0n ? ` (and ${fromPiconero(locked)} locked: received XMR unlocks after 10 blocks)\n` : '\n'),
      );
    }
    return 0;
  } finally {
    wallet.close();
    daemon.close();
  }
}
