/**
 * Load generation with autocannon, and the side-by-side comparison: each row loads the service
 * and the reference alternately, in several short rounds, and reports medians.
 */
import autocannon from 'autocannon';
import { cpuSeconds } from './processes.ts';

/** One kind of request a row sends. */
export interface LoadSpec {
  method: 'GET' | 'POST';
  /** Path on the service. */
  path: string;
  headers?: Record<string, string>;
  /** Builds each request's body and headers (for bodies that must differ, e.g. signed creates). */
  perRequest?: () => { body: string; headers: Record<string, string> };
  /** The only status an answer may have; anything else fails the row. */
  expectStatus: number;
}

/** How hard and how long to push. */
export interface LoadShape {
  connections: number;
  /** Seconds per round, unless `amount` is set. */
  seconds: number;
  /** Requests per round instead of a duration (to bound what a round consumes). */
  amount?: number;
}

/** What one round measured. */
export interface RoundResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  requests: number;
  /** The server process's CPU time per answered request, in microseconds. */
  cpuMicros: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))]!;
}

/** A server to load: where it answers and which process it is. */
export interface Target {
  url: string;
  pid: number;
}

/** Loads one URL for one round and checks that every answer had the expected status. */
export async function loadOnce(target: Target, path: string, spec: LoadSpec, shape: LoadShape): Promise<RoundResult> {
  const baseUrl = target.url;
  const cpuBefore = cpuSeconds(target.pid);
  const latencies: number[] = [];
  const unexpected = new Map<number, number>();
  const build = spec.perRequest;
  // The round's span runs from the first request's send to the last answer: autocannon itself
  // resolves only on its next one-second sampling tick, which would pad short rounds.
  let firstSent = Infinity;
  let lastAnswered = -Infinity;
  const instance = autocannon({
    url: baseUrl + path,
    connections: shape.connections,
    ...(shape.amount ? { amount: shape.amount } : { duration: shape.seconds }),
    requests: [
      {
        method: spec.method,
        path,
        headers: spec.headers ?? {},
        ...(build
          ? {
              setupRequest: (request: autocannon.Request) => {
                const { body, headers } = build();
                return { ...request, body, headers: { ...spec.headers, ...headers } };
              },
            }
          : {}),
      },
    ],
  });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    const now = performance.now();
    firstSent = Math.min(firstSent, now - responseTime);
    lastAnswered = now;
    if (statusCode === spec.expectStatus) latencies.push(responseTime);
    else unexpected.set(statusCode, (unexpected.get(statusCode) ?? 0) + 1);
  });
  const result = await instance;
  const elapsedSeconds = (lastAnswered - firstSent) / 1000;
  const cpuUsed = cpuSeconds(target.pid) - cpuBefore;
  if (unexpected.size > 0 || result.errors > 0 || result.timeouts > 0) {
    const statuses = [...unexpected].map(([status, count]) => `${count}× ${status}`).join(', ');
    throw new Error(`${spec.method} ${baseUrl}${path}: expected only ${spec.expectStatus}; got ${statuses || 'none unexpected'}, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  const sorted = Float64Array.from(latencies).sort();
  return {
    requestsPerSecond: latencies.length / elapsedSeconds,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    requests: latencies.length,
    cpuMicros: (cpuUsed * 1e6) / latencies.length,
  };
}

/** The median of some numbers. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A row's comparison: medians over the rounds. */
export interface Comparison {
  ours: number;
  reference: number;
  /** Median of the per-round ratios (ours / reference). */
  ratio: number;
  p50: number;
  p99: number;
  referenceP50: number;
  referenceP99: number;
  /** Median server CPU microseconds per request, the service's and the reference's. */
  cpuMicros: number;
  referenceCpuMicros: number;
  rounds: Array<{ ours: RoundResult; reference: RoundResult }>;
}

/**
 * Warms both servers up (unless the shape has no warm-up: the caller warmed them), then runs
 * `rounds` rounds, alternating which goes first so a slow drift of the machine weighs on both equally.
 */
export async function compare(
  target: { service: Target; reference: Target },
  paths: { service: string; reference: string },
  spec: LoadSpec,
  shape: LoadShape & { rounds: number; warmup?: LoadShape },
  /** What the reference is sent, when it differs (two kinds of request to the same service). */
  referenceSpec: LoadSpec = spec,
): Promise<Comparison> {
  if (shape.warmup) {
    await loadOnce(target.service, paths.service, spec, shape.warmup);
    await loadOnce(target.reference, paths.reference, referenceSpec, shape.warmup);
  }
  const rounds: Comparison['rounds'] = [];
  for (let i = 0; i < shape.rounds; i++) {
    let ours: RoundResult;
    let reference: RoundResult;
    if (i % 2 === 0) {
      ours = await loadOnce(target.service, paths.service, spec, shape);
      reference = await loadOnce(target.reference, paths.reference, referenceSpec, shape);
    } else {
      reference = await loadOnce(target.reference, paths.reference, referenceSpec, shape);
      ours = await loadOnce(target.service, paths.service, spec, shape);
    }
    rounds.push({ ours, reference });
  }
  return summarize(rounds);
}

/** A comparison's medians over its rounds. */
function summarize(rounds: Comparison['rounds']): Comparison {
  return {
    ours: median(rounds.map((r) => r.ours.requestsPerSecond)),
    reference: median(rounds.map((r) => r.reference.requestsPerSecond)),
    ratio: median(rounds.map((r) => r.ours.requestsPerSecond / r.reference.requestsPerSecond)),
    p50: median(rounds.map((r) => r.ours.p50)),
    p99: median(rounds.map((r) => r.ours.p99)),
    referenceP50: median(rounds.map((r) => r.reference.p50)),
    referenceP99: median(rounds.map((r) => r.reference.p99)),
    cpuMicros: median(rounds.map((r) => r.ours.cpuMicros)),
    referenceCpuMicros: median(rounds.map((r) => r.reference.cpuMicros)),
    rounds,
  };
}

/**
 * Like `compare`, but the service side is several instances loaded at once (the connections split
 * between them), as behind a load balancer: its figures are the sum of their rates, the worst of
 * their latency medians, and their CPU over all the requests they answered. Each round also loads
 * the first instance alone with the whole load, in turn with the others, so "several instances ÷
 * one" is a median of per-round ratios measured side by side, like every other ratio (measured
 * minutes apart, the machine's drift alone could move it by a fifth).
 */
export async function compareSpread(
  targets: { services: Target[]; reference: Target },
  paths: { service: string; reference: string },
  spec: LoadSpec,
  shape: LoadShape & { rounds: number; warmup: LoadShape },
): Promise<{ reference: Comparison; alone: Comparison }> {
  // The same connections and requests in all as one instance gets: the connections shared out as
  // evenly as they go (10 over three instances: 4, 3 and 3), and a create round's requests in the
  // same proportion (600: 240, 180 and 180), so the three finish together. Each instance's rate is
  // measured over its own span: requests split evenly would let the one with more connections
  // finish early, and the sum of the rates would overstate the three by up to a tenth.
  const n = targets.services.length;
  const connections = (total: number) => targets.services.map((_, i) => Math.max(1, Math.floor(total / n) + (i < total % n ? 1 : 0)));
  const split = (total: LoadShape) => {
    const each = connections(total.connections);
    const all = each.reduce((sum, c) => sum + c, 0);
    const amounts = total.amount ? each.map((c) => Math.floor((total.amount! * c) / all)) : undefined;
    if (amounts) amounts[0]! += total.amount! - amounts.reduce((sum, a) => sum + a, 0);
    return each.map((c, i) => ({ ...total, connections: c, ...(amounts ? { amount: amounts[i]! } : {}) }));
  };
  const spread = async (total: LoadShape): Promise<RoundResult> => {
    const shapes = split(total);
    const results = await Promise.all(targets.services.map((service, i) => loadOnce(service, paths.service, spec, shapes[i]!)));
    const requests = results.reduce((sum, r) => sum + r.requests, 0);
    return {
      requestsPerSecond: results.reduce((sum, r) => sum + r.requestsPerSecond, 0),
      p50: Math.max(...results.map((r) => r.p50)),
      p99: Math.max(...results.map((r) => r.p99)),
      requests,
      cpuMicros: results.reduce((sum, r) => sum + r.cpuMicros * r.requests, 0) / requests,
    };
  };
  // The first instance is warmed by the spread's warm-up (and by whatever ran on it before).
  await spread(shape.warmup);
  await loadOnce(targets.reference, paths.reference, spec, shape.warmup);
  const runs = {
    spread: () => spread(shape),
    reference: () => loadOnce(targets.reference, paths.reference, spec, shape),
    alone: () => loadOnce(targets.services[0]!, paths.service, spec, shape),
  };
  const order = ['spread', 'reference', 'alone'] as const;
  const versusReference: Comparison['rounds'] = [];
  const versusAlone: Comparison['rounds'] = [];
  for (let i = 0; i < shape.rounds; i++) {
    // Each round starts with the next of the three, so none always runs first.
    const results: Partial<Record<(typeof order)[number], RoundResult>> = {};
    for (let k = 0; k < order.length; k++) {
      const kind = order[(i + k) % order.length]!;
      results[kind] = await runs[kind]();
    }
    versusReference.push({ ours: results.spread!, reference: results.reference! });
    versusAlone.push({ ours: results.spread!, reference: results.alone! });
  }
  return { reference: summarize(versusReference), alone: summarize(versusAlone) };
}
