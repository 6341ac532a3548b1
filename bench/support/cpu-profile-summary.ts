/**
 * Where a service's CPU time went during a bench: reads a V8 .cpuprofile (BENCH_CPU_PROF), keeps the
 * last `--window` seconds before shutdown (the load, not start-up), and attributes each sample to the
 * nearest frame that belongs to a package or to our own code (time in node: internals called by
 * jsonwebtoken counts as jsonwebtoken). Usage: tsx bench/support/cpu-profile-summary.ts <file> [windowS]
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const [file, windowArg] = process.argv.slice(2);
if (!file) throw new Error('usage: cpu-profile-summary.ts <file.cpuprofile> [windowSeconds]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const windowUs = Number(windowArg ?? 9) * 1e6;
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

const owner = (url: string): string | null => {
  if (url.includes('node_modules/')) {
    const parts = url.split('node_modules/').at(-1)!.split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  if (url === '' || url.startsWith('node:')) return null;
  return url.replace(/^file:\/\/.*?\/(core|adapters|bootstrap)\//, '$1/');
};

const byOwner = new Map<string, number>();
let total = 0;
let time = profile.startTime;
for (let i = 0; i < profile.samples.length; i++) {
  time += profile.timeDeltas[i]!;
  // The last 0.7 s is shutdown; before the window is start-up and set-up.
  if (time < profile.endTime - windowUs || time > profile.endTime - 700_000) continue;
  const spent = profile.timeDeltas[i + 1] ?? 0;
  total += spent;
  const sampled = nodes.get(profile.samples[i]!)!;
  let name: string | null = ['(idle)', '(garbage collector)', '(program)'].includes(sampled.callFrame.functionName) ? sampled.callFrame.functionName : null;
  for (let id: number | undefined = sampled.id; !name && id !== undefined; id = parent.get(id)) name = owner(nodes.get(id)!.callFrame.url);
  name ??= `node internals (${sampled.callFrame.url || sampled.callFrame.functionName})`;
  byOwner.set(name, (byOwner.get(name) ?? 0) + spent);
}
console.log(`window: ${(total / 1e6).toFixed(1)} s of samples`);
for (const [name, spent] of [...byOwner].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
  console.log(`${((spent / total) * 100).toFixed(1).padStart(5)}%  ${name}`);
}
