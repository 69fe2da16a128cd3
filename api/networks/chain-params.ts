/**
 * @module The chains a Bitcoin Core-compatible node can be on, and what each fixes: the chain name
 * the node reports, address prefixes, and the BIP44 coin type of the derivation path (1' on every
 * chain but main, as wallets do).
 */
import type { ChainName } from '../config.ts';

/** Address parameters of one chain (as @scure/btc-signer takes them). */
export interface ChainParams {
  bech32: string;
  pubKeyHash: number;
  scriptHash: number;
  wif: number;
}

const PARAMS: Record<'bitcoin' | 'litecoin', Record<ChainName, ChainParams>> = {
  bitcoin: {
    main: { bech32: 'bc', pubKeyHash: 0x00, scriptHash: 0x05, wif: 0x80 },
    test: { bech32: 'tb', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef },
    regtest: { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef },
  },
  litecoin: {
    main: { bech32: 'ltc', pubKeyHash: 0x30, scriptHash: 0x32, wif: 0xb0 },
    test: { bech32: 'tltc', pubKeyHash: 0x6f, scriptHash: 0x3a, wif: 0xef },
    regtest: { bech32: 'rltc', pubKeyHash: 0x6f, scriptHash: 0x3a, wif: 0xef },
  },
};

/** Whether a network is served by a Bitcoin Core-compatible node. */
export function isUtxoNetwork(network: string): network is 'bitcoin' | 'litecoin' {
  return network === 'bitcoin' || network === 'litecoin';
}

/** The address parameters of a network on a chain. */
export function chainParams(network: 'bitcoin' | 'litecoin', chain: ChainName): ChainParams {
  return PARAMS[network][chain];
}

/** The BIP44 account path on a chain: coin type 1' off main. */
export function accountPathOn(path: string, chain: ChainName): string {
  return chain === 'main' ? path : path.replace(/^(m\/\d+'\/)\d+'/, "$11'");
}
