/**
 * @module The installation's HD wallet. Receiving needs only each network's account-level extended
 * public key (BIP32 public derivation); the mnemonic is written once to DATA_DIR for the operator
 * to move offline, and the service never reads it again unless a new network needs an account.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { HDKey } from '@scure/bip32';
import { generateMnemonic, mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import fs from 'node:fs';
import path from 'node:path';
import type { ChainName } from '../config.ts';
import { addressCodec } from './address-codecs.ts';
import type { AddressStore } from './address.store.ts';
import type { AssetRegistry } from './asset-registry.ts';

/**
 * Makes sure every network has an account xpub in hd_accounts, generating the installation's
 * mnemonic on first start. Returns the path of the mnemonic file when it was just created.
 */
export async function ensureHdAccounts(addresses: AddressStore, registry: AssetRegistry, file: string, options: { create: boolean } = { create: true }): Promise<string | undefined> {
  const existing = new Set(await addresses.accountNetworks());
  const missing = registry.networks().filter((n) => !existing.has(n.name));
  if (missing.length === 0) return undefined;
  let created: string | undefined;
  let mnemonic = readMnemonic(file);
  if (mnemonic === undefined && missing.length === registry.networks().length && !options.create) throw new Error(noWalletMessage(file));
  if (mnemonic === undefined && missing.length === registry.networks().length) {
    mnemonic = writeNewMnemonic(file);
    created = file;
  } else if (mnemonic === undefined) {
    // A receive-only installation keeps its mnemonic off the machine: a network added since (a new
    // release's Monero) gets no key from it. It is served only where something else provides its
    // addresses (a Monero wallet), and what needs a key it lacks says so when it starts.
    return undefined;
  }
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic));
  // Another instance starting at the same moment may store its own first: the first key stored wins,
  // and the check below refuses to go on with a key this process did not write.
  for (const network of missing) await addresses.insertAccount(network.name, root.derive(network.accountPath).publicExtendedKey);
  for (const network of missing) {
    if ((await addresses.xpubOf(network.name)) !== root.derive(network.accountPath).publicExtendedKey) {
      throw new Error(`another process stored a different account key for ${network.name} at the same moment; start instances of a new database one at a time, with one mnemonic`);
    }
  }
  return created;
}

/** Why a new production installation without a mnemonic file does not start, and what to do. */
export function noWalletMessage(file: string): string {
  return `there is no wallet yet, and NODE_ENV=production never generates one: put a BIP39 mnemonic in ${file} (WALLET_MNEMONIC_FILE), mode 0600 (npm run cli -- wallet create-mnemonic --file ${file} writes a new one)`;
}

/** Writes a new 24-word mnemonic to a file that must not exist yet (mode 0600); returns it. */
export function writeNewMnemonic(file: string): string {
  const mnemonic = generateMnemonic(wordlist, 256);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(
    file,
    '# The BIP39 mnemonic of this installation\'s wallet. It controls every payment address and signs payouts.\n' +
      '# Back it up offline. Without this file the service still receives, but cannot pay out.\n' +
      mnemonic +
      '\n',
    { mode: 0o600, flag: 'wx' },
  );
  return mnemonic;
}

/** The mnemonic in a wallet file (its last line), or undefined when there is no file. */
export function readMnemonic(file: string): string | undefined {
  if (!fs.existsSync(file)) return undefined;
  const mnemonic = fs.readFileSync(file, 'utf8').trim().split('\n').at(-1)!.trim();
  if (!validateMnemonic(mnemonic, wordlist)) throw new Error(`${file} does not end with a valid BIP39 mnemonic`);
  return mnemonic;
}

/** The wallet's root key from its mnemonic. */
export function rootKeyOf(mnemonic: string): HDKey {
  return HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic));
}

/** A chain node (xpub/0 or xpub/1) with its public point decompressed once. */
interface ChainNode {
  node: HDKey;
  point: InstanceType<typeof secp256k1.Point>;
  /** The node's compressed public key, then four bytes for the child index. */
  data: Uint8Array;
}

const Point = secp256k1.Point;
const chains = new Map<string, ChainNode>();

function chainNode(xpub: string, chain: 0 | 1): ChainNode {
  const key = `${xpub}/${chain}`;
  let cached = chains.get(key);
  if (!cached) {
    const node = HDKey.fromExtendedKey(xpub).deriveChild(chain);
    const data = new Uint8Array(37);
    data.set(node.publicKey!);
    cached = { node, point: Point.fromBytes(node.publicKey!), data };
    chains.set(key, cached);
  }
  return cached;
}

/**
 * The public key of a node's non-hardened child: BIP32's CKDpub, point(parse256(IL)) + Kpar, with
 * the parent's point decompressed once per chain. `HDKey.deriveChild` decompresses the parent and
 * the child afresh for every index and multiplies in constant time (public data needs no
 * blinding): about 1.2 ms a key here with its address, this about 0.3 ms (1,000 keys measured).
 * The rare index that BIP32 skips (IL not below the curve order, IL zero, a child at infinity) goes
 * through `deriveChild`, which handles it as BIP32 says.
 */
function childPublicKey(chain: ChainNode, index: number, form: 'compressed' | 'uncompressed'): Uint8Array {
  const data = chain.data;
  new DataView(data.buffer, data.byteOffset).setUint32(33, index);
  const tweak = Point.Fn.fromBytes(hmac(sha512, chain.node.chainCode!, data).subarray(0, 32), true);
  if (Point.Fn.isValid(tweak) && tweak !== 0n) {
    const child = chain.point.add(Point.BASE.multiplyUnsafe(tweak));
    if (!child.equals(Point.ZERO)) return child.toBytes(form === 'compressed');
  }
  const publicKey = chain.node.deriveChild(index).publicKey!;
  return form === 'compressed' ? publicKey : Point.fromBytes(publicKey).toBytes(false);
}

/**
 * The address at `index` of an account's chain (0 receives payments, 1 is the sending, change,
 * chain), in the address form of the blockchain `on` (a node's test or regtest, else main).
 */
export function deriveAddress(xpub: string, network: string, chain: 0 | 1, index: number, on: ChainName): string {
  if (!Number.isSafeInteger(index) || index < 0 || index >= 0x80000000) throw new Error(`derivation index ${index} is not a non-hardened index`);
  const codec = addressCodec(network, on);
  return codec.fromPublicKey(childPublicKey(chainNode(xpub, chain), index, codec.keyForm));
}

/** The receiving address at `index` of an account's external chain (xpub/0/index). */
export function deriveReceiveAddress(xpub: string, network: string, index: number, on: ChainName): string {
  return deriveAddress(xpub, network, 0, index, on);
}

/** The account node with its private key, when the mnemonic belongs to this installation's account. */
export function accountSigner(root: HDKey, accountPath: string, xpub: string): HDKey | undefined {
  const account = root.derive(accountPath);
  return account.publicExtendedKey === xpub ? account : undefined;
}
