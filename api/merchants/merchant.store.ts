import type { Db } from '../db/open-database.ts';

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
export function createMerchantStore(db: Db) {
  const insert = db.prepare(
    `INSERT INTO merchants (id, name, site_url, logo_url, email, api_key_hash, secret_key_enc, created_at)
     VALUES (@id, @name, @siteUrl, @logoUrl, @email, @apiKeyHash, @secretKeyEnc, @createdAt)`,
  );
  const byApiKeyHash = db.prepare<[string], MerchantRow>('SELECT * FROM merchants WHERE api_key_hash = ?');
  const byId = db.prepare<[string], MerchantRow>('SELECT * FROM merchants WHERE id = ?');
  const anyOne = db.prepare<[], MerchantRow>('SELECT * FROM merchants LIMIT 1');

  return {
    /** Stores a new merchant. */
    insert(merchant: Merchant & { apiKeyHash: string; secretKeyEnc: string; createdAt: number }): void {
      insert.run(merchant);
    },
    /** Finds the merchant an API key (in hashed form) belongs to. */
    findByApiKeyHash(apiKeyHash: string): MerchantCredentials | undefined {
      const row = byApiKeyHash.get(apiKeyHash);
      return row && { merchant: toMerchant(row), secretKeyEnc: row.secret_key_enc };
    },
    /** Finds a merchant by id. */
    findById(id: string): Merchant | undefined {
      const row = byId.get(id);
      return row && toMerchant(row);
    },
    /** Any one merchant's credentials, to check at start-up that the server key still opens them. */
    findAny(): MerchantCredentials | undefined {
      const row = anyOne.get();
      return row && { merchant: toMerchant(row), secretKeyEnc: row.secret_key_enc };
    },
  };
}

/** The merchant store's interface. */
export type MerchantStore = ReturnType<typeof createMerchantStore>;
