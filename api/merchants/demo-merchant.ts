/** The demo merchant `npm start` provisions on an empty DATA_DIR, for the demo store. */
import fs from 'node:fs';
import path from 'node:path';
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

/**
 * Makes sure the demo merchant exists and its keys file opens it. Returns the merchant when it
 * was created now (so main prints the keys once), otherwise undefined.
 */
export async function ensureDemoMerchant(merchants: MerchantService, dataDir: string, publicUrl: string): Promise<DemoMerchant | undefined> {
  const existing = readDemoMerchant(dataDir);
  if (existing && (await merchants.authenticate(existing.apiKey))?.merchant.id === existing.merchant.id) return undefined;
  const created = await merchants.create({
    name: 'Demo Store',
    email: 'owner@demo-store.example',
    siteUrl: `${publicUrl}/demo`,
    logoUrl: `${publicUrl}/demo/assets/logo.svg`,
  });
  const file = path.join(dataDir, DEMO_MERCHANT_FILE);
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(created, null, 2) + '\n', { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return created;
}
