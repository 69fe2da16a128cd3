/**
 * @module A simulated chain for one network, kept in SQLite so it survives restarts: a height,
 * a mempool and mined transactions. It implements NetworkAdapter exactly as a real chain client
 * would, reporting transactions, confirmations and drops to the chain watcher.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { randomBytes } from 'node:crypto';
import type { Db } from '../db/open-database.ts';
import { ApiError } from '../http/api-error.ts';
import { addressCodec } from '../networks/address-codecs.ts';
import type { Asset, Network } from '../networks/asset-registry.ts';
import type { ChainEvent, NetworkAdapter, Payout, SentPayout } from '../networks/network-adapter.ts';
import type { Clock } from '../shared/clock.ts';

/** A transaction on a simulated chain. */
export interface SimulatedTransaction {
  txnId: string;
  network: string;
  asset: Asset;
  addressFrom: string;
  addressTo: string;
  destTag: string | null;
  amount: string;
  confirmations: number;
}

const GENESIS_HEIGHT = 100;

function transactionId(network: string): string {
  const hex = randomBytes(32).toString('hex');
  if (network === 'ethereum') return `0x${hex}`;
  if (network === 'ripple') return hex.toUpperCase();
  return hex;
}

/** A valid address of the network that belongs to nobody we know: the simulated payer. */
function payerAddress(network: string): string {
  return addressCodec(network).fromPublicKey(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true));
}

/** A simulated network; `hotWallet` is the address payouts are sent from. */
export function createSimulatedNetwork(deps: { db: Db; network: Network; clock: Clock; hotWallet: string }) {
  const { db, network, clock, hotWallet } = deps;
  const name = network.name;
  db.prepare('INSERT OR IGNORE INTO sim_chains (network, height) VALUES (?, ?)').run(name, GENESIS_HEIGHT);
  const heightOf = db.prepare<[string], { height: number }>('SELECT height FROM sim_chains WHERE network = ?');
  const raise = db.prepare<[number, string], { height: number }>('UPDATE sim_chains SET height = height + ? WHERE network = ? RETURNING height');
  const insert = db.prepare(
    `INSERT INTO sim_transactions (txn_id, network, asset_id, address_from, address_to, dest_tag, amount, block_height, reference, created_at)
     VALUES (@txnId, @network, @assetId, @addressFrom, @addressTo, @destTag, @amount, @blockHeight, @reference, @createdAt)`,
  );
  const includeMempool = db.prepare('UPDATE sim_transactions SET block_height = ? WHERE network = ? AND block_height IS NULL AND dropped = 0');
  const recent = db.prepare<[number, string, number], { txn_id: string; confirmations: number }>(
    'SELECT txn_id, ? - block_height + 1 AS confirmations FROM sim_transactions WHERE network = ? AND dropped = 0 AND block_height > ?',
  );
  const byId = db.prepare<[string, string], { block_height: number | null; dropped: number; reference: string | null }>(
    'SELECT block_height, dropped, reference FROM sim_transactions WHERE txn_id = ? AND network = ?',
  );
  const byReference = db.prepare<[string], { txn_id: string; address_from: string }>('SELECT txn_id, address_from FROM sim_transactions WHERE reference = ?');
  const markDropped = db.prepare('UPDATE sim_transactions SET dropped = 1 WHERE txn_id = ?');

  let onEvent: (event: ChainEvent) => void = () => {};

  function record(transaction: Omit<SimulatedTransaction, 'txnId' | 'network'>, reference: string | null): SimulatedTransaction {
    const txnId = transactionId(name);
    const height = heightOf.get(name)!.height;
    insert.run({
      txnId,
      network: name,
      assetId: transaction.asset.id,
      addressFrom: transaction.addressFrom,
      addressTo: transaction.addressTo,
      destTag: transaction.destTag,
      amount: transaction.amount,
      blockHeight: transaction.confirmations > 0 ? height - transaction.confirmations + 1 : null,
      reference,
      createdAt: clock(),
    });
    const simulated: SimulatedTransaction = { ...transaction, txnId, network: name };
    onEvent({
      kind: 'transaction',
      transaction: {
        network: name,
        txnId,
        assetShort: transaction.asset.short,
        addressFrom: transaction.addressFrom,
        addressTo: transaction.addressTo,
        destTag: transaction.destTag,
        amount: transaction.amount,
        confirmations: transaction.confirmations,
      },
    });
    return simulated;
  }

  const adapter: NetworkAdapter = {
    network: name,
    watch(handler) {
      onEvent = handler;
    },
    async send(payout: Payout): Promise<SentPayout> {
      const earlier = byReference.get(payout.reference);
      if (earlier) return { txnId: earlier.txn_id, addressFrom: earlier.address_from };
      const sent = record(
        { asset: payout.asset, addressFrom: hotWallet, addressTo: payout.addressTo, destTag: payout.destTag, amount: payout.amount, confirmations: 0 },
        payout.reference,
      );
      return { txnId: sent.txnId, addressFrom: hotWallet };
    },
    close() {
      onEvent = () => {};
    },
  };

  return {
    adapter,

    /** The current block height. */
    height: (): number => heightOf.get(name)!.height,

    /** A payer sends funds: into the mempool, or already mined `confirmations` deep. */
    submit(input: { asset: Asset; address: string; destTag: string | null; amount: string; confirmations: number }): SimulatedTransaction {
      return record({ ...input, addressTo: input.address, addressFrom: payerAddress(name) }, null);
    },

    /** Mines `count` blocks: the mempool goes into the first, and every recent transaction gains confirmations. */
    mine(count: number): number {
      const { height, updates } = db
        .transaction(() => {
          const before = heightOf.get(name)!.height;
          includeMempool.run(before + 1, name);
          const after = raise.get(count, name)!.height;
          // Only transactions still short of the network's confirmations need telling.
          const rows = recent.all(after, name, after - count - network.confirmationsNeeded);
          return { height: after, updates: rows.map((r) => ({ txnId: r.txn_id, confirmations: r.confirmations })) };
        })
        .immediate();
      if (updates.length > 0) onEvent({ kind: 'confirmations', network: name, updates });
      return height;
    },

    /** Drops an unconfirmed payer transaction from the mempool (as a double-spend or fee bump would). */
    drop(txnId: string): void {
      const row = byId.get(txnId, name);
      if (!row || row.dropped) throw new ApiError(404, 'not-found', `No transaction ${txnId} in the ${name} mempool.`);
      if (row.block_height !== null || row.reference !== null) {
        throw new ApiError(409, 'invalid-state', 'Only an unconfirmed payer transaction can be dropped.');
      }
      markDropped.run(txnId);
      onEvent({ kind: 'dropped', network: name, txnId });
    },
  };
}

/** A simulated network. */
export type SimulatedNetwork = ReturnType<typeof createSimulatedNetwork>;
