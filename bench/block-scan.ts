/**
 * `npm run bench:blocks` (and a section of `npm run bench`): how long the Bitcoin/Litecoin follower
 * takes to process one block of 3,000 transactions (two outputs each, ten of them paying this
 * installation) against 1,000 and against 1,000,000 watched addresses, on SQLite. Its cost must not
 * grow with the number of addresses: the block's outputs are matched with one indexed lookup.
 *
 * The block is served by a JSON-RPC stand-in answering the five calls a poll makes, so the figure
 * is the service's own work (matching, recording, reporting), not a node's.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteDatabase } from '../api/db/sqlite-database.ts';
import { createNodeFollower } from '../api/networks/bitcoin-core/node-follower.ts';
import type { RpcClient } from '../api/networks/json-rpc-client.ts';
import type { Asset } from '../api/networks/asset-registry.ts';
import { silentLogger } from '../api/shared/logger.ts';
import { createUnitOfWork } from '../api/unit-of-work.ts';

const TRANSACTIONS = 3_000;
const OURS = 10;
const RUNS = 5;

const ASSET: Asset = { id: 0, short: 'LTC', network: 'litecoin', name: 'Litecoin', logo: '', decimals: 8, countedDecimals: 8, chainDecimals: 8, contractAddress: null, withdrawalFee: '0', minWithdrawal: '0', dustLimit: '0' };

const hash = (n: number) => n.toString(16).padStart(64, '0');

/** A block at `height` whose transactions pay strangers, and OURS of them one of `addresses`. */
function block(height: number, watched: number) {
  const tx = [];
  for (let i = 0; i < TRANSACTIONS; i++) {
    const ours = i % (TRANSACTIONS / OURS) === 0;
    const to = ours ? `watched${(i * 7919) % watched}` : `stranger${height}-${i}`;
    tx.push({
      txid: hash(height * 1_000_000 + i),
      vout: [
        { value: 0.1, n: 0, scriptPubKey: { hex: '0014' + '00'.repeat(20), address: to } },
        { value: 1.23456789, n: 1, scriptPubKey: { hex: '0014' + '11'.repeat(20), address: `change${height}-${i}` } },
      ],
    });
  }
  return { hash: hash(height), height, previousblockhash: hash(height - 1), tx };
}

async function measure(watched: number): Promise<number[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-blocks-'));
  const db = await openSqliteDatabase(path.join(dir, 'checkout.db'));
  try {
    const uow = createUnitOfWork(db);
    await uow.transaction(async (stores) => {
      await stores.sql.run(
        `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO addresses (network, address, dest_tag, derivation_index, payment_id) SELECT 'litecoin', 'watched' || i, NULL, i, NULL FROM n`,
        [watched - 1],
      );
    });
    let tip = 100;
    const blocks = new Map<number, ReturnType<typeof block>>();
    const rpc: RpcClient = {
      where: 'bench',
      async call<T>(method: string, params: unknown[] = []): Promise<T> {
        const answer = (): unknown => {
          switch (method) {
            case 'getblockcount':
              return tip;
            case 'getblockhash':
              return hash(params[0] as number);
            case 'getbestblockhash':
              return hash(tip);
            case 'getblock':
              return blocks.get(Number.parseInt(params[0] as string, 16));
            case 'getrawmempool':
              return [];
          }
          throw new Error(`bench stand-in: no ${method}`);
        };
        return answer() as T;
      },
    };
    const follower = createNodeFollower({
      network: 'litecoin',
      chain: 'regtest',
      rpc,
      uow,
      asset: ASSET,
      clock: Date.now,
      logger: silentLogger(),
      payoutAddress: 'payout',
    });
    await follower.start();
    const times: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      tip += 1;
      blocks.set(tip, block(tip, watched));
      const started = performance.now();
      await follower.pollFresh();
      times.push(performance.now() - started);
    }
    const recorded = (await uow.stores.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM chain_outputs'))!.n;
    if (Number(recorded) !== RUNS * OURS) throw new Error(`the follower recorded ${recorded} outputs, not ${RUNS * OURS}`);
    return times;
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The section's markdown table. */
export async function blockScanTable(log: (line: string) => void): Promise<string> {
  const rows: string[] = [];
  const results: Record<number, number> = {};
  for (const watched of [1_000, 1_000_000]) {
    log(`block scan: ${TRANSACTIONS.toLocaleString('en')} transactions against ${watched.toLocaleString('en')} watched addresses…`);
    results[watched] = median(await measure(watched));
    rows.push(`| ${watched.toLocaleString('en')} | ${results[watched]!.toFixed(1)} ms |`);
  }
  const ratio = results[1_000_000]! / results[1_000]!;
  return [
    `One block of ${TRANSACTIONS.toLocaleString('en')} transactions (${OURS} paying this installation), median of ${RUNS} blocks, SQLite:`,
    '',
    '| watched addresses | time per block |',
    '| ---: | ---: |',
    ...rows,
    '',
    `1,000,000 against 1,000 addresses: ×${ratio.toFixed(2)} (the lookup is one indexed query per block).`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const table = await blockScanTable((line) => process.stdout.write(`${line}\n`));
  process.stdout.write(`\n${table}\n`);
}
