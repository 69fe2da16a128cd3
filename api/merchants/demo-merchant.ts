/**
 * @module The demo merchant `npm start` provisions outside production, for the demo store: one per
 * database. Its id and key pair are derived from the server key, so every instance on the same
 * database (which must share SERVER_KEY anyway: merchants' secret keys are sealed under it) finds
 * the same merchant and holds the same keys, whatever its DATA_DIR. DATA_DIR/demo-merchant.json is
 * a copy of the keys for people and scripts, written by each instance.
 */
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { UniqueViolation } from '../db/database.ts';
import type { MerchantKeys } from './merchant-keys.ts';
import type { Merchant } from './merchant.store.ts';
import type { MerchantService } from './merchant.service.ts';

/** Name of the keys file, inside DATA_DIR. */
export const DEMO_MERCHANT_FILE = 'demo-merchant.json';

/** What the keys file holds. */
export type DemoMerchant = { merchant: Merchant } & MerchantKeys;

/** Reads the demo merchant's keys file, if there is one. */
export function readDemoMerchant(dataDir: string): DemoMerchant | undefined {
  const file = path.join(dataDir, DEMO_MERCHANT_FILE);
  if (!fs.existsSync(file)) return undefined;
  return JSON.parse(fs.readFileSync(file, 'utf8')) as DemoMerchant;
}

function derived(serverKey: Buffer, label: string, bytes: number): Buffer {
  return createHmac('sha256', serverKey).update(`crypto-checkout demo merchant ${label}`).digest().subarray(0, bytes);
}

/** The demo merchant's id (a UUID v4 in form) and keys, the same on every instance with this server key. */
export function demoMerchantIdentity(serverKey: Buffer): { id: string } & MerchantKeys {
  const id = Buffer.from(derived(serverKey, 'id', 16));
  id[6] = (id[6]! & 0x0f) | 0x40;
  id[8] = (id[8]! & 0x3f) | 0x80;
  const hex = id.toString('hex');
  return {
    id: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
    apiKey: `ak_${derived(serverKey, 'api key', 24).toString('base64url')}`,
    secretKey: `sk_${derived(serverKey, 'secret key', 32).toString('base64url')}`,
  };
}

/**
 * Makes sure the database holds the demo merchant and DATA_DIR a copy of its keys. Returns it when
 * this call created it (so main prints the keys once), otherwise undefined. Instances starting
 * together may both try to create it: the id is unique, so one insert wins and the other finds it.
 * A demo merchant whose keys were rotated (by the CLI) keeps them: its file is left as it is.
 */
export async function ensureDemoMerchant(merchants: MerchantService, dataDir: string, publicUrl: string, serverKey: Buffer): Promise<DemoMerchant | undefined> {
  const identity = demoMerchantIdentity(serverKey);
  const keys = { apiKey: identity.apiKey, secretKey: identity.secretKey };
  let created: DemoMerchant | undefined;
  let found = await merchants.authenticate(identity.apiKey);
  if (!found) {
    try {
      created = await merchants.create({ name: 'Demo Store', email: 'owner@demo-store.example', siteUrl: `${publicUrl}/demo`, logoUrl: `${publicUrl}/demo/assets/logo.svg` }, identity);
    } catch (err) {
      if (!(err instanceof UniqueViolation)) throw err;
      found = await merchants.authenticate(identity.apiKey);
      if (!found) return undefined;
    }
  }
  const demo = created ?? { merchant: found!.merchant, ...keys };
  const file = path.join(dataDir, DEMO_MERCHANT_FILE);
  const text = JSON.stringify(demo, null, 2) + '\n';
  if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text) {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(file, text, { mode: 0o600 });
    fs.chmodSync(file, 0o600);
  }
  return created;
}
