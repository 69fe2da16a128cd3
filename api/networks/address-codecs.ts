/**
 * @module Address codecs: how each network turns a public key into a receiving address, and how
 * it checks an address someone else gave us. Every checksum comes from a maintained library.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { createBase58check } from '@scure/base';
import { Address, NETWORK, p2wpkh } from '@scure/btc-signer';
import { addr as ethAddress } from 'micro-eth-signer';
import { encodeAccountID, isValidClassicAddress } from 'ripple-address-codec';

/** The address rules of one network. */
export interface AddressCodec {
  /** The receiving address of a compressed secp256k1 public key. */
  fromPublicKey(publicKey: Uint8Array): string;
  /** Whether an address is well-formed for this network, checksum included. */
  isValid(address: string): boolean;
  /** Whether payments to this network must carry a destination tag. */
  readonly requiresTag: boolean;
}

type BtcNetwork = typeof NETWORK;

// Litecoin's P2SH addresses start with M. Its old '3...' form is refused: it is byte for byte a
// Bitcoin P2SH address, so a Bitcoin address pasted into a Litecoin payout would pass.
const LITECOIN: BtcNetwork = { bech32: 'ltc', pubKeyHash: 0x30, scriptHash: 0x32, wif: 0xb0 };

const base58check = createBase58check(sha256);
const TRON_PREFIX = 0x41;

function btcLike(networks: BtcNetwork[]): AddressCodec {
  const primary = networks[0]!;
  return {
    requiresTag: false,
    fromPublicKey: (publicKey) => p2wpkh(publicKey, primary).address!,
    isValid(address) {
      return networks.some((network) => {
        try {
          Address(network).decode(address);
          return true;
        } catch {
          return false;
        }
      });
    },
  };
}

function uncompressed(publicKey: Uint8Array): Uint8Array {
  return secp256k1.Point.fromBytes(publicKey).toBytes(false);
}

const ethereum: AddressCodec = {
  requiresTag: false,
  fromPublicKey: (publicKey) => ethAddress.fromPublicKey(publicKey),
  // All-lowercase and all-uppercase addresses carry no checksum (EIP-55); mixed case must match it.
  isValid: (address) => /^0x[0-9a-fA-F]{40}$/.test(address) && ethAddress.isValid(address),
};

const tron: AddressCodec = {
  requiresTag: false,
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
};

const ripple: AddressCodec = {
  requiresTag: true,
  fromPublicKey: (publicKey) => encodeAccountID(ripemd160(sha256(publicKey))),
  isValid: (address) => {
    try {
      return isValidClassicAddress(address);
    } catch {
      return false;
    }
  },
};

const CODECS: Record<string, AddressCodec> = {
  bitcoin: btcLike([NETWORK]),
  litecoin: btcLike([LITECOIN]),
  ethereum,
  tron,
  ripple,
};

/** The codec of a network; a network without one cannot be served (it needs code, not data). */
export function addressCodec(network: string): AddressCodec {
  const codec = CODECS[network];
  if (!codec) throw new Error(`no address codec for network "${network}"`);
  return codec;
}

/** Whether this build knows how to make and check addresses of a network. */
export function hasAddressCodec(network: string): boolean {
  return network in CODECS;
}
