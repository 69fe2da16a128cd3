/**
 * Address derivation: published BIP84/BIP44 vectors, and the fast public derivation checked
 * against @scure/bip32's own `deriveChild` over many indexes, on both chains and every codec.
 */
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { describe, test } from 'node:test';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { addressCodec } from '../../api/networks/address-codecs.ts';
import { deriveAddress, deriveReceiveAddress } from '../../api/networks/hd-wallet.ts';

// The mnemonic of BIP84's and many wallets' published test vectors.
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const root = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC));
const xpubAt = (path: string) => root.derive(path).publicExtendedKey;

describe('address derivation', () => {
  test('matches the published BIP84 bitcoin vectors (receive 0 and 1, change 0)', () => {
    const xpub = xpubAt("m/84'/0'/0'");
    assert.equal(deriveReceiveAddress(xpub, 'bitcoin', 0, 'main'), 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    assert.equal(deriveReceiveAddress(xpub, 'bitcoin', 1, 'main'), 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g');
    assert.equal(deriveAddress(xpub, 'bitcoin', 1, 0, 'main'), 'bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el');
  });

  test('matches the published BIP44 ethereum vector (EIP-55 checksummed)', () => {
    assert.equal(deriveReceiveAddress(xpubAt("m/44'/60'/0'"), 'ethereum', 0, 'main'), '0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
  });

  test('gives exactly the address of @scure/bip32 deriveChild for random indexes on every network and both chains', () => {
    const networks = ['bitcoin', 'litecoin', 'ethereum', 'tron', 'ripple'];
    for (const [n, network] of networks.entries()) {
      const account = root.derive(`m/44'/${n}'/0'`);
      for (const chain of [0, 1] as const) {
        const node = account.deriveChild(chain);
        for (let i = 0; i < 40; i++) {
          const index = i < 5 ? i : randomInt(0, 0x80000000);
          const expected = addressCodec(network, 'main').fromPublicKey(node.deriveChild(index).publicKey!);
          assert.equal(deriveAddress(account.publicExtendedKey, network, chain, index, 'main'), expected, `${network} chain ${chain} index ${index}`);
        }
      }
    }
  });

  test('refuses an index outside the non-hardened range', () => {
    const xpub = xpubAt("m/84'/0'/0'");
    for (const index of [-1, 0x80000000, 1.5, Number.NaN]) {
      assert.throws(() => deriveReceiveAddress(xpub, 'bitcoin', index, 'main'), /is not a non-hardened index/);
    }
  });
});
