/** SQL for following a chain: each network's cursor, the blocks it processed and the transactions it reported. */
import { jsonTextList, type Sql } from '../db/database.ts';

/** The last block processed. */
export interface ChainCursor {
  height: number;
  hash: string;
}

/** A reported transaction: in a block, or in the mempool (height null). */
export interface FollowedTransaction {
  txnId: string;
  blockHash: string | null;
  blockHeight: number | null;
  /** Mined, and failed (its receipt's status): a reverted payout moved nothing. */
  reverted: boolean;
}

/** SQL for the chain followers, on the database or inside one transaction. */
export class FollowerStore {
  constructor(private readonly sql: Sql) {}

  /** The network's cursor, if it ever processed a block. */
  async cursor(network: string): Promise<ChainCursor | undefined> {
    const row = await this.sql.get<{ height: number; hash: string }>('SELECT height, hash FROM chain_cursors WHERE network = ?', [network]);
    return row && { height: Number(row.height), hash: row.hash };
  }

  /** Moves the cursor. */
  async setCursor(network: string, cursor: ChainCursor): Promise<void> {
    await this.sql.run('INSERT INTO chain_cursors (network, height, hash) VALUES (?, ?, ?) ON CONFLICT (network) DO UPDATE SET height = excluded.height, hash = excluded.hash', [
      network,
      cursor.height,
      cursor.hash,
    ]);
  }

  /**
   * Moves the cursor to a block just processed and remembers that block's hash, forgetting those
   * `keep` or more below it: what a reorganisation is walked back against.
   */
  async advance(network: string, cursor: ChainCursor, keep: number): Promise<void> {
    // The block first: a crash before the cursor moves leaves the block to be processed again.
    await this.sql.run('INSERT INTO chain_blocks (network, height, hash) VALUES (?, ?, ?) ON CONFLICT (network, height) DO UPDATE SET hash = excluded.hash', [
      network,
      cursor.height,
      cursor.hash,
    ]);
    await this.sql.run('DELETE FROM chain_blocks WHERE network = ? AND height <= ?', [network, cursor.height - keep]);
    await this.setCursor(network, cursor);
  }

  /** The hash of the block processed at `height`, if it is still remembered. */
  async blockHashAt(network: string, height: number): Promise<string | undefined> {
    const row = await this.sql.get<{ hash: string }>('SELECT hash FROM chain_blocks WHERE network = ? AND height = ?', [network, height]);
    return row?.hash;
  }

  /** Forgets the blocks processed from `height` up (they left the chain). */
  async forgetBlocksFrom(network: string, height: number): Promise<void> {
    await this.sql.run('DELETE FROM chain_blocks WHERE network = ? AND height >= ?', [network, height]);
  }

  /** Records (or moves) a reported transaction; `reverted` when its block holds it as failed. */
  async follow(network: string, txnId: string, block: { hash: string; height: number } | null, at: number, reverted = false): Promise<void> {
    await this.sql.run(
      'INSERT INTO chain_transactions (network, txn_id, block_hash, block_height, seen_at, reverted) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (network, txn_id) DO UPDATE SET block_hash = excluded.block_hash, block_height = excluded.block_height, reverted = excluded.reverted',
      [network, txnId, block?.hash ?? null, block?.height ?? null, at, reverted ? 1 : 0],
    );
  }

  /** Starts following a transaction this service broadcast (nothing changes if it is followed already). */
  async followIfNew(network: string, txnId: string, at: number): Promise<void> {
    await this.sql.run('INSERT INTO chain_transactions (network, txn_id, block_hash, block_height, seen_at) VALUES (?, ?, NULL, NULL, ?) ON CONFLICT DO NOTHING', [network, txnId, at]);
  }

  /** Which of these transactions are followed (one indexed lookup for a whole block). */
  async followedAmong(network: string, txnIds: readonly string[]): Promise<Set<string>> {
    if (txnIds.length === 0) return new Set();
    const rows = await this.sql.all<{ txn_id: string }>(
      `SELECT txn_id FROM chain_transactions WHERE network = ? AND ${this.sql.dialect.inJsonList('txn_id', '?')}`,
      [network, jsonTextList(txnIds)],
    );
    return new Set(rows.map((row) => row.txn_id));
  }

  /** Every transaction followed on the network. */
  async followed(network: string): Promise<FollowedTransaction[]> {
    const rows = await this.sql.all<{ txn_id: string; block_hash: string | null; block_height: number | null; reverted: number }>(
      'SELECT txn_id, block_hash, block_height, reverted FROM chain_transactions WHERE network = ? ORDER BY txn_id',
      [network],
    );
    return rows.map((row) => ({
      txnId: row.txn_id,
      blockHash: row.block_hash,
      blockHeight: row.block_height === null ? null : Number(row.block_height),
      reverted: Number(row.reverted) === 1,
    }));
  }

  /** Puts the transactions of blocks from `height` up back in the mempool (those blocks left the chain); returns them. */
  async unconfirmFrom(network: string, height: number): Promise<string[]> {
    const rows = await this.sql.all<{ txn_id: string }>(
      'UPDATE chain_transactions SET block_hash = NULL, block_height = NULL, reverted = 0 WHERE network = ? AND block_height >= ? RETURNING txn_id',
      [network, height],
    );
    return rows.map((row) => row.txn_id);
  }

  /** Stops following transactions. */
  async forget(network: string, txnIds: readonly string[]): Promise<void> {
    if (txnIds.length === 0) return;
    await this.sql.run(`DELETE FROM chain_transactions WHERE network = ? AND ${this.sql.dialect.inJsonList('txn_id', '?')}`, [network, jsonTextList(txnIds)]);
  }

  /**
   * Which of these addresses are this installation's receiving addresses on the network, with each
   * one's derivation index (one indexed lookup for a whole block).
   */
  async ownAddresses(network: string, addresses: readonly string[]): Promise<Map<string, number>> {
    if (addresses.length === 0) return new Map();
    const rows = await this.sql.all<{ address: string; derivation_index: number | null }>(
      `SELECT address, derivation_index FROM addresses WHERE network = ? AND ${this.sql.dialect.inJsonList('address', '?')}`,
      [network, jsonTextList([...new Set(addresses)])],
    );
    return new Map(rows.map((row) => [row.address, Number(row.derivation_index ?? 0)]));
  }
}
