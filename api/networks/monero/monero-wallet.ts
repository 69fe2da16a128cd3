/**
 * @module The installation's Monero wallet, as a monero-wallet-rpc holds it open: checked at
 * start-up (both servers answer, the wallet is on the daemon's chain), its keys read once (the
 * private view key and the primary address: enough to derive every subaddress here), and the
 * wallet told about each subaddress index the database hands out, so it scans for them.
 *
 * Subaddress indexes come from the database's counter (`hd_accounts.next_index` of `monero`),
 * taken in the payment's own transaction: no index is handed out twice, across instances too.
 * Database index i is the subaddress (0, i + 1); (0, 0) is the primary address, never a payment's.
 */
import { hex } from '@scure/base';
import type { UnitOfWork } from '../../unit-of-work.ts';
import { RpcError } from '../json-rpc-client.ts';
import { decodeMoneroAddress, type MoneroViewKeys, moneroSubaddress } from './monero-address.ts';
import type { MoneroRpc } from './monero-rpc.ts';

/** The network's name in the registry. */
export const MONERO = 'monero';

/** The wallet as the service uses it. */
export interface MoneroWallet {
  /** The wallet's primary address: where payouts come from. */
  readonly primaryAddress: string;
  /** Why payouts are refused (a view-only wallet), if they are. */
  readonly payoutsDisabled: string | undefined;
  /** The payment address at a database index: subaddress (0, index + 1). */
  addressAt(index: number): string;
  /** Makes the wallet scan every subaddress the database handed out or pooled so far. */
  knowHandedOut(): Promise<void>;
}

// wallet2 answers query_key spend_key with zeros (or an error) when it holds no spend key.
async function isViewOnly(wallet: MoneroRpc): Promise<boolean> {
  try {
    const { key } = await wallet.call<{ key: string }>('query_key', { key_type: 'spend_key' });
    return /^0*$/.test(key);
  } catch (err) {
    if (err instanceof RpcError) return true;
    throw err;
  }
}

/** Connects to the wallet and its daemon; throws with a message naming the variable that is wrong. */
export async function connectMoneroWallet(options: { wallet: MoneroRpc; daemon: MoneroRpc; uow: UnitOfWork }): Promise<MoneroWallet> {
  const { wallet, daemon, uow } = options;
  const fail = (variable: string, err: unknown): never => {
    throw new Error(`${variable}: ${err instanceof Error ? err.message : String(err)}`);
  };
  const info = await daemon.call<{ height: number; nettype?: string }>('get_info').catch((err: unknown) => fail('MONERO_DAEMON_RPC_URL', err));
  const primary = await wallet.call<{ address: string; addresses: Array<{ address_index: number }> }>('get_address', { account_index: 0 }).catch((err: unknown) => fail('MONERO_WALLET_RPC_URL', err));
  const decoded = decodeMoneroAddress(primary.address);
  if (!decoded || decoded.kind !== 'standard') fail('MONERO_WALLET_RPC_URL', new Error(`the wallet's primary address ${primary.address} is not a Monero address`));
  const daemonNet = info.nettype === 'testnet' ? 'test' : info.nettype === 'stagenet' ? 'stage' : 'main';
  if (decoded!.net !== 'main' || daemonNet !== 'main') {
    fail('MONERO_WALLET_RPC_URL', new Error(`the wallet (${decoded!.net}net) and its daemon (${daemonNet}net) must both be on mainnet or regtest`));
  }
  const { key: viewKey } = await wallet.call<{ key: string }>('query_key', { key_type: 'view_key' });
  const keys: MoneroViewKeys = { viewKey: hex.decode(viewKey), spendPublic: decoded!.spendPublic, net: 'main' };
  if (moneroSubaddress(keys, 0, 0) !== primary.address) fail('MONERO_WALLET_RPC_URL', new Error('the wallet\'s view key does not belong to its primary address'));
  // The counter lives with the other networks' derivation indexes (created here on a database
  // whose HD accounts predate Monero).
  await uow.stores.addresses.insertAccount(MONERO, primary.address);
  const viewOnly = await isViewOnly(wallet);
  // The wallet scans the subaddresses it has created plus a lookahead; it is told of each index
  // before it refreshes (the follower refreshes it; its own timer could scan before it knows).
  await wallet.call('auto_refresh', { enable: false });
  let created = Math.max(...primary.addresses.map((a) => a.address_index)) + 1;

  return {
    primaryAddress: primary.address,
    payoutsDisabled: viewOnly
      ? 'Payouts on monero are off: the wallet open in monero-wallet-rpc (MONERO_WALLET_RPC_URL) is view-only, so this installation receives XMR but cannot send it. Open the full wallet to pay out.'
      : undefined,
    addressAt: (index) => moneroSubaddress(keys, 0, index + 1),
    async knowHandedOut() {
      const next = await uow.stores.addresses.nextIndex(MONERO);
      // Subaddresses (0, 1) … (0, next) exist in the database: the wallet needs `next + 1` in all.
      // A wallet restarted before it saved, or the same wallet restored into a new file, may have
      // fewer than were made here: asked where the last one it needs belongs (a lookup in the
      // addresses it scans for, cheap however long its history), it answers that it is not its own
      // (an RpcError); then its own count is read again and it is told of them anew, with its own
      // refresh off again (a restarted wallet scans by itself, before it knows of them).
      if (next > 0 && created >= next + 1) {
        const has = await wallet.call('get_address_index', { address: moneroSubaddress(keys, 0, next) }).then(
          () => true,
          (err: unknown) => {
            if (err instanceof RpcError) return false;
            throw err;
          },
        );
        if (!has) {
          const again = await wallet.call<{ address: string; addresses: Array<{ address_index: number }> }>('get_address', { account_index: 0 });
          // Another wallet altogether would never see these payments: said, not papered over.
          if (again.address !== primary.address) {
            throw new Error(`MONERO_WALLET_RPC_URL: the wallet open there (${again.address}) is not the one this service receives to (${primary.address}); open that wallet again`);
          }
          created = Math.max(...again.addresses.map((a) => a.address_index)) + 1;
          await wallet.call('auto_refresh', { enable: false });
        }
      }
      const before = created;
      while (created < next + 1) {
        const made = await wallet.call<{ address_indices: number[] }>('create_address', { account_index: 0, count: Math.min(64, next + 1 - created) });
        created = Math.max(created, ...made.address_indices.map((i) => i + 1));
      }
      // Saved at once: a wallet killed before it saves forgets the subaddresses made since.
      if (created > before) await wallet.call('store');
    },
  };
}
