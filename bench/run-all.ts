/**
 * `npm run bench`: every bench/*.bench.ts in turn, each in its own process (a bench may start services and
 * load the machine; one at a time keeps the figures apart). Each bench prints its result as JSON lines on
 * stdout; those are passed through as they come, anything else the bench prints goes to stderr.
 *
 *   npm run bench                       every bench (minutes: several start the service and load it)
 *   npm run bench -- --quick            only the in-process ones that finish in seconds
 *   npm run bench -- --list             the names, one JSON line each, without running anything
 *   npm run bench -- render-template    the named benches only
 *
 * The exit status is 1 when a bench failed (the others still run).
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';

const DIR = import.meta.dirname;
/** Pure computation, no service, no server: seconds on a laptop. */
const QUICK = new Set(['render-template']);

const all = readdirSync(DIR)
  .filter((file) => file.endsWith('.bench.ts'))
  .map((file) => file.replace(/\.bench\.ts$/, ''))
  .sort();
const args = process.argv.slice(2);
const flags = new Set(args.filter((arg) => arg.startsWith('--')));
const names = args.filter((arg) => !arg.startsWith('--'));
const unknownFlags = [...flags].filter((flag) => flag !== '--quick' && flag !== '--list');
const unknownNames = names.filter((name) => !all.includes(name));
if (unknownFlags.length > 0 || unknownNames.length > 0) {
  process.stderr.write(`unknown ${unknownFlags.length > 0 ? `option ${unknownFlags.join(' ')}` : `bench ${unknownNames.join(' ')}`}; benches: ${all.join(', ')}; options: --quick, --list\n`);
  process.exit(64);
}
const chosen = all.filter((name) => (names.length === 0 || names.includes(name)) && (!flags.has('--quick') || QUICK.has(name)));

if (flags.has('--list')) {
  for (const name of chosen) process.stdout.write(`${JSON.stringify({ bench: name, file: `bench/${name}.bench.ts`, quick: QUICK.has(name) })}\n`);
  process.exit(0);
}

function isJsonObject(line: string): boolean {
  try {
    return line.startsWith('{') && typeof JSON.parse(line) === 'object';
  } catch {
    return false;
  }
}

function run(name: string): Promise<number | null> {
  return new Promise((resolve) => {
    // The same Node and loader as this runner (npm run puts the project's Node 22 first on PATH).
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(DIR, `${name}.bench.ts`)], { stdio: ['ignore', 'pipe', 'inherit'] });
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (isJsonObject(line)) process.stdout.write(`${line}\n`);
      else process.stderr.write(`[${name}] ${line}\n`);
    });
    child.on('close', (code) => resolve(code));
  });
}

let failed = 0;
for (const name of chosen) {
  process.stderr.write(`[bench] ${name}\n`);
  const code = await run(name);
  if (code !== 0) {
    failed += 1;
    process.stderr.write(`[bench] ${name} failed (exit ${code})\n`);
  }
}
process.exit(failed > 0 ? 1 : 0);
