/**
 * `npm run bench:monero` (and a section of `npm run bench`): how long one poll of the Monero
 * follower takes for a block of 100 transfers to this installation's subaddresses, with 1,000 and
 * with 1,000,000 subaddresses handed out, on SQLite. The wallet matches outputs to subaddresses
 * itself; the service's share (telling the wallet of new indexes, reading the transfers, following
 * each, recording the cursor) must not grow with the number handed out.
 *
 * The wallet is a stand-in answering the calls a poll makes, so the figure is the service's own work.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteDatabase } from '../api/db/sqlite-database.ts';
import type { Asset } from '../api/networks/asset-registry.ts';
import { createMoneroFollower, type MoneroTransfer } from '../api/networks/monero/monero-follower.ts';
import type { MoneroRpc } from '../api/networks/monero/monero-rpc.ts';
import type { MoneroWallet } from '../api/networks/monero/monero-wallet.ts';
import { silentLogger } from '../api/shared/logger.ts';
import { createUnitOfWork } from '../api/unit-of-work.ts';

const TRANSFERS = 100;
const RUNS = 5;
const ASSET: Asset = { id: 0, short: 'XMR', network: 'monero', name: 'Monero', logo: '', decimals: 8, countedDecimals: 12, chainDecimals: 12, contractAddress: null, withdrawalFee: '0', minWithdrawal: '0', dustLimit: '0' };
const hash = (n: number) => n.toString(16).padStart(64, '0');

async function measure(handedOut: number): Promise<number[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-monero-'));
  const db = await openSqliteDatabase(path.join(dir, 'checkout.db'));
  try {
    const uow = createUnitOfWork(db);
    await uow.transaction(async (stores) => {
      await stores.sql.run(
        `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO addresses (network, address, dest_tag, derivation_index, payment_id) SELECT 'monero', 'sub' || i, NULL, i, NULL FROM n`,
        [handedOut - 1],
      );
      await stores.sql.run("INSERT INTO hd_accounts (network, xpub, next_index) VALUES ('monero', 'bench', ?)", [handedOut]);
    });
    let height = 100;
    // Every transfer so far, as the wallet lists them (its history is kept).
    const transfers: MoneroTransfer[] = [];
    const rpc: MoneroRpc = {
      where: 'bench',
      close() {},
      async call<T>(method: string): Promise<T> {
        const answer = (): unknown => {
          switch (method) {
            case 'refresh':
              return {};
            case 'get_height':
            case 'get_info':
              return { height };
            case 'get_transfers':
              return { in: transfers };
          }
          throw new Error(`bench stand-in: no ${method}`);
        };
        return answer() as T;
      },
    };
    // The wallet already knows every index: what is measured is the follower's poll.
    const wallet: MoneroWallet = { primaryAddress: 'primary', payoutsDisabled: 'bench', addressAt: (i) => `sub${i}`, knowHandedOut: async () => void (await uow.stores.addresses.nextIndex('monero')) };
    const follower = createMoneroFollower({ wallet: rpc, daemon: rpc, moneroWallet: wallet, uow, asset: ASSET, clock: Date.now, logger: silentLogger() });
    await follower.start();
    const times: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      // A new block paying TRANSFERS subaddresses spread over all those handed out.
      for (let i = 0; i < TRANSFERS; i++) {
        const minor = ((run * TRANSFERS + i) * 7919) % handedOut;
        transfers.push({ txid: hash(height * 1_000 + i), amount: 1_000_000_000_000, height, address: `sub${minor}`, subaddr_index: { major: 0, minor: minor + 1 }, type: 'in' });
      }
      height += 1;
      const started = performance.now();
      await follower.pollFresh();
      times.push(performance.now() - started);
    }
    const followed = (await uow.stores.sql.get<{ n: number }>("SELECT COUNT(*) AS n FROM chain_transactions WHERE network = 'monero'"))!.n;
    if (Number(followed) !== RUNS * TRANSFERS) throw new Error(`the follower followed ${followed} transfers, not ${RUNS * TRANSFERS}`);
    return times;
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The section's markdown table. */
export async function moneroScanTable(log: (line: string) => void): Promise<string> {
  const rows: string[] = [];
  const results: Record<number, number> = {};
  for (const handedOut of [1_000, 1_000_000]) {
    log(`monero scan: a block of ${TRANSFERS} transfers with ${handedOut.toLocaleString('en')} subaddresses handed out…`);
    results[handedOut] = median(await measure(handedOut));
    rows.push(`| ${handedOut.toLocaleString('en')} | ${results[handedOut]!.toFixed(1)} ms |`);
  }
  return [
    `One Monero poll reading a block of ${TRANSFERS} transfers to this installation's subaddresses, median of ${RUNS} blocks, SQLite:`,
    '',
    '| subaddresses handed out | time per poll |',
    '| ---: | ---: |',
    ...rows,
    '',
    `1,000,000 against 1,000 subaddresses: ×${(results[1_000_000]! / results[1_000]!).toFixed(2)} (the wallet matches outputs; the service follows only its own transfers).`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const table = await moneroScanTable((line) => process.stdout.write(`${line}\n`));
  process.stdout.write(`\n${table}\n`);
}
