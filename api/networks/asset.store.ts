/** SQL for the networks and assets the service serves (read once at start-up by the registry). */
import type { Sql } from '../db/database.ts';

/** A network row. */
export interface NetworkRow {
  name: string;
  display_name: string;
  confirmations_needed: number;
  receive_mode: 'derived' | 'tagged';
  account_path: string;
  chain_id: number | null;
}

/** An asset row. */
export interface AssetRow {
  id: number;
  short: string;
  network: string;
  name: string;
  logo: string;
  decimals: number;
  chain_decimals: number;
  contract_address: string | null;
  withdrawal_fee: string;
  dust_limit: string;
  /** Digits received amounts and the ledger keep; null: `decimals` (Monero: 12, its chain's unit). */
  counted_decimals: number | null;
}

/** SQL for networks and assets. */
export class AssetStore {
  constructor(private readonly sql: Sql) {}

  /** Every network, those with the earliest assets first. */
  async networks(): Promise<NetworkRow[]> {
    return this.sql.all<NetworkRow>(
      `SELECT n.name, n.display_name, n.confirmations_needed, n.receive_mode, n.account_path, n.chain_id FROM networks n
       ORDER BY (SELECT MIN(a.id) FROM assets a WHERE a.network = n.name), n.name`,
    );
  }

  /** Every asset, in id order. */
  async assets(): Promise<AssetRow[]> {
    return this.sql.all<AssetRow>('SELECT * FROM assets ORDER BY id');
  }

  /** Sets a token asset's contract address; false when no token asset has that ticker on that network. */
  async setContract(short: string, network: string, contract: string): Promise<boolean> {
    return (await this.sql.run('UPDATE assets SET contract_address = ? WHERE short = ? AND network = ? AND contract_address IS NOT NULL', [contract, short, network])) === 1;
  }
}
