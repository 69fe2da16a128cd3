/** Address codecs take the chain as a parameter: a node on regtest changes nothing for anyone else. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { addressCodec } from '../../api/networks/address-codecs.ts';

const KEY = secp256k1.getPublicKey(new Uint8Array(32).fill(7), true);

test("a chain's codec accepts that chain's addresses only, and asking for one leaves the others as they were", () => {
  const regtest = addressCodec('bitcoin', 'regtest');
  const main = addressCodec('bitcoin', 'main');
  const MAIN = main.fromPublicKey(KEY);
  const REGTEST = regtest.fromPublicKey(KEY);
  assert.match(MAIN, /^bc1q/);
  assert.match(REGTEST, /^bcrt1q/);
  assert.equal(regtest.isValid(REGTEST), true);
  assert.equal(regtest.isValid(MAIN), false);
  assert.equal(main.isValid(MAIN), true);
  assert.equal(main.isValid(REGTEST), false);
  // Asked again after the regtest codec: still main's (no module-wide switch).
  assert.equal(addressCodec('bitcoin', 'main').isValid(MAIN), true);
  assert.equal(addressCodec('bitcoin', 'regtest'), regtest, 'made once per network and chain');
});

test('networks without chain variants ignore the chain', () => {
  assert.equal(addressCodec('ethereum', 'regtest'), addressCodec('ethereum', 'main'));
});
