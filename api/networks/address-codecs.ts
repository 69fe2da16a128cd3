/**
 * @module Address codecs: how each network turns a public key into a receiving address, and how
 * it checks an address someone else gave us. Every checksum comes from a maintained library.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { createBase58check } from '@scure/base';
import { Address, NETWORK } from '@scure/btc-signer';
import { addr as ethAddress } from 'micro-eth-signer';
import { encodeAccountID, isValidClassicAddress } from 'ripple-address-codec';
import type { ChainName } from '../config.ts';
import { chainParams, isUtxoNetwork } from './chain-params.ts';
import { isMoneroAddress, isMoneroBurnAddress, simulatedMoneroAddress } from './monero/monero-address.ts';

/** The address rules of one network. */
export interface AddressCodec {
  /**
   * The receiving address of a secp256k1 public key of this installation's wallet, compressed (33
   * bytes) or not (65). Give it the form `keyForm` names and no point is decompressed.
   */
  fromPublicKey(publicKey: Uint8Array): string;
  /** The public key form this network's addresses are made from. */
  readonly keyForm: 'compressed' | 'uncompressed';
  /** Whether an address is well-formed for this network, checksum included. */
  isValid(address: string): boolean;
  /** Whether payments to this network must carry a destination tag. */
  readonly requiresTag: boolean;
  /** Whether a valid address is the network's zero address: no one holds its key, so what it gets is lost. */
  isZero(address: string): boolean;
  /**
   * A valid address in the one spelling this installation writes (and a node reports): bech32 in
   * lower case, Ethereum with its EIP-55 checksum, the rest as given. Another valid spelling of the
   * same address (upper-case bech32, as QR codes carry it; all-lowercase Ethereum) pays the same.
   */
  canonical(address: string): string;
}

type BtcNetwork = typeof NETWORK;

// Litecoin's P2SH addresses start with M. Its old '3...' form is refused: it is byte for byte a
// Bitcoin P2SH address, so a Bitcoin address pasted into a Litecoin payout would pass.
const LITECOIN: BtcNetwork = { bech32: 'ltc', pubKeyHash: 0x30, scriptHash: 0x32, wif: 0xb0 };

const base58check = createBase58check(sha256);
const TRON_PREFIX = 0x41;
const TRON_ZERO = base58check.encode(Uint8Array.of(TRON_PREFIX, ...new Uint8Array(20)));

function btcLike(networks: BtcNetwork[]): AddressCodec {
  const primary = networks[0]!;
  const isValid = (address: string) =>
    networks.some((network) => {
      try {
        Address(network).decode(address);
        return true;
      } catch {
        return false;
      }
    });
  return {
    requiresTag: false,
    keyForm: 'compressed',
    isZero: () => false,
    // The key is the wallet's own, valid by construction: hashed, not re-checked (p2wpkh would
    // decompress it to check it, most of an address's cost).
    fromPublicKey: (publicKey) => Address(primary).encode({ type: 'wpkh', hash: ripemd160(sha256(compressed(publicKey))) }),
    isValid,
    // Base58 is case-sensitive; bech32 is all one case or the other, and written in lower case.
    canonical(address) {
      const lower = address.toLowerCase();
      const bech32 = lower !== address && networks.some((network) => lower.startsWith(`${network.bech32}1`)) && isValid(lower);
      return bech32 ? lower : address;
    },
  };
}

function uncompressed(publicKey: Uint8Array): Uint8Array {
  return publicKey.length === 65 ? publicKey : secp256k1.Point.fromBytes(publicKey).toBytes(false);
}

function compressed(publicKey: Uint8Array): Uint8Array {
  return publicKey.length === 33 ? publicKey : secp256k1.Point.fromBytes(publicKey).toBytes(true);
}

const ethereum: AddressCodec = {
  requiresTag: false,
  keyForm: 'uncompressed',
  fromPublicKey: (publicKey) => ethAddress.fromPublicKey(uncompressed(publicKey)),
  // All-lowercase and all-uppercase addresses carry no checksum (EIP-55); mixed case must match it.
  isValid: (address) => /^0x[0-9a-fA-F]{40}$/.test(address) && ethAddress.isValid(address),
  // Ether and every ERC-20 token sent there are burnt.
  isZero: (address) => /^0x0{40}$/.test(address),
  canonical: (address) => ethAddress.addChecksum(address),
};

const tron: AddressCodec = {
  requiresTag: false,
  keyForm: 'uncompressed',
  fromPublicKey(publicKey) {
    const hash = keccak_256(uncompressed(publicKey).subarray(1)).subarray(-20);
    return base58check.encode(Uint8Array.of(TRON_PREFIX, ...hash));
  },
  isValid(address) {
    if (!/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(address)) return false;
    try {
      const bytes = base58check.decode(address);
      return bytes.length === 21 && bytes[0] === TRON_PREFIX;
    } catch {
      return false;
    }
  },
  // The prefix and twenty zero bytes (the Ethereum zero address, TRON's way).
  isZero: (address) => address === TRON_ZERO,
  canonical: (address) => address,
};

const ripple: AddressCodec = {
  requiresTag: true,
  keyForm: 'compressed',
  isZero: () => false,
  canonical: (address) => address,
  fromPublicKey: (publicKey) => encodeAccountID(ripemd160(sha256(compressed(publicKey)))),
  isValid: (address) => {
    try {
      return isValidClassicAddress(address);
    } catch {
      return false;
    }
  },
};

// Monero's receiving addresses are the wallet's subaddresses (networks/monero/); a key of the
// installation's HD wallet makes only the simulator's stand-ins. Mainnet prefixes, which regtest
// shares: a testnet or stagenet address is refused.
const monero: AddressCodec = {
  requiresTag: false,
  keyForm: 'compressed',
  fromPublicKey: simulatedMoneroAddress,
  isValid: (address) => isMoneroAddress(address, 'main'),
  isZero: isMoneroBurnAddress,
  canonical: (address) => address,
};

const CODECS: Record<string, AddressCodec> = {
  bitcoin: btcLike([NETWORK]),
  litecoin: btcLike([LITECOIN]),
  ethereum,
  tron,
  ripple,
  monero,
};

// A UTXO network on test or regtest has its own prefixes: made once per network and chain.
const OFF_MAIN = new Map<string, AddressCodec>();

/**
 * The codec of a network on a chain (`main` unless its node runs test or regtest): addresses are
 * made and checked as that chain's, so a mainnet address is refused on regtest and back. A network
 * without a codec cannot be served (it needs code, not data).
 */
export function addressCodec(network: string, chain: ChainName): AddressCodec {
  if (chain !== 'main' && isUtxoNetwork(network)) {
    const key = `${network}/${chain}`;
    let codec = OFF_MAIN.get(key);
    if (!codec) OFF_MAIN.set(key, (codec = btcLike([chainParams(network, chain) as BtcNetwork])));
    return codec;
  }
  const codec = CODECS[network];
  if (!codec) throw new Error(`no address codec for network "${network}"`);
  return codec;
}

/** Whether this build knows how to make and check addresses of a network. */
export function hasAddressCodec(network: string): boolean {
  return network in CODECS;
}

// An Ethereum address (hex in any case), and a bech32 one (all of one case; no 1, b, i or o after
// the separator): both spell one address in either case.
const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BECH32_ADDRESS = /^[a-zA-Z]{1,83}1[02-9ac-hj-np-zAC-HJ-NP-Z]{6,}$/;

/**
 * The spellings a searched address may be stored in: as given and, where a network's addresses
 * are the same in any case, as the codecs write them (`canonical`): Ethereum's with its EIP-55
 * checksum, bech32 in lower case. Base58 addresses are case-sensitive: only as given.
 */
export function addressSpellings(term: string): string[] {
  if (HEX_ADDRESS.test(term)) return [...new Set([term, ethereum.canonical(term)])];
  if (BECH32_ADDRESS.test(term)) return [...new Set([term, term.toLowerCase()])];
  return [term];
}
