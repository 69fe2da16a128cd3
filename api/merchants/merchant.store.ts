import type { Sql } from '../db/database.ts';

/** A merchant as the API shows it. */
export interface Merchant {
  id: string;
  name: string;
  siteUrl: string | null;
  logoUrl: string | null;
  email: string | null;
}

/** A merchant together with its sealed secret key, as authentication needs it. */
export interface MerchantCredentials {
  merchant: Merchant;
  secretKeyEnc: string;
  /** Set for a key pair replaced by a rotation: accepted until then (epoch ms). */
  validUntil?: number;
}

/** A merchant in the operator's list. */
export interface MerchantListing extends Merchant {
  createdAt: number;
  /** When the keys before the last rotation stop working, if they still do. */
  previousKeysValidUntil: number | null;
}

interface MerchantRow {
  id: string;
  name: string;
  site_url: string | null;
  logo_url: string | null;
  email: string | null;
  secret_key_enc: string;
}

function toMerchant(row: MerchantRow): Merchant {
  return { id: row.id, name: row.name, siteUrl: row.site_url, logoUrl: row.logo_url, email: row.email };
}

/** SQL for merchants. */
export class MerchantStore {
  constructor(private readonly sql: Sql) {}

  /** Stores a new merchant. */
  async insert(merchant: Merchant & { apiKeyHash: string; secretKeyEnc: string; createdAt: number }): Promise<void> {
    await this.sql.run(
      `INSERT INTO merchants (id, name, site_url, logo_url, email, api_key_hash, secret_key_enc, created_at)
       VALUES (@id, @name, @siteUrl, @logoUrl, @email, @apiKeyHash, @secretKeyEnc, @createdAt)`,
      merchant,
    );
  }

  /** Finds the merchant an API key (in hashed form) belongs to. */
  async findByApiKeyHash(apiKeyHash: string): Promise<MerchantCredentials | undefined> {
    const row = await this.sql.get<MerchantRow>('SELECT * FROM merchants WHERE api_key_hash = ?', [apiKeyHash]);
    return row && { merchant: toMerchant(row), secretKeyEnc: row.secret_key_enc };
  }

  /** Finds a merchant by id. */
  async findById(id: string): Promise<Merchant | undefined> {
    const row = await this.sql.get<MerchantRow>('SELECT * FROM merchants WHERE id = ?', [id]);
    return row && toMerchant(row);
  }

  /** Replaces a merchant's profile (name, site, logo, e-mail); true if the merchant exists. */
  async updateProfile(merchant: Merchant): Promise<boolean> {
    return (await this.sql.run('UPDATE merchants SET name = @name, site_url = @siteUrl, logo_url = @logoUrl, email = @email WHERE id = @id', merchant)) === 1;
  }

  /** Locks a merchant's row until the transaction ends (PostgreSQL; SQLite serialises writers anyway). */
  async lockById(id: string): Promise<void> {
    await this.sql.get(`SELECT id FROM merchants WHERE id = ?${this.sql.dialect.forUpdate}`, [id]);
  }

  /** A key pair from before a rotation, while it is still accepted at `now`. */
  async findPreviousKey(apiKeyHash: string, now: number): Promise<MerchantCredentials | undefined> {
    const row = await this.sql.get<MerchantRow & { valid_until: number }>(
      `SELECT m.*, k.secret_key_enc AS secret_key_enc, k.valid_until AS valid_until FROM merchant_previous_keys k
       JOIN merchants m ON m.id = k.merchant_id WHERE k.api_key_hash = ? AND k.valid_until > ?`,
      [apiKeyHash, now],
    );
    return row && { merchant: toMerchant(row), secretKeyEnc: row.secret_key_enc, validUntil: Number(row.valid_until) };
  }

  /**
   * Gives a merchant a new key pair; the pair it had stays valid until `previousValidUntil`, and so
   * at most does every pair from earlier rotations (a second rotation with no grace ends them all:
   * that is how an operator cuts off a leaked key). Pairs that have lapsed are deleted. Run inside a
   * transaction.
   */
  async rotateKeys(merchantId: string, apiKeyHash: string, secretKeyEnc: string, previousValidUntil: number, now: number): Promise<boolean> {
    const current = await this.sql.get<MerchantRow & { api_key_hash: string }>(`SELECT * FROM merchants WHERE id = ?${this.sql.dialect.forUpdate}`, [merchantId]);
    if (!current) return false;
    await this.sql.run('UPDATE merchant_previous_keys SET valid_until = ? WHERE merchant_id = ? AND valid_until > ?', [previousValidUntil, merchantId, previousValidUntil]);
    await this.sql.run('DELETE FROM merchant_previous_keys WHERE merchant_id = ? AND valid_until <= ?', [merchantId, now]);
    await this.sql.run('INSERT INTO merchant_previous_keys (api_key_hash, merchant_id, secret_key_enc, valid_until) VALUES (?, ?, ?, ?)', [
      current.api_key_hash,
      merchantId,
      current.secret_key_enc,
      previousValidUntil,
    ]);
    await this.sql.run('UPDATE merchants SET api_key_hash = ?, secret_key_enc = ? WHERE id = ?', [apiKeyHash, secretKeyEnc, merchantId]);
    return true;
  }

  /** Every merchant, oldest first, with when its previous keys stop working. */
  async list(now: number): Promise<MerchantListing[]> {
    const rows = await this.sql.all<MerchantRow & { created_at: number; previous_valid_until: number | null }>(
      `SELECT m.*, (SELECT MAX(k.valid_until) FROM merchant_previous_keys k WHERE k.merchant_id = m.id AND k.valid_until > ?) AS previous_valid_until
       FROM merchants m ORDER BY m.created_at, m.id`,
      [now],
    );
    return rows.map((row) => ({
      ...toMerchant(row),
      createdAt: Number(row.created_at),
      previousKeysValidUntil: row.previous_valid_until === null ? null : Number(row.previous_valid_until),
    }));
  }

  /** Any one merchant's credentials, to check at start-up that the server key still opens them. */
  async findAny(): Promise<MerchantCredentials | undefined> {
    const row = await this.sql.get<MerchantRow>('SELECT * FROM merchants ORDER BY created_at, id LIMIT 1');
    return row && { merchant: toMerchant(row), secretKeyEnc: row.secret_key_enc };
  }
}
