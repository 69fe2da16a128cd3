/**
 * SQL for the installation's wallet on real networks: the outputs its addresses received on
 * Bitcoin and Litecoin (spent by payouts), the signed payout transactions of every real network
 * (each stored before it is broadcast; Ethereum's sweep top-ups too), and Ethereum's nonce counters.
 */
import type { Sql } from '../db/database.ts';

/** An output paying one of this installation's keys. */
export interface WalletOutput {
  txnId: string;
  vout: number;
  address: string;
  /** The output's scriptPubKey, hex. */
  script: string;
  /** In the network's smallest unit (satoshis, litoshis). */
  value: bigint;
  /** The key under the network's account: chain 0 receives payments, chain 1 is the payout address. */
  keyChain: 0 | 1;
  keyIndex: number;
}

// Between a withdrawal id and the hash of its payout that reverted, in a retired payout's key.
const REVERTED_MARK = ':reverted:';

/** A signed payout transaction. */
export interface PayoutTransaction {
  withdrawalId: string;
  network: string;
  txnId: string;
  /** The signed transaction, hex, as `sendrawtransaction` takes it. */
  raw: string;
  /** The network fee it pays, in the smallest unit (on Ethereum: the most it can pay, gas limit × max fee). */
  fee: bigint;
  /** The sender's nonce (Ethereum); null on UTXO networks. */
  nonce?: bigint | null;
  /** When it was signed (a replacement: when it was re-signed). */
  createdAt?: number;
  /** Hashes of the transactions it replaced at a higher fee (Ethereum), oldest first. */
  replaced?: string[];
}

interface OutputRow {
  txn_id: string;
  vout: number;
  address: string;
  script: string;
  value: number | string;
  key_chain: number;
  key_index: number;
}

// Outputs whose transaction waits in the mempool (followed, no block yet) are not spent: a payout
// must not build on a transaction that may still be replaced or dropped.
const CONFIRMED = `NOT EXISTS (SELECT 1 FROM chain_transactions t WHERE t.network = o.network AND t.txn_id = o.txn_id AND t.block_height IS NULL)`;

interface PayoutRow {
  withdrawal_id: string;
  network: string;
  txn_id: string;
  raw: string;
  fee: number | string;
  nonce: number | string | null;
  created_at: number | string;
  replaced_txn_ids: string | null;
}

function toPayout(row: PayoutRow): PayoutTransaction {
  return {
    withdrawalId: row.withdrawal_id,
    network: row.network,
    txnId: row.txn_id,
    raw: row.raw,
    fee: BigInt(row.fee),
    nonce: row.nonce === null ? null : BigInt(row.nonce),
    createdAt: Number(row.created_at),
    replaced: row.replaced_txn_ids === null ? [] : (JSON.parse(row.replaced_txn_ids) as string[]),
  };
}

/** SQL for the wallet, on the database or inside one transaction. */
export class WalletStore {
  constructor(private readonly sql: Sql) {}

  /** Records an output paying one of this installation's keys (again: nothing changes). */
  async addOutput(network: string, output: WalletOutput): Promise<void> {
    await this.sql.run(
      'INSERT INTO chain_outputs (network, txn_id, vout, address, script, value, key_chain, key_index, spent_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL) ON CONFLICT DO NOTHING',
      [network, output.txnId, output.vout, output.address, output.script, output.value.toString(), output.keyChain, output.keyIndex],
    );
  }

  /** Forgets the unspent outputs of a transaction that left the network (replaced, evicted). */
  async dropOutputs(network: string, txnId: string): Promise<void> {
    await this.sql.run('DELETE FROM chain_outputs WHERE network = ? AND txn_id = ? AND spent_by IS NULL', [network, txnId]);
  }

  /** Unspent outputs in a block, largest first: what a payout can spend now. */
  async spendable(network: string): Promise<WalletOutput[]> {
    const rows = await this.sql.all<OutputRow>(
      `SELECT txn_id, vout, address, script, value, key_chain, key_index FROM chain_outputs o WHERE network = ? AND spent_by IS NULL AND ${CONFIRMED} ORDER BY value DESC, txn_id, vout`,
      [network],
    );
    return rows.map((row) => ({
      txnId: row.txn_id,
      vout: Number(row.vout),
      address: row.address,
      script: row.script,
      value: BigInt(row.value),
      keyChain: Number(row.key_chain) === 1 ? 1 : 0,
      keyIndex: Number(row.key_index),
    }));
  }

  /** What the wallet holds: confirmed and unspent, and waiting for its first block. */
  async totals(network: string): Promise<{ spendable: bigint; unconfirmed: bigint }> {
    const row = await this.sql.get<{ spendable: number | string | null; unconfirmed: number | string | null }>(
      `SELECT SUM(CASE WHEN ${CONFIRMED} THEN value ELSE 0 END) AS spendable, SUM(CASE WHEN ${CONFIRMED} THEN 0 ELSE value END) AS unconfirmed
         FROM chain_outputs o WHERE network = ? AND spent_by IS NULL`,
      [network],
    );
    return { spendable: BigInt(row?.spendable ?? 0), unconfirmed: BigInt(row?.unconfirmed ?? 0) };
  }

  /** Marks an output spent by a withdrawal's payout; false if another payout took it first. */
  async spend(network: string, txnId: string, vout: number, withdrawalId: string): Promise<boolean> {
    return (await this.sql.run('UPDATE chain_outputs SET spent_by = ? WHERE network = ? AND txn_id = ? AND vout = ? AND spent_by IS NULL', [withdrawalId, network, txnId, vout])) === 1;
  }

  /** The signed payout of a withdrawal, if one was made. */
  async payout(withdrawalId: string): Promise<PayoutTransaction | undefined> {
    const row = await this.sql.get<PayoutRow>('SELECT * FROM payout_transactions WHERE withdrawal_id = ?', [withdrawalId]);
    return row && toPayout(row);
  }

  /**
   * Sets aside a withdrawal's payout that was mined and reverted (the stored transaction, or one it
   * replaced on the same nonce), under `<withdrawal id>:reverted:<hash>`, so the withdrawal can be
   * signed again as a new transaction; the reverted one stays as history. False if the stored payout
   * is not that one.
   */
  async retirePayout(withdrawalId: string, revertedTxnId: string): Promise<boolean> {
    return (
      (await this.sql.run('UPDATE payout_transactions SET withdrawal_id = ?, reverted_of = ? WHERE withdrawal_id = ? AND (txn_id = ? OR replaced_txn_ids LIKE ?)', [
        `${withdrawalId}${REVERTED_MARK}${revertedTxnId}`,
        withdrawalId,
        withdrawalId,
        revertedTxnId,
        `%"${revertedTxnId}"%`,
      ])) === 1
    );
  }

  /** How many of a withdrawal's payouts were mined and reverted. */
  async revertedPayouts(withdrawalId: string): Promise<number> {
    const row = await this.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM payout_transactions WHERE reverted_of = ?', [withdrawalId]);
    return Number(row?.n ?? 0);
  }

  /** Replaces a stored payout by its re-signed replacement (same nonce, higher fee); false if it changed meanwhile. */
  async replacePayout(withdrawalId: string, previous: PayoutTransaction, next: { txnId: string; raw: string; fee: bigint }, at: number): Promise<boolean> {
    const replaced = JSON.stringify([...(previous.replaced ?? []), previous.txnId]);
    return (
      (await this.sql.run('UPDATE payout_transactions SET txn_id = ?, raw = ?, fee = ?, created_at = ?, replaced_txn_ids = ? WHERE withdrawal_id = ? AND txn_id = ?', [
        next.txnId,
        next.raw,
        next.fee.toString(),
        at,
        replaced,
        withdrawalId,
        previous.txnId,
      ])) === 1
    );
  }

  /**
   * A network's stored payouts whose withdrawal has not recorded them as sent: a crash (or a failed
   * broadcast) came between storing and broadcasting.
   */
  async unsentPayouts(network: string): Promise<PayoutTransaction[]> {
    const rows = await this.sql.all<PayoutRow>(
      `SELECT p.* FROM payout_transactions p JOIN withdrawals w ON w.id = p.withdrawal_id
        WHERE p.network = ? AND w.status = 'APPROVED' AND w.txn_id IS NULL ORDER BY p.created_at`,
      [network],
    );
    return rows.map(toPayout);
  }

  /** Stores a signed payout before it is broadcast. */
  async insertPayout(payout: PayoutTransaction, at: number): Promise<void> {
    await this.sql.run('INSERT INTO payout_transactions (withdrawal_id, network, txn_id, raw, fee, created_at, nonce) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      payout.withdrawalId,
      payout.network,
      payout.txnId,
      payout.raw,
      payout.fee.toString(),
      at,
      payout.nonce === undefined || payout.nonce === null ? null : payout.nonce.toString(),
    ]);
  }

  /**
   * Takes the next nonce of a sending address: the stored counter, or what the node counts when that
   * is higher (something else sent from the address). Run inside the transaction that stores the
   * signed payout, so the counter row is held until it commits.
   */
  async takeNonce(address: string, nodeNext: bigint): Promise<bigint> {
    await this.sql.run('INSERT INTO eth_nonces (address, next_nonce) VALUES (?, ?) ON CONFLICT DO NOTHING', [address, nodeNext.toString()]);
    const row = await this.sql.get<{ nonce: number | string }>(
      'UPDATE eth_nonces SET next_nonce = (CASE WHEN next_nonce < ? THEN ? ELSE next_nonce END) + 1 WHERE address = ? RETURNING next_nonce - 1 AS nonce',
      [nodeNext.toString(), nodeNext.toString(), address],
    );
    return BigInt(row!.nonce);
  }

  /** Stored transactions of a network whose key starts with `prefix` (Ethereum's sweep top-ups), newest first. */
  async payoutsLike(network: string, prefix: string, since: number): Promise<PayoutTransaction[]> {
    const rows = await this.sql.all<PayoutRow>('SELECT * FROM payout_transactions WHERE network = ? AND withdrawal_id LIKE ? AND created_at >= ? ORDER BY created_at DESC', [
      network,
      `${prefix}%`,
      since,
    ]);
    return rows.map(toPayout);
  }
}
