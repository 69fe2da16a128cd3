/**
 * Summarises V8 CPU profiles (`.cpuprofile`, as `node --cpu-prof` or BENCH_CPU_PROFILE_DIR write
 * them): the functions with the most self time, and the project files with the most inclusive time.
 *
 *   node --import tsx bench/profile-summary.ts <file.cpuprofile> [--top 25] [--focus <name>[,<name>...]]
 *   node --import tsx bench/profile-summary.ts <ours.cpuprofile> --vs <reference.cpuprofile> --requests <ours>,<reference>
 *
 * --focus restricts the figures to samples whose stack contains one of those functions. --vs puts
 * two profiles side by side as self-time microseconds per request (idle, start-up and the
 * profiler's own samples left out), ordered by the difference.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function where(frame: CallFrame): string {
  const file = frame.url.replace(/^file:\/\//, '');
  const short = file.includes('/node_modules/') ? file.slice(file.lastIndexOf('/node_modules/') + 14) : path.relative(process.cwd(), file) || file;
  return `${frame.functionName || '(anonymous)'} ${short ? `${short}:${frame.lineNumber + 1}` : ''}`.trim();
}

/** Self and inclusive milliseconds per function, optionally only under a focus function. */
export function summarise(profile: CpuProfile, focus?: string[]) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((sampleId, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const stack: ProfileNode[] = [];
    for (let id: number | undefined = sampleId; id !== undefined; id = parent.get(id)) stack.push(byId.get(id)!);
    if (focus && !stack.some((node) => focus.includes(node.callFrame.functionName))) return;
    total += ms;
    const leaf = where(stack[0]!.callFrame);
    self.set(leaf, (self.get(leaf) ?? 0) + ms);
    for (const key of new Set(stack.map((node) => where(node.callFrame)))) inclusive.set(key, (inclusive.get(key) ?? 0) + ms);
  });
  return { total, self, inclusive };
}

function top(map: Map<string, number>, n: number, total: number, filter: (key: string) => boolean = () => true): string {
  return [...map]
    .filter(([key]) => filter(key))
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([key, ms]) => `${ms.toFixed(0).padStart(7)} ms ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${key}`)
    .join('\n');
}

function perRequest(file: string, requests: number): Map<string, number> {
  const { self } = summarise(JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile, REQUEST_PATH);
  return new Map([...self].map(([key, ms]) => [key, (ms * 1000) / requests]));
}

// Where request handling starts in Node's HTTP server (and its deferred callbacks: ticks, and immediates such as a group commit).
const REQUEST_PATH = ['parserOnHeadersComplete', 'parserOnIncoming', 'endReadableNT', 'processTicksAndRejections', 'processImmediate', 'onStreamRead', 'afterWriteDispatched'];

function main(args: string[]): void {
  const file = args.find((a) => a.endsWith('.cpuprofile'));
  if (!file) {
    process.stderr.write('usage: profile-summary.ts <file.cpuprofile> [--top N] [--focus name,...] [--vs other.cpuprofile --requests n1,n2]\n');
    process.exit(2);
  }
  const n = args.includes('--top') ? Number(args[args.indexOf('--top') + 1]) : 25;
  if (args.includes('--vs')) {
    const other = args[args.indexOf('--vs') + 1]!;
    const [oursRequests, otherRequests] = (args[args.indexOf('--requests') + 1] ?? '').split(',').map(Number);
    if (!oursRequests || !otherRequests) throw new Error('--vs needs --requests <ours>,<reference>');
    const ours = perRequest(file, oursRequests);
    const theirs = perRequest(other, otherRequests);
    const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    const keys = [...new Set([...ours.keys(), ...theirs.keys()])].sort((a, b) => (ours.get(b) ?? 0) - (theirs.get(b) ?? 0) - ((ours.get(a) ?? 0) - (theirs.get(a) ?? 0)));
    process.stdout.write(`self µs per request on the request path: ours ${sum(ours).toFixed(0)}, reference ${sum(theirs).toFixed(0)}\n\n   ours    ref   diff\n`);
    for (const key of keys.slice(0, n)) {
      const a = ours.get(key) ?? 0;
      const b = theirs.get(key) ?? 0;
      process.stdout.write(`${a.toFixed(1).padStart(7)}${b.toFixed(1).padStart(7)}${(a - b).toFixed(1).padStart(7)}  ${key}\n`);
    }
    return;
  }
  const focus = args.includes('--focus') ? args[args.indexOf('--focus') + 1]?.split(',') : undefined;
  const { total, self, inclusive } = summarise(JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile, focus);
  process.stdout.write(`${file}: ${total.toFixed(0)} ms sampled${focus ? ` under ${focus.join(' or ')}` : ''}\n\nself time:\n${top(self, n, total)}\n\n`);
  process.stdout.write(`inclusive time, project code:\n${top(inclusive, n, total, (key) => /[\s/](api|bench)\//.test(key))}\n\n`);
  process.stdout.write(`inclusive time, everything:\n${top(inclusive, n, total)}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
