import type { ChainName } from '../config.ts';
import { accountPathOn } from './chain-params.ts';
import { type AddressCodec, addressCodec, hasAddressCodec } from './address-codecs.ts';
import { Amount, parseAmount } from '../shared/money.ts';
import type { AssetStore } from './asset.store.ts';
import { type LogoFiles, shippedLogos } from './logo-files.ts';

/** A network the service receives and sends on. */
export interface Network {
  name: string;
  displayName: string;
  confirmationsNeeded: number;
  receiveMode: 'derived' | 'tagged';
  accountPath: string;
  chainId: number | null;
  /** The blockchain its node runs (test or regtest change address forms and coin types), else main. */
  chain: ChainName;
}

/** An asset on a network, as the registry holds it. */
export interface Asset {
  id: number;
  short: string;
  network: string;
  name: string;
  logo: string;
  decimals: number;
  /**
   * The digits received amounts and the ledger count exactly (Monero: 12); at least `decimals`.
   * Responses show amounts with `decimals`, an incoming amount floored to them.
   */
  countedDecimals: number;
  chainDecimals: number;
  contractAddress: string | null;
  withdrawalFee: string;
  /**
   * The smallest withdrawal the network relays: its fee plus its dust limit (at least one smallest
   * unit of the asset), as an exact decimal string.
   */
  minWithdrawal: string;
  /**
   * The smallest output the network relays (Bitcoin Core's dust limit; "0" on networks without
   * one), as an exact decimal string: no payment may ask for less, since no wallet could send it.
   */
  dustLimit: string;
}

/** The full asset object of responses. */
export interface AssetJson {
  short: string;
  network: string;
  name: string;
  logoUrl: string;
  decimals: number;
}

/** Networks and assets, read from the database once at start-up. */
export interface AssetRegistry {
  /** Finds an asset by ticker and network name (exact, case-sensitive). */
  find(short: string, network: string): Asset | undefined;
  /** The asset with a given row id. */
  byId(id: number): Asset;
  /** A network by name. */
  network(name: string): Network;
  /** The address codec of a network, on the chain its node runs. */
  codec(network: string): AddressCodec;
  /** Every asset, in registry order. */
  assets(): readonly Asset[];
  /** Every network. */
  networks(): readonly Network[];
  /** The response form of an asset, with an absolute logo URL. */
  toJson(asset: Asset): AssetJson;
  /**
   * Whether new payments and withdrawals may name the asset: its network runs on a node or on the
   * simulator (and a token's contract answers there). Everything is served until `serveOnly` is called.
   */
  isServed(asset: Asset): boolean;
  /** Decides, once at start-up when the adapters are known, which assets are served. */
  serveOnly(predicate: (asset: Asset) => boolean): void;
}

/**
 * Loads the registry; networks this build has no address codec for are left out, loudly. A logo
 * shipped with the service is pointed at by its content-hashed URL.
 */
export async function loadAssetRegistry(store: AssetStore, publicUrl: string, chains: Partial<Record<string, ChainName>> = {}, logos: LogoFiles = shippedLogos()): Promise<AssetRegistry> {
  const networks = new Map<string, Network>();
  for (const row of await store.networks()) {
    if (!hasAddressCodec(row.name)) throw new Error(`network "${row.name}" is in the database but this build has no address codec for it`);
    networks.set(row.name, {
      name: row.name,
      displayName: row.display_name,
      confirmationsNeeded: row.confirmations_needed,
      receiveMode: row.receive_mode,
      // Off main, derivation uses coin type 1' (testnet coins are not the real coin's keys).
      accountPath: accountPathOn(row.account_path, chains[row.name] ?? 'main'),
      chainId: row.chain_id,
      chain: chains[row.name] ?? 'main',
    });
  }
  const assets = (await store.assets()).map(
    (row): Asset => ({
      id: row.id,
      short: row.short,
      network: row.network,
      name: row.name,
      logo: row.logo,
      decimals: row.decimals,
      countedDecimals: Math.max(row.decimals, Number(row.counted_decimals ?? row.decimals)),
      chainDecimals: row.chain_decimals,
      contractAddress: row.contract_address,
      withdrawalFee: row.withdrawal_fee,
      minWithdrawal: parseAmount(row.withdrawal_fee).plus(Amount.max(parseAmount(row.dust_limit), new Amount(1).div(new Amount(10).pow(row.decimals)))).toFixed(),
      dustLimit: parseAmount(row.dust_limit).toFixed(),
    }),
  );
  const byKey = new Map(assets.map((a) => [`${a.short}\u0000${a.network}`, a]));
  const byId = new Map(assets.map((a) => [a.id, a]));
  const json = new Map<number, AssetJson>(
    assets.map((a) => [
      a.id,
      Object.freeze({ short: a.short, network: a.network, name: a.name, logoUrl: /^https?:\/\//.test(a.logo) ? a.logo : publicUrl + logos.hashedPath(a.logo), decimals: a.decimals }),
    ]),
  );

  let served: (asset: Asset) => boolean = () => true;
  return {
    find: (short, network) => byKey.get(`${short}\u0000${network}`),
    byId(id) {
      const asset = byId.get(id);
      if (!asset) throw new Error(`unknown asset id ${id}`);
      return asset;
    },
    network(name) {
      const network = networks.get(name);
      if (!network) throw new Error(`unknown network ${name}`);
      return network;
    },
    codec(name) {
      const network = networks.get(name);
      if (!network) throw new Error(`unknown network ${name}`);
      return addressCodec(name, network.chain);
    },
    assets: () => assets,
    networks: () => [...networks.values()],
    toJson: (asset) => json.get(asset.id)!,
    isServed: (asset) => served(asset),
    serveOnly(predicate) {
      served = predicate;
    },
  };
}
