/** The bench's one table, for the terminal and for bench/results.md. */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { FIAT_POOL_SIZE, FIAT_SHAPE, FIAT_WARMUP } from './fiat-create.ts';
import type { Comparison } from './load.ts';
import type { Weight } from './page-weight.ts';
import { POSTGRES_POOL_SIZE } from './run-settings.ts';

/** A throughput row: the comparison and its target ratio. */
export interface Row {
  label: string;
  result: Comparison;
  target: number;
}

/** Everything one run measured. */
export interface Results {
  rows: Row[];
  scale: { small: Comparison; large: Comparison; matches: number };
  peakRss: { bytes: number; first: number; second: number };
  weights: { widget: Weight; hosted: Weight; budget: number; dashboard: Weight; dashboardBudget: number };
  settings: { connections: number; rounds: number; readSeconds: number; readWarmupSeconds: number; createsPerRound: number; createWarmup: number; poolSize: number };
  elapsedSeconds: number;
}

const MB = 1024 * 1024;

function met(ok: boolean): string {
  return ok ? 'yes' : '**NO**';
}

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

function table(lines: string[][]): string {
  const widths = lines[0]!.map((_, i) => Math.max(...lines.map((line) => line[i]!.length)));
  const render = (line: string[]) => `| ${line.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [render(lines[0]!), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...lines.slice(1).map(render)].join('\n');
}

function weightRow(label: string, weight: Weight, budget: number): string[] {
  if (weight.wireBytes === undefined) return [label, weight.missing ?? 'not measured', '', '', '', '', '', `≤ ${kib(budget)}`, 'not measured'];
  return [label, `${kib(weight.wireBytes)} on the wire`, '', '', '', '', '', `≤ ${kib(budget)}`, met(weight.wireBytes <= budget)];
}

function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'api'], { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head} (api/ has uncommitted changes)` : head;
  } catch {
    return 'unknown';
  }
}

/** Renders the results as the terminal table and the markdown file. */
export function formatResults(results: Results): { table: string; markdown: string } {
  const { rows, scale, peakRss, weights, settings } = results;
  const lines: string[][] = [['row', 'ours req/s', 'reference req/s', 'ratio', 'p50 ms', 'p99 ms', 'CPU µs/req ours / ref', 'target', 'met']];
  for (const row of rows) {
    const r = row.result;
    lines.push([
      row.label,
      r.ours.toFixed(0),
      r.reference.toFixed(0),
      r.ratio.toFixed(2),
      r.p50.toFixed(2),
      r.p99.toFixed(2),
      `${r.cpuMicros.toFixed(0)} / ${r.referenceCpuMicros.toFixed(0)}`,
      `ratio ≥ ${row.target}`,
      met(r.ratio >= row.target),
    ]);
  }
  // Time per request at 100k over time per request at 1k, each as a multiple of the reference's
  // time measured beside it (the two lists run on separate service starts, minutes apart).
  const growth = scale.small.ratio / scale.large.ratio;
  lines.push([
    'filtered list: time at 100k ÷ time at 1k',
    `${(scale.small.ours / scale.large.ours).toFixed(2)}× raw`,
    '',
    `${growth.toFixed(2)}×`,
    `${(scale.large.p50 / scale.small.p50).toFixed(2)}×`,
    `${(scale.large.p99 / scale.small.p99).toFixed(2)}×`,
    `${(scale.large.cpuMicros / scale.small.cpuMicros).toFixed(2)}×`,
    '≤ 2×',
    met(growth <= 2),
  ]);
  lines.push(['server peak RSS (VmHWM, whole run)', `${(peakRss.bytes / MB).toFixed(0)} MB`, '', '', '', '', '', '≤ 160 MB', met(peakRss.bytes <= 160 * MB)]);
  lines.push(weightRow('widget + its heaviest language chunk', weights.widget, weights.budget));
  lines.push(weightRow('hosted page, first visit, heaviest language', weights.hosted, weights.budget));
  lines.push(weightRow('merchant dashboard, first load of /dashboard', weights.dashboard, weights.dashboardBudget));
  const rendered = table(lines);

  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const parts = (weight: Weight) =>
    weight.parts.length === 0 ? `  - ${weight.missing ?? 'nothing'}` : weight.parts.map((p) => `  - ${p.what}: ${kib(p.wireBytes)} (${p.encoding})`).concat(weight.notes.map((n) => `  - (${n})`)).join('\n');
  const markdown = `# Benchmark results

Written by \`npm run bench\` (bench/run.ts) on ${new Date().toISOString()}; commit ${commit()}.
Machine: ${os.cpus().length} × ${cpu}, Node ${process.version}. The whole run took ${results.elapsedSeconds.toFixed(0)} s.

${rendered}

## How it was measured

- The service is what \`npm start\` runs, \`node dist/server/api/main.js\` (compiled by \`npm run build\`), as a
  child process (LOG_LEVEL=warn, simulator on, no block timer) on a fresh temporary DATA_DIR. The reference is
  \`bench/reference-server.ts\`, a bare Express 5 app compiled and started the same way, answering each row with the same bytes the service answered
  (its POST route reads and parses the JSON body; its 304 route sends no body).
- autocannon, ${settings.connections} connections, loads the two alternately: a warm-up each (reads ${settings.readWarmupSeconds} s, creates
  ${settings.createWarmup.toLocaleString('en')} requests), then ${settings.rounds} rounds per row (reads ${settings.readSeconds} s per round, creates ${settings.createsPerRound} requests per
  round), swapping which goes first every round.
  Figures are medians over the rounds; the ratio is the median of the per-round ratios. Latency
  percentiles are the service's, from every response's own time. CPU µs/req is each server process's
  user + system time (all threads, /proc/<pid>/stat) over the requests it answered in the round: less
  sensitive to other load on the machine than req/s.
- Creates: every request is a new body (own invoice and customer), signed with the demo merchant's
  secret key (X-HMAC over its bytes), cycling BTC, LTC, USDT-ERC20, USDT-TRC20 and XRP. The address pool
  (${settings.poolSize} per network) is full before the first round and never drops below three quarters (where a refill would start), so no key is derived
  during the measurement. The fiat ÷ asset row runs on a service of its own: ${FIAT_SHAPE.rounds} rounds of ${FIAT_SHAPE.amount} creates of each kind
  after ${FIAT_WARMUP.toLocaleString('en')} of each (one load alternating the two kinds), on a pool of ${FIAT_POOL_SIZE.toLocaleString('en')} per network, of which it never uses a quarter.
- Reads look at a payment made through the API with one partial transaction seen. The 304 row sends the
  payment's current ETag in If-None-Match.
- Lists: a merchant looking up which of ten of its orders are paid,
  \`statuses=COMPLETE,CONFIRMING&invoices=<10 invoices>\` (${scale.matches} matches at both sizes). The history is written
  straight into SQLite by bench/seed.ts (through the project's payment store, in one transaction, with the
  service stopped): first ${'1,000'} payments, then the same plus more up to 100,000 for a second service start.
- The list scale row divides the 100k list's cost by the 1k list's: in the ratio column each as a multiple
  of the reference measured beside it (the two run on separate service starts, so the machine's load
  may differ), in the first column raw (req/s at 1k ÷ req/s at 100k), then the p50 and p99 growth.
- PostgreSQL rows: a throw-away PostgreSQL cluster on the same machine, run as operators run it (fsync,
  synchronous_commit and full_page_writes on), holding a copy of the SQLite database (imported with the
  \`db import-sqlite\` code). The instances connect through its Unix socket (\`DATABASE_URL=…?host=<socket
  directory>\`), as a service on the database's machine would; the address pool (${POSTGRES_POOL_SIZE.toLocaleString('en')}
  per network) is topped up before the rows and never a quarter used.
  The three-instance rows share the same connections (4, 3 and 3) and creates (in the same proportion) among
  three instances on the same database; the two added instances are first warmed up alone as the first was before its rows
  (each read row's warm-up, then the create row's). Each of their rounds loads the three instances, the reference and the first instance alone
  (the whole load), starting with a different one each round. "3 instances ÷ 1 instance" is the median of
  those rounds' ratios of the three to the first alone.
- Peak RSS is VmHWM from /proc/<pid>/status of each service process before it stops (first start, with
  the address-pool worker: ${(peakRss.first / MB).toFixed(0)} MB; second start, 100k rows: ${(peakRss.second / MB).toFixed(0)} MB).
- Weights are the bytes on the wire (bodies, not headers) of GETs sent with Accept-Encoding: br, gzip, as a
  browser sends them: the build's precompressed brotli files, and the /pay HTML compressed per request. The hosted page figure is GET /pay?id=… plus every same-origin
  script, style sheet, image, preload and icon it references, following module imports (literal dynamic
  imports included) and CSS url()/@import, each fetched from the running service.

Widget parts:
${parts(weights.widget)}

Hosted page parts:
${parts(weights.hosted)}
`;
  return { table: rendered, markdown };
}
