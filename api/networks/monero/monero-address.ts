/**
 * @module Monero addresses: checking one a merchant gives (network byte, Keccak checksum, two
 * points on the curve) and deriving the subaddresses of a wallet from its private view key and
 * public spend key, as wallet2 does (`get_subaddress_spend_public_key`), so a payment's address
 * needs no wallet call inside its database transaction.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { base58xmr } from '@scure/base';

const Point = ed25519.Point;
const ORDER = Point.Fn.ORDER;

/** Address prefixes of mainnet (regtest uses mainnet's), testnet and stagenet: standard, integrated, subaddress. */
const PREFIXES = {
  main: { standard: 18, integrated: 19, subaddress: 42 },
  test: { standard: 53, integrated: 54, subaddress: 63 },
  stage: { standard: 24, integrated: 25, subaddress: 36 },
} as const;

/** A Monero network type, as addresses encode it. */
export type MoneroNetType = keyof typeof PREFIXES;

/** The public part of a wallet that its subaddresses are derived from. */
export interface MoneroViewKeys {
  /** The private view key, 32 bytes (little-endian scalar). */
  viewKey: Uint8Array;
  /** The public spend key of the primary address, 32 bytes. */
  spendPublic: Uint8Array;
  net: MoneroNetType;
}

function scalarOf(bytes: Uint8Array): bigint {
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]!);
  return value;
}

// Monero's Hs: Keccak-256, read as a little-endian number, reduced modulo the group order.
function hashToScalar(data: Uint8Array): bigint {
  return scalarOf(keccak_256(data)) % ORDER;
}

function encode(prefix: number, spend: Uint8Array, view: Uint8Array): string {
  // Every prefix used here is below 128: its varint is one byte.
  const body = Uint8Array.of(prefix, ...spend, ...view);
  return base58xmr.encode(Uint8Array.of(...body, ...keccak_256(body).subarray(0, 4)));
}

/** The decoded parts of an address: its kind, network and the two public keys. */
export interface DecodedMoneroAddress {
  net: MoneroNetType;
  kind: 'standard' | 'integrated' | 'subaddress';
  spendPublic: Uint8Array;
  viewPublic: Uint8Array;
}

/** Decodes an address (checksum, prefix and both points checked); undefined when it is not one. */
export function decodeMoneroAddress(address: string): DecodedMoneroAddress | undefined {
  if (!/^[1-9A-HJ-NP-Za-km-z]{95}$|^[1-9A-HJ-NP-Za-km-z]{106}$/.test(address)) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = base58xmr.decode(address);
  } catch {
    return undefined;
  }
  const body = bytes.subarray(0, -4);
  const checksum = keccak_256(body).subarray(0, 4);
  if (!checksum.every((byte, i) => byte === bytes[bytes.length - 4 + i])) return undefined;
  const prefix = body[0]!;
  for (const [net, prefixes] of Object.entries(PREFIXES) as Array<[MoneroNetType, (typeof PREFIXES)[MoneroNetType]]>) {
    const kind = (Object.keys(prefixes) as Array<keyof typeof prefixes>).find((k) => prefixes[k] === prefix);
    if (!kind) continue;
    if (body.length !== (kind === 'integrated' ? 73 : 65)) return undefined;
    const spendPublic = body.slice(1, 33);
    const viewPublic = body.slice(33, 65);
    try {
      Point.fromBytes(spendPublic);
      Point.fromBytes(viewPublic);
    } catch {
      return undefined;
    }
    return { net, kind, spendPublic, viewPublic };
  }
  return undefined;
}

/** Whether an address is a valid Monero address of a network type. */
export function isMoneroAddress(address: string, net: MoneroNetType = 'main'): boolean {
  return decodeMoneroAddress(address)?.net === net;
}

/** Whether a valid address spends to the identity point: nobody holds its key, so what it gets is lost. */
export function isMoneroBurnAddress(address: string): boolean {
  const spend = decodeMoneroAddress(address)?.spendPublic;
  return spend !== undefined && Point.fromBytes(spend).equals(Point.ZERO);
}

/**
 * The subaddress (major, minor) of a wallet: D = B + Hs("SubAddr\0" ‖ a ‖ major ‖ minor)·G and
 * C = a·D. (0, 0) is the primary address itself.
 */
export function moneroSubaddress(keys: MoneroViewKeys, major: number, minor: number): string {
  const view = scalarOf(keys.viewKey) % ORDER;
  const spend = Point.fromBytes(keys.spendPublic);
  if (major === 0 && minor === 0) return encode(PREFIXES[keys.net].standard, keys.spendPublic, Point.BASE.multiply(view).toBytes());
  const data = new Uint8Array(8 + 32 + 8);
  data.set(new TextEncoder().encode('SubAddr\0'));
  data.set(keys.viewKey, 8);
  const indexes = new DataView(data.buffer, 40);
  indexes.setUint32(0, major, true);
  indexes.setUint32(4, minor, true);
  const m = hashToScalar(data);
  const d = spend.add(Point.BASE.multiply(m));
  return encode(PREFIXES[keys.net].subaddress, d.toBytes(), d.multiply(view).toBytes());
}

/**
 * A Monero-form address made from another key, for the simulator only: both of its points come
 * from hashes of the key, so nobody holds its secrets and no real wallet could receive there.
 */
export function simulatedMoneroAddress(publicKey: Uint8Array): string {
  const spend = Point.BASE.multiply(hashToScalar(publicKey) || 1n);
  const view = Point.BASE.multiply(hashToScalar(keccak_256(publicKey)) || 1n);
  return encode(PREFIXES.main.subaddress, spend.toBytes(), view.toBytes());
}
