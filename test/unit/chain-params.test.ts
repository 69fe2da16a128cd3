/**
 * Bitcoin and Litecoin chain parameters against published vectors: BIP173/BIP350 addresses on every
 * chain (the same hash160 encodes to each chain's prefix), the scriptPubKey a P2WPKH address stands
 * for, derivation paths with coin type 1' off main, and each chain refusing the others' addresses.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hex } from '@scure/base';
import { Address, OutScript } from '@scure/btc-signer';
import { accountPathOn, chainParams } from '../../api/networks/chain-params.ts';

// BIP173: the P2WPKH of public key 0279BE667E…F81798 (hash160 751e76e8199196d454941c45d1b3a323f1433bd6).
const HASH160 = hex.decode('751e76e8199196d454941c45d1b3a323f1433bd6');

describe('chain parameters', () => {
  test('encode the BIP173 P2WPKH vector with each chain\'s prefix', () => {
    const expected: Array<['bitcoin' | 'litecoin', 'main' | 'test' | 'regtest', string]> = [
      ['bitcoin', 'main', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'],
      ['bitcoin', 'test', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx'],
      ['bitcoin', 'regtest', 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080'],
      ['litecoin', 'main', 'ltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9'],
    ];
    for (const [network, chain, address] of expected) {
      assert.equal(Address(chainParams(network, chain)).encode({ type: 'wpkh', hash: HASH160 }), address, `${network} ${chain}`);
    }
  });

  test('the address stands for the scriptPubKey the node reports (OP_0 <20 bytes>)', () => {
    const decoded = Address(chainParams('bitcoin', 'main')).decode('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4');
    assert.equal(hex.encode(OutScript.encode(decoded)), '0014751e76e8199196d454941c45d1b3a323f1433bd6');
  });

  test('each chain refuses the others\' addresses', () => {
    const main = Address(chainParams('litecoin', 'main'));
    const regtest = Address(chainParams('litecoin', 'regtest'));
    const regtestAddress = regtest.encode({ type: 'wpkh', hash: HASH160 });
    assert.match(regtestAddress, /^rltc1q/);
    assert.throws(() => main.decode(regtestAddress));
    assert.throws(() => regtest.decode('ltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9'));
    assert.throws(() => Address(chainParams('bitcoin', 'main')).decode('ltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9'));
  });

  test('derivation uses coin type 1\' off main, the account unchanged', () => {
    assert.equal(accountPathOn("m/84'/0'/0'", 'main'), "m/84'/0'/0'");
    assert.equal(accountPathOn("m/84'/2'/0'", 'regtest'), "m/84'/1'/0'");
    assert.equal(accountPathOn("m/84'/0'/3'", 'test'), "m/84'/1'/3'");
  });
});
