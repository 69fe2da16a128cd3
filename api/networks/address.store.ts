/**
 * @module SQL for receiving addresses and the installation's HD accounts: every address ever handed
 * out or pre-derived, and per network the account key and the next unused derivation index (or
 * destination tag, on tagged networks).
 */
import type { Sql } from '../db/database.ts';

// INDEXED BY: without statistics SQLite's planner preferred the UNIQUE payment_id index (dropped by
// migration 0105) for `payment_id IS NULL`, which walks every network's unclaimed rows on each
// create; the partial pool index holds exactly one network's unclaimed rows in claim order.
const POOL = { sqlite: 'addresses INDEXED BY addresses_pool', postgres: 'addresses' } as const;
// A pooled address of a network on PostgreSQL, which has no INDEXED BY. With `network = ? ORDER BY
// id` its planner may walk the primary key from the first address ever made, past every claimed
// one (its statistics cannot tell that the free ones sit at the end): each claim then grew with the
// installation's history, 2 ms at 20,000 payments. A range on the network, ordered as the pool
// index is, is answered in order by that index alone: a few entries, however long the history.
// `placeholder` is the statement's own parameter or column for the network, never a value.
export const POOL_ON_POSTGRES = (placeholder: string) => `network >= ${placeholder} AND network <= ${placeholder} AND payment_id IS NULL ORDER BY network, id`;
// The claim of a pool address (exported for its plan test). Concurrent claimers on PostgreSQL
// skip rows another transaction is claiming.
export const CLAIM_POOLED = {
  sqlite: `UPDATE addresses SET payment_id = ?
    WHERE id = (SELECT id FROM ${POOL.sqlite} WHERE network = ? AND payment_id IS NULL ORDER BY id LIMIT 1)
    RETURNING address`,
  postgres: `UPDATE addresses SET payment_id = @paymentId
    WHERE id = (SELECT id FROM addresses WHERE ${POOL_ON_POSTGRES('@network')} LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING address`,
} as const;

/** The largest destination tag (XRP's is an unsigned 32-bit integer). */
const MAX_TAG = 4_294_967_295;

/** SQL for addresses and HD accounts, on the database or inside one transaction. */
export class AddressStore {
  constructor(private readonly sql: Sql) {}

  /**
   * Gives the oldest pooled address of a network to a payment; undefined when the pool is empty.
   * Concurrent claimers on PostgreSQL skip rows another transaction is claiming.
   */
  async claimPooled(network: string, paymentId: string): Promise<string | undefined> {
    const dialect = this.sql.dialect.name;
    const row = await this.sql.get<{ address: string }>(CLAIM_POOLED[dialect], dialect === 'postgres' ? { paymentId, network } : [paymentId, network]);
    return row?.address;
  }

  /** Takes `count` derivation indexes (or tags) of a network's account; returns the first and the account key. */
  async reserveIndexes(network: string, count: number): Promise<{ fromIndex: number; xpub: string } | undefined> {
    return this.sql.get<{ fromIndex: number; xpub: string }>(
      'UPDATE hd_accounts SET next_index = next_index + @count WHERE network = @network RETURNING next_index - @count AS "fromIndex", xpub',
      { count, network },
    );
  }

  /** The next unused derivation index of a network's account (0 when it has none). */
  async nextIndex(network: string): Promise<number> {
    return Number((await this.sql.get<{ next_index: number }>('SELECT next_index FROM hd_accounts WHERE network = ?', [network]))?.next_index ?? 0);
  }

  /** Forgets a network's pooled, unclaimed addresses (made from keys it no longer uses); their indexes are skipped. */
  async dropPooled(network: string): Promise<void> {
    await this.sql.run('DELETE FROM addresses WHERE network = ? AND payment_id IS NULL', [network]);
  }

  /**
   * Moves a network's next derivation index (or destination tag) past every one its addresses
   * already use, should the counter have fallen behind them (a database restored or edited by hand):
   * then an index it hands out is one no payment holds. Rare; it reads all of the network's rows.
   */
  async raiseNextIndexPastRecorded(network: string): Promise<void> {
    // Only what a tag can be (digits alone, at most 4294967295) counts: a row edited by hand to hold
    // anything else can neither fail the count nor move it past the tags a payer can send. The
    // nested CASE casts only digits (PostgreSQL does not promise to evaluate AND left to right).
    const digits = this.sql.dialect.name === 'postgres' ? "dest_tag ~ '^[0-9]{1,10}$'" : "dest_tag NOT GLOB '*[^0-9]*' AND length(dest_tag) BETWEEN 1 AND 10";
    const row = await this.sql.get<{ derived: number | string | null; tagged: number | string | null }>(
      `SELECT MAX(derivation_index) AS derived,
         MAX(CASE WHEN ${digits} THEN CASE WHEN CAST(dest_tag AS BIGINT) <= ${MAX_TAG} THEN CAST(dest_tag AS BIGINT) END END) AS tagged
       FROM addresses WHERE network = ?`,
      [network],
    );
    // A tag is its index plus one; an index is used by its own address.
    const past = Math.max(row?.derived === null || row?.derived === undefined ? 0 : Number(row.derived) + 1, Number(row?.tagged ?? 0));
    await this.sql.run('UPDATE hd_accounts SET next_index = ? WHERE network = ? AND next_index < ?', [past, network, past]);
  }

  /** A network's account key. */
  async xpubOf(network: string): Promise<string | undefined> {
    return (await this.sql.get<{ xpub: string }>('SELECT xpub FROM hd_accounts WHERE network = ?', [network]))?.xpub;
  }

  /** The networks that have an account key. */
  async accountNetworks(): Promise<string[]> {
    return (await this.sql.all<{ network: string }>('SELECT network FROM hd_accounts ORDER BY network')).map((row) => row.network);
  }

  /** Stores a network's account key, unless another process stored one first. */
  async insertAccount(network: string, xpub: string): Promise<void> {
    await this.sql.run('INSERT INTO hd_accounts (network, xpub, next_index) VALUES (?, ?, 0) ON CONFLICT DO NOTHING', [network, xpub]);
  }

  /** Records an address (pooled when `paymentId` is null); false if it was already there. */
  async insertAddress(network: string, address: string, destTag: string | null, derivationIndex: number | null, paymentId: string | null): Promise<boolean> {
    const changes = await this.sql.run(
      'INSERT INTO addresses (network, address, dest_tag, derivation_index, payment_id) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      [network, address, destTag, derivationIndex, paymentId],
    );
    return changes === 1;
  }

  /**
   * Adds consecutive pre-derived addresses to a network's pool, `addresses[i]` at derivation index
   * `fromIndex + i`, in one statement (a round trip per address made a refill the costliest part
   * of creates on PostgreSQL); returns how many were new.
   */
  async insertPooled(network: string, addresses: readonly string[], fromIndex: number): Promise<number> {
    if (addresses.length === 0) return 0;
    const rows = addresses.map(() => '(?, ?, NULL, ?, NULL)').join(', ');
    const params = addresses.flatMap((address, i) => [network, address, fromIndex + i]);
    return this.sql.run(`INSERT INTO addresses (network, address, dest_tag, derivation_index, payment_id) VALUES ${rows} ON CONFLICT DO NOTHING`, params);
  }

  /** Whether an address (as this installation spells it) is one it hands out to receive payments, claimed or pooled. */
  async isReceiving(network: string, address: string): Promise<boolean> {
    return (await this.sql.get<{ found: number }>('SELECT 1 AS found FROM addresses WHERE network = ? AND address = ? LIMIT 1', [network, address])) !== undefined;
  }

  /** How many unclaimed addresses a network has ready. */
  async countPooled(network: string): Promise<number> {
    return Number((await this.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${POOL[this.sql.dialect.name]} WHERE network = ? AND payment_id IS NULL`, [network]))!.n);
  }

  /** The network's payment addresses that ever received a counted transaction, with their derivation index. */
  async receivedOn(network: string): Promise<Array<{ address: string; index: number }>> {
    const rows = await this.sql.all<{ address: string; derivation_index: number }>(
      `SELECT DISTINCT a.address, a.derivation_index FROM addresses a JOIN payment_transactions t ON t.payment_id = a.payment_id
        WHERE a.network = ? AND a.derivation_index IS NOT NULL ORDER BY a.derivation_index`,
      [network],
    );
    return rows.map((row) => ({ address: row.address, index: Number(row.derivation_index) }));
  }
}
