/**
 * Summarises V8 CPU profiles (`.cpuprofile`, as `node --cpu-prof` or BENCH_CPU_PROFILE_DIR write
 * them): the functions with the most self time, and the project files with the most inclusive time.
 *
 *   node --import tsx bench/profile-summary.ts <file.cpuprofile> [--top 25] [--focus <name>[,<name>...]]
 *
 * --focus restricts the figures to samples whose stack contains one of those functions.
 */
import fs from 'node:fs';
import path from 'node:path';

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

const args = process.argv.slice(2);
const file = args.find((a) => a.endsWith('.cpuprofile'));
if (!file) {
  process.stderr.write('usage: profile-summary.ts <file.cpuprofile> [--top N] [--focus functionName]\n');
  process.exit(2);
}
const n = args.includes('--top') ? Number(args[args.indexOf('--top') + 1]) : 25;
const focus = args.includes('--focus') ? args[args.indexOf('--focus') + 1]?.split(',') : undefined;
const { total, self, inclusive } = summarise(JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile, focus);
process.stdout.write(`${file}: ${total.toFixed(0)} ms sampled${focus ? ` under ${focus.join(' or ')}` : ''}\n\nself time:\n${top(self, n, total)}\n\n`);
process.stdout.write(`inclusive time, project code:\n${top(inclusive, n, total, (key) => /\s(api|bench)\//.test(key))}\n\n`);
process.stdout.write(`inclusive time, everything:\n${top(inclusive, n, total)}\n`);
