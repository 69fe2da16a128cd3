/**
 * The address derivation worker: a bounded heap of its own (it was the largest part of the
 * service's peak memory), within which it still derives a full batch exactly as the main thread does.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { DERIVE_WORKER_LIMITS, startDeriveWorker } from '../../api/networks/address-pool.ts';
import type { DeriveRequest, DeriveResponse } from '../../api/networks/derive-worker.ts';
import { deriveReceiveAddress } from '../../api/networks/hd-wallet.ts';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const xpub = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC)).derive("m/44'/60'/0'").publicExtendedKey;

describe('the derivation worker', () => {
  const worker = startDeriveWorker();
  after(() => worker.terminate());

  test('runs with a small young generation and a capped old one', () => {
    assert.deepEqual(DERIVE_WORKER_LIMITS, { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 64 });
    assert.equal(worker.resourceLimits?.maxYoungGenerationSizeMb, 2);
    assert.equal(worker.resourceLimits?.maxOldGenerationSizeMb, 64);
  });

  test('derives a full batch within those limits, as the main thread does', async () => {
    const request: DeriveRequest = { id: 1, network: 'ethereum', xpub, fromIndex: 500, count: 100, chain: 'main' };
    const answered = new Promise<DeriveResponse>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    worker.postMessage(request);
    const { id, addresses } = await answered;
    assert.equal(id, 1);
    assert.deepEqual(
      addresses,
      Array.from({ length: 100 }, (_, i) => deriveReceiveAddress(xpub, 'ethereum', 500 + i, 'main')),
    );
  });
});
