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

  /** Any one merchant's credentials, to check at start-up that the server key still opens them. */
  async findAny(): Promise<MerchantCredentials | undefined> {
    const row = await this.sql.get<MerchantRow>('SELECT * FROM merchants ORDER BY created_at, id LIMIT 1');
    return row && { merchant: toMerchant(row), secretKeyEnc: row.secret_key_enc };
  }
}
