/**
 * Fills a stopped service's database with a merchant's payment history, straight into SQLite in
 * one transaction (100k HTTP calls would take longer than the whole benchmark).
 *
 * Rows are written with the payment store's column layout, through better-sqlite3 directly (the
 * service's store is async and per statement; a bulk load wants one synchronous transaction). Seeded payment `n` always gets the same asset,
 * amount, status and invoice (`order-<n>`), so a database seeded to 100k holds the 1k one's rows
 * unchanged and a filtered lookup matches the same payments at both sizes. By default everything seeded is
 * history (created 1 to 70 days ago): COMPLETE with one confirmed transaction, or EXPIRED, some
 * after a partial payment. Receiving addresses are real, checksummed addresses of each network
 * encoded from random key hashes (deriving 100k HD keys would take minutes), registered in the
 * addresses table as handed out, as the pool would have; XRP gets the shared address and a fresh
 * destination tag, as the service does. The ledger is not credited: no benchmark reads balances.
 */
import { bech32 } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { addr as ethAddress } from 'micro-eth-signer';
import { encodeAccountID } from 'ripple-address-codec';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteDatabase } from '../api/db/sqlite-database.ts';
import { AssetStore } from '../api/networks/asset.store.ts';
import { readDemoMerchant } from '../api/merchants/demo-merchant.ts';
import { addressCodec } from '../api/networks/address-codecs.ts';
import { loadAssetRegistry } from '../api/networks/asset-registry.ts';
import { deriveReceiveAddress } from '../api/networks/hd-wallet.ts';
import type { NewPayment, PaymentTransaction } from '../api/payments/payment.store.ts';
import { customerColumns } from '../api/shared/customer.ts';
import { newId } from '../api/shared/ids.ts';
import { formatAmount } from '../api/shared/money.ts';

const DAY_MS = 86_400_000;
const base58check = createBase58check(sha256);

/** A small deterministic generator, so payment n is the same in every seeded database. */
function prng(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 2 ** 32;
  };
}

let entropy = Buffer.alloc(0);
let entropyUsed = 0;

// Many small randomBytes calls cost more than the bytes: draw them from one large buffer.
function random20(): Buffer {
  if (entropyUsed + 20 > entropy.length) {
    entropy = randomBytes(1 << 20);
    entropyUsed = 0;
  }
  entropyUsed += 20;
  return entropy.subarray(entropyUsed - 20, entropyUsed);
}

function keyHashAddress(network: string): string {
  const hash = random20();
  switch (network) {
    case 'bitcoin':
      return bech32.encode('bc', [0, ...bech32.toWords(hash)]);
    case 'litecoin':
      return bech32.encode('ltc', [0, ...bech32.toWords(hash)]);
    case 'ethereum':
      return ethAddress.addChecksum(`0x${hash.toString('hex')}`);
    case 'tron':
      return base58check.encode(Uint8Array.of(0x41, ...hash));
    case 'ripple':
      return encodeAccountID(hash);
    default:
      throw new Error(`no seeding rule for network ${network}`);
  }
}

/**
 * Which statuses the seeded payments take. `settled` (the default, the main bench's) is history:
 * COMPLETE or EXPIRED, OPEN nowhere. The other two model a burst of creates (a sale, or a leaked
 * key at the rate limit) that nobody paid: 75% of the payments are OPEN, `open-unexpired` ones
 * created in the last hour with a day to run, `open-past-expiry` ones whose hour ran out 1 to 7
 * hours ago and that the expiry sweep has not marked (a service stopped meanwhile). The other 25%
 * are the settled history's own payments, unchanged: enough that at 1,000 a third page of
 * EXPIRED ones is full, as at the large size (with 10%, the small page was empty, the large
 * one rendered 20 records, and the two sizes compared unlike work).
 */
export type SeedMix = 'settled' | 'open-unexpired' | 'open-past-expiry';

/** What a seeding run did. */
export interface SeedResult {
  inserted: number;
  totalPayments: number;
  ms: number;
}

const HOUR_MS = 3_600_000;

// When an OPEN payment of a mix was created and how long it runs; undefined: a settled one (25%).
function openPayment(mix: Exclude<SeedMix, 'settled'>, random: () => number, now: number): { createdAt: number; timeout: number } | undefined {
  if (random() >= 0.75) return undefined;
  return mix === 'open-unexpired'
    ? { createdAt: now - Math.floor(random() * HOUR_MS), timeout: 86_400 }
    : { createdAt: now - 2 * HOUR_MS - Math.floor(random() * 6 * HOUR_MS), timeout: 3600 };
}

/**
 * Adds seeded payments for the demo merchant in DATA_DIR until the payments table holds
 * `targetTotal` rows (payments made through the API count too), with statuses as `mix` says. The
 * service must be stopped.
 */
export async function seedPayments(dataDir: string, targetTotal: number, mix: SeedMix = 'settled'): Promise<SeedResult> {
  const started = performance.now();
  const demo = readDemoMerchant(dataDir);
  if (!demo) throw new Error(`no demo merchant in ${dataDir}: start the service there once first`);
  const file = path.join(dataDir, 'checkout.db');
  const migrated = openSqliteDatabase(file);
  const registry = await loadAssetRegistry(new AssetStore(migrated), 'http://bench.invalid');
  await migrated.close();
  const db = new Database(file, { timeout: 10_000 });
  // A page cache that holds the indexes, so 100k random-UUID inserts do not thrash the default 2 MB.
  db.pragma('cache_size = -262144');
  // Every reference is built here from rows just read, so the per-row foreign-key lookups add nothing.
  db.pragma('foreign_keys = OFF');
  try {
    const insertPayment = db.prepare(
      `INSERT INTO payments (id, merchant_id, asset_id, amount, address_to, dest_tag, confirms_needed, timeout, expires_at,
         checkout_url, status, customer_id, customer_name, customer_email, invoice, created_at, updated_at)
       VALUES (@id, @merchantId, @assetId, @amount, @addressTo, @destTag, @confirmsNeeded, @timeout, @expiresAt,
         @checkoutUrl, @status, @customerId, @customerName, @customerEmail, @invoice, @createdAt, @updatedAt)`,
    );
    const insertTransaction = db.prepare(
      `INSERT INTO payment_transactions (payment_id, txn_id, amount, address_from, address_to, dest_tag, confirmations, late, seen_at)
       VALUES (@paymentId, @txnId, @amount, @addressFrom, @addressTo, @destTag, @confirmations, @late, @seenAt)`,
    );
    const store = {
      insert: ({ customer, ...payment }: NewPayment) => insertPayment.run({ ...payment, ...customerColumns(customer) }),
      insertTransaction: (t: Omit<PaymentTransaction, 'id'>) => insertTransaction.run({ ...t, late: t.late ? 1 : 0 }),
    };
    // Monero subaddresses come from the wallet, not from a key hash: the seeded history uses the
    // other networks (the same draw as before Monero joined, so seeded payment n is unchanged).
    const assets = registry.assets().filter((a) => a.network !== 'monero');
    const existing = (db.prepare('SELECT COUNT(*) AS n FROM payments').get() as { n: number }).n;
    const lastSeeded = (db.prepare("SELECT MAX(CAST(substr(invoice, 7) AS INTEGER)) AS n FROM payments WHERE invoice LIKE 'order-%'").get() as { n: number | null }).n ?? 0;
    const toInsert = Math.max(0, targetTotal - existing);
    const insertAddress = db.prepare('INSERT INTO addresses (network, address, dest_tag, derivation_index, payment_id) VALUES (?, ?, ?, NULL, ?)');
    const reserveTags = db.prepare<[number, string], { fromIndex: number; xpub: string }>(
      'UPDATE hd_accounts SET next_index = next_index + ? WHERE network = ? RETURNING next_index AS fromIndex, xpub',
    );
    const sharedAddresses = new Map<string, string>();
    const now = Date.now();

    // Bulk-load practice: the secondary indexes are dropped and rebuilt from their own stored SQL
    // around the load (one sort each instead of a random b-tree insert per row), inside the same
    // transaction, so the file never exists without them.
    const secondaryIndexes = db
      .prepare<[], { name: string; sql: string }>(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('payments', 'payment_transactions', 'addresses')",
      )
      .all();

    db.transaction(() => {
      for (const index of secondaryIndexes) db.exec(`DROP INDEX ${index.name}`);
      for (let n = lastSeeded + 1; n <= lastSeeded + toInsert; n++) {
        const random = prng(n * 2654435761);
        const asset = assets[Math.floor(random() * assets.length)]!;
        const network = registry.network(asset.network);
        const whole = asset.decimals === 8 ? 0.0001 + random() * 0.5 : 5 + random() * 495;
        const amount = formatAmount(whole.toFixed(asset.decimals), asset.decimals);
        const settledAt = now - DAY_MS - Math.floor(random() * 69 * DAY_MS);
        const roll = random();
        // The mix draws from a generator of its own: the settled history's draws stay as they were.
        const open = mix === 'settled' ? undefined : openPayment(mix, prng(n * 40503 + 7), now);
        const createdAt = open?.createdAt ?? settledAt;
        const status = open ? 'OPEN' : roll < 0.7 ? 'COMPLETE' : 'EXPIRED';
        const partial = status === 'EXPIRED' && roll > 0.95;

        let addressTo: string;
        let destTag: string | null = null;
        if (network.receiveMode === 'tagged') {
          const reserved = reserveTags.get(1, network.name)!;
          let shared = sharedAddresses.get(network.name);
          if (!shared) {
            shared = deriveReceiveAddress(reserved.xpub, network.name, 0, 'main');
            sharedAddresses.set(network.name, shared);
          }
          addressTo = shared;
          destTag = String(reserved.fromIndex);
        } else {
          addressTo = keyHashAddress(network.name);
          if (n === lastSeeded + 1 && !addressCodec(network.name, 'main').isValid(addressTo)) {
            throw new Error(`seeded ${network.name} address ${addressTo} is not valid`);
          }
        }
        const payment: NewPayment = {
          id: newId(),
          merchantId: demo.merchant.id,
          assetId: asset.id,
          amount,
          addressTo,
          destTag,
          confirmsNeeded: network.confirmationsNeeded,
          timeout: open?.timeout ?? 3600,
          tolerancePercent: '0',
          expiresAt: createdAt + (open?.timeout ?? 3600) * 1000,
          checkoutUrl: `${demo.merchant.siteUrl ?? 'https://shop.example'}/orders/${n}`,
          status,
          customer: { id: 1 + (n % 5000), name: `Customer ${1 + (n % 5000)}`, email: `customer${1 + (n % 5000)}@example.com` },
          invoice: `order-${n}`,
          createdAt,
          updatedAt: open ? createdAt : createdAt + 600_000,
          price: null,
          rate: null,
        };
        insertAddress.run(network.name, addressTo, destTag, payment.id);
        store.insert(payment);
        if (status === 'COMPLETE' || partial) {
          store.insertTransaction({
            paymentId: payment.id,
            txnId: Buffer.concat([random20(), random20()]).toString('hex').slice(0, 64),
            amount: partial ? formatAmount((whole / 2).toFixed(asset.decimals), asset.decimals) : amount,
            addressFrom: keyHashAddress(network.name),
            addressTo,
            destTag,
            confirmations: status === 'COMPLETE' ? network.confirmationsNeeded + 3 : 0,
            late: false,
            seenAt: createdAt + 300_000,
          });
        }
      }
      for (const index of secondaryIndexes) db.exec(index.sql);
    }).immediate();
    db.pragma('optimize');
    const totalPayments = (db.prepare('SELECT COUNT(*) AS n FROM payments').get() as { n: number }).n;
    return { inserted: toInsert, totalPayments, ms: performance.now() - started };
  } finally {
    db.close();
  }
}
