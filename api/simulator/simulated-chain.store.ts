/** SQL for the simulated chains: heights and transactions, kept so they survive restarts. */
import type { Sql } from '../db/database.ts';

/** A transaction about to be recorded on a simulated chain. */
export interface SimulatedTransactionRow {
  txnId: string;
  network: string;
  assetId: number;
  addressFrom: string;
  addressTo: string;
  destTag: string | null;
  amount: string;
  blockHeight: number | null;
  reference: string | null;
  createdAt: number;
}

/** SQL for simulated chains, on the database or inside one transaction. */
export class SimulatedChainStore {
  constructor(private readonly sql: Sql) {}

  /** Starts a network's chain at `height` unless it already exists. */
  async ensureChain(network: string, height: number): Promise<void> {
    await this.sql.run('INSERT INTO sim_chains (network, height) VALUES (?, ?) ON CONFLICT DO NOTHING', [network, height]);
  }

  /** A chain's current height. */
  async height(network: string): Promise<number> {
    return Number((await this.sql.get<{ height: number }>('SELECT height FROM sim_chains WHERE network = ?', [network]))!.height);
  }

  /** Raises a chain by `count` blocks (locking it until the transaction ends); returns the new height. */
  async raise(network: string, count: number): Promise<number> {
    return Number((await this.sql.get<{ height: number }>('UPDATE sim_chains SET height = height + ? WHERE network = ? RETURNING height', [count, network]))!.height);
  }

  /** Records a transaction; a repeated payout reference is a UniqueViolation. */
  async insert(row: SimulatedTransactionRow): Promise<void> {
    await this.sql.run(
      `INSERT INTO sim_transactions (txn_id, network, asset_id, address_from, address_to, dest_tag, amount, block_height, reference, created_at)
       VALUES (@txnId, @network, @assetId, @addressFrom, @addressTo, @destTag, @amount, @blockHeight, @reference, @createdAt)`,
      row,
    );
  }

  /** Puts the mempool of a network into the block at `height`. */
  async includeMempool(network: string, height: number): Promise<void> {
    await this.sql.run('UPDATE sim_transactions SET block_height = ? WHERE network = ? AND block_height IS NULL AND dropped = 0', [height, network]);
  }

  /** Mined transactions above `aboveHeight`, with their confirmations at chain height `height`. */
  async recent(network: string, height: number, aboveHeight: number): Promise<Array<{ txnId: string; confirmations: number }>> {
    const rows = await this.sql.all<{ txn_id: string; block_height: number }>(
      'SELECT txn_id, block_height FROM sim_transactions WHERE network = ? AND dropped = 0 AND block_height > ? ORDER BY block_height, created_at',
      [network, aboveHeight],
    );
    return rows.map((row) => ({ txnId: row.txn_id, confirmations: height - Number(row.block_height) + 1 }));
  }

  /** A transaction's place on its chain. */
  async find(network: string, txnId: string): Promise<{ blockHeight: number | null; dropped: boolean; reference: string | null } | undefined> {
    const row = await this.sql.get<{ block_height: number | null; dropped: number; reference: string | null }>(
      'SELECT block_height, dropped, reference FROM sim_transactions WHERE txn_id = ? AND network = ?',
      [txnId, network],
    );
    return row && { blockHeight: row.block_height, dropped: row.dropped === 1, reference: row.reference };
  }

  /** The payout already broadcast for a reference, if any. */
  async byReference(reference: string): Promise<{ txnId: string; addressFrom: string } | undefined> {
    const row = await this.sql.get<{ txn_id: string; address_from: string }>('SELECT txn_id, address_from FROM sim_transactions WHERE reference = ?', [reference]);
    return row && { txnId: row.txn_id, addressFrom: row.address_from };
  }

  /** Drops an unconfirmed transaction; false if it was not in the mempool any more. */
  async markDropped(txnId: string): Promise<boolean> {
    return (await this.sql.run('UPDATE sim_transactions SET dropped = 1 WHERE txn_id = ? AND block_height IS NULL AND dropped = 0', [txnId])) === 1;
  }
}
