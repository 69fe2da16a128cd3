/**
 * @module Paying out XMR from the installation's wallet through monero-wallet-rpc, exactly once:
 * `transfer` with `do_not_relay` and `get_tx_metadata` builds and signs the transaction without
 * sending it; its metadata is stored (with the withdrawal still payable, in one transaction) and
 * only then relayed with `relay_tx`. After a crash in between, the stored metadata is relayed
 * again, never a second transaction built; relaying the same transaction twice cannot spend twice.
 *
 * Builds are serialised per wallet, and a stored payout not yet relayed goes out before a new one
 * is built: two transactions built before either is relayed can pick the same outputs, and the
 * second relay then fails ("Failed to commit tx."). The recipient receives the withdrawal's
 * `receivedAmount`; the network fee comes on top, from the wallet.
 */
import type { Clock } from '../../shared/clock.ts';
import type { UnitOfWork } from '../../unit-of-work.ts';
import { RpcError } from '../json-rpc-client.ts';
import { NO_LONGER_PAYABLE, type Payout, PayoutWaiting, type SentPayout } from '../network-adapter.ts';
import type { PayoutTransaction } from '../wallet.store.ts';
import type { MoneroRpc } from './monero-rpc.ts';
import { fromPiconero, toPiconero } from './monero-units.ts';
import { MONERO, type MoneroWallet } from './monero-wallet.ts';

/** The wallet's payout side. */
export interface MoneroPayouts {
  readonly payoutsDisabled: string | undefined;
  send(payout: Payout): Promise<SentPayout>;
  /** Relays a sent, unconfirmed payout again now and then (a daemon that lost it); the same transaction. */
  resend(reference: string): Promise<string | undefined>;
}

// The wallet's answers to a transfer it cannot fund now (too little, or not unlocked yet).
const CANNOT_FUND = /not enough (unlocked )?money|not enough outputs|no unlocked balance|balance is too low/i;

/** Creates the payout side of the Monero wallet. */
export function createMoneroPayouts(options: { wallet: MoneroRpc; moneroWallet: MoneroWallet; uow: UnitOfWork; clock: Clock }): MoneroPayouts {
  const { wallet, moneroWallet, uow, clock } = options;
  let queue: Promise<unknown> = Promise.resolve();
  const serialised = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };

  async function relay(stored: PayoutTransaction): Promise<void> {
    try {
      await wallet.call('relay_tx', { hex: stored.raw });
    } catch (err) {
      if (!(err instanceof RpcError)) throw err;
      // Already relayed (and perhaps mined): the wallet knows it as its own outgoing transfer.
      const known = await wallet.call<{ transfer?: { type: string } }>('get_transfer_by_txid', { txid: stored.txnId, account_index: 0 }).catch(() => undefined);
      if (known?.transfer && ['out', 'pending'].includes(known.transfer.type)) return;
      throw err;
    }
  }

  async function build(payout: Payout): Promise<PayoutTransaction> {
    let built: { tx_hash: string; tx_metadata: string; fee: number | string };
    try {
      built = await wallet.call('transfer', {
        destinations: [{ amount: toPiconero(payout.amount), address: payout.addressTo }],
        account_index: 0,
        do_not_relay: true,
        get_tx_metadata: true,
      });
    } catch (err) {
      if (err instanceof RpcError && CANNOT_FUND.test(err.message)) {
        const { unlocked_balance: unlocked } = await wallet.call<{ unlocked_balance: number | string }>('get_balance', { account_index: 0 });
        throw new PayoutWaiting(
          `The payout wallet cannot cover this withdrawal yet: it holds ${fromPiconero(BigInt(unlocked))} XMR unlocked, and ${payout.amount} plus the network fee is needed (received XMR unlocks after 10 blocks). It goes out once funds unlock.`,
        );
      }
      throw err;
    }
    const signed: PayoutTransaction = { withdrawalId: payout.reference, network: MONERO, txnId: built.tx_hash, raw: built.tx_metadata, fee: BigInt(built.fee) };
    // Stored only while the withdrawal still waits for it; otherwise it is never relayed (nothing was sent).
    await uow.transaction(async (stores) => {
      if (!(await stores.withdrawals.lockPayable(payout.reference))) throw new PayoutWaiting(NO_LONGER_PAYABLE);
      await stores.wallet.insertPayout(signed, clock());
    });
    return signed;
  }

  const lastRelay = new Map<string, number>();

  return {
    payoutsDisabled: moneroWallet.payoutsDisabled,
    async send(payout) {
      const stored = await serialised(async () => {
        const earlier = await uow.stores.wallet.payout(payout.reference);
        if (earlier) {
          await relay(earlier);
          return earlier;
        }
        if (moneroWallet.payoutsDisabled) throw new PayoutWaiting(moneroWallet.payoutsDisabled);
        // Stored before a crash and never relayed: out first, or this build could take its outputs.
        for (const unsent of await uow.stores.wallet.unsentPayouts(MONERO)) await relay(unsent);
        const signed = await build(payout);
        await relay(signed);
        return signed;
      });
      // Followed from now on, so its confirmations reach the withdrawal.
      await uow.stores.followers.followIfNew(MONERO, stored.txnId, clock());
      return { txnId: stored.txnId, addressFrom: moneroWallet.primaryAddress };
    },
    async resend(reference) {
      const stored = await uow.stores.wallet.payout(reference);
      if (!stored) return undefined;
      const now = clock();
      if (now - (lastRelay.get(reference) ?? 0) >= 60_000) {
        lastRelay.set(reference, now);
        await serialised(() => relay(stored));
        await uow.stores.followers.followIfNew(MONERO, stored.txnId, now);
      }
      return stored.txnId;
    },
  };
}
