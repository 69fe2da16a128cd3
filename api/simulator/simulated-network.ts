/**
 * @module A simulated chain for one network, kept in the database so it survives restarts: a height,
 * a mempool and mined transactions. It implements NetworkAdapter exactly as a real chain client
 * would, reporting transactions, confirmations and drops to the chain watcher.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { randomBytes } from 'node:crypto';
import { UniqueViolation } from '../db/database.ts';
import { InvalidState, NotFound } from '../shared/errors.ts';
import { addressCodec } from '../networks/address-codecs.ts';
import type { Asset, Network } from '../networks/asset-registry.ts';
import { type ChainEvent, type NetworkAdapter, NO_LONGER_PAYABLE, type Payout, PayoutWaiting, type SentPayout } from '../networks/network-adapter.ts';
import type { Clock } from '../shared/clock.ts';
import type { UnitOfWork } from '../unit-of-work.ts';

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
  return addressCodec(network, 'main').fromPublicKey(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true));
}

/** A simulated network; `hotWallet` is the address payouts are sent from. Call `start` before use. */
export function createSimulatedNetwork(deps: { uow: UnitOfWork; network: Network; clock: Clock; hotWallet: string }) {
  const { uow, network, clock, hotWallet } = deps;
  const name = network.name;
  const chains = uow.stores.chains;

  let onEvent: (event: ChainEvent) => Promise<void> = async () => {};

  async function record(transaction: Omit<SimulatedTransaction, 'txnId' | 'network'>, reference: string | null): Promise<SimulatedTransaction> {
    const txnId = transactionId(name);
    const height = await chains.height(name);
    const row = {
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
    };
    if (reference === null) await chains.insert(row);
    else {
      // A payout goes out only while its withdrawal waits for one (the operator may cancel it).
      await uow.transaction(async (stores) => {
        if (!(await stores.withdrawals.lockPayable(reference))) throw new PayoutWaiting(NO_LONGER_PAYABLE);
        await stores.chains.insert(row);
      });
    }
    const simulated: SimulatedTransaction = { ...transaction, txnId, network: name };
    await onEvent({
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
      const earlier = await chains.byReference(payout.reference);
      if (earlier) return earlier;
      try {
        const sent = await record(
          { asset: payout.asset, addressFrom: hotWallet, addressTo: payout.addressTo, destTag: payout.destTag, amount: payout.amount, confirmations: 0 },
          payout.reference,
        );
        return { txnId: sent.txnId, addressFrom: hotWallet };
      } catch (error) {
        // Another process broadcast the same payout at the same moment: theirs stands.
        const raced = error instanceof UniqueViolation ? await chains.byReference(payout.reference) : undefined;
        if (raced) return raced;
        throw error;
      }
    },
    close() {
      onEvent = async () => {};
    },
  };

  return {
    adapter,

    /** Creates the chain's row on first use. */
    start: () => chains.ensureChain(name, GENESIS_HEIGHT),

    /** The current block height. */
    height: (): Promise<number> => chains.height(name),

    /** A payer sends funds: into the mempool, or already mined `confirmations` deep. */
    submit(input: { asset: Asset; address: string; destTag: string | null; amount: string; confirmations: number }): Promise<SimulatedTransaction> {
      return record({ ...input, addressTo: input.address, addressFrom: payerAddress(name) }, null);
    },

    /** Mines `count` blocks: the mempool goes into the first, and every recent transaction gains confirmations. */
    async mine(count: number): Promise<number> {
      const { height, updates } = await uow.transaction(async ({ chains: tx }) => {
        // Raising first locks the chain row, so two processes mining at once take turns.
        const after = await tx.raise(name, count);
        await tx.includeMempool(name, after - count + 1);
        // Only transactions still short of the network's confirmations need telling.
        return { height: after, updates: await tx.recent(name, after, after - count - network.confirmationsNeeded) };
      });
      if (updates.length > 0) await onEvent({ kind: 'confirmations', network: name, updates });
      return height;
    },

    /** Drops an unconfirmed payer transaction from the mempool (as a double-spend or fee bump would). */
    async drop(txnId: string): Promise<void> {
      const row = await chains.find(name, txnId);
      if (!row || row.dropped) throw new NotFound('not-found', `No transaction ${txnId} in the ${name} mempool.`);
      if (row.blockHeight !== null || row.reference !== null) {
        throw new InvalidState('invalid-state', 'Only an unconfirmed payer transaction can be dropped.');
      }
      if (!(await chains.markDropped(txnId))) throw new InvalidState('invalid-state', 'Only an unconfirmed payer transaction can be dropped.');
      await onEvent({ kind: 'dropped', network: name, txnId });
    },
  };
}

/** A simulated network. */
export type SimulatedNetwork = ReturnType<typeof createSimulatedNetwork>;
