/** The installation's HD accounts across an upgrade that adds a network. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Database } from '../../api/db/database.ts';
import { loadAssetRegistry } from '../../api/networks/asset-registry.ts';
import { ensureHdAccounts } from '../../api/networks/hd-wallet.ts';
import { createUnitOfWork } from '../../api/unit-of-work.ts';
import type { TestDatabase } from '../helpers/test-database.ts';
import { openTestStore } from '../helpers/test-server.ts';

let dir: string;
let db: Database;
let database: TestDatabase | undefined;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-hd-'));
  ({ db, database } = await openTestStore(dir));
});
after(async () => {
  await db.close();
  await database?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a receive-only installation (its mnemonic moved off the machine) still starts once a release adds a network', async () => {
  const uow = createUnitOfWork(db);
  const registry = await loadAssetRegistry(uow.stores.assets, 'http://localhost');
  const file = path.join(dir, 'wallet-mnemonic.txt');
  assert.equal(await ensureHdAccounts(uow.stores.addresses, registry, file, { create: true }), file);
  const keyed = await uow.stores.addresses.accountNetworks();
  // As before the upgrade: no key for the new network, and the mnemonic is gone from the machine.
  await db.run("DELETE FROM hd_accounts WHERE network = 'monero'");
  fs.rmSync(file);
  assert.equal(await ensureHdAccounts(uow.stores.addresses, registry, file, { create: false }), undefined);
  assert.deepEqual((await uow.stores.addresses.accountNetworks()).sort(), keyed.filter((n) => n !== 'monero').sort());
  // A new installation without a mnemonic still refuses to start in production.
  await db.run('DELETE FROM hd_accounts');
  await assert.rejects(ensureHdAccounts(uow.stores.addresses, registry, file, { create: false }), /NODE_ENV=production never generates one/);
});
