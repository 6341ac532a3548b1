import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** One edit of a mutation: `find` must occur in `file` (the first occurrence is replaced). */
export interface Edit {
  file: string;
  find: string;
  replace: string;
}

/** Deletes (or weakens) one guard; `tests` are the files that must go red without it. */
export interface Mutation extends Edit {
  name: string;
  /** Further edits made together with the first (a guard defended twice is only gone when both are). */
  also?: Edit[];
  tests: string[];
}

export type Verdict = 'caught' | 'survived' | 'crashed' | 'timed-out';

/** A run of one mutation's files that takes longer than this is stopped and reported, not counted as caught. */
const RUN_LIMIT_MS = 900_000;

/**
 * Runs ava on `tests` in `cwd` (its own node_modules/.bin/ava), with `--fail-fast` when asked. The run is a process
 * group of its own, killed whole when ava returns (or is stopped at `limitMs`): a mutation can make a test worker spin
 * without ever yielding (a loop of awaited promises), and ava, giving up on it with "Timed out", exits without it;
 * left alone, such a worker would spin on beside every later run.
 */
export function ava(cwd: string, tests: string[], failFast = false, limitMs = RUN_LIMIT_MS): { status: number | null; output: string; killed: boolean; seconds: number } {
  const started = Date.now();
  // setsid (util-linux) makes the run the leader of a process group of its own (it execs in place: same pid).
  const run = spawnSync('setsid', [path.join(cwd, 'node_modules/.bin/ava'), ...(failFast ? ['--fail-fast'] : []), ...tests], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true', PATH: `${path.join(cwd, 'node_modules/.bin')}:${process.env.PATH ?? ''}` },
    timeout: limitMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.pid) {
    try {
      process.kill(-run.pid, 'SIGKILL');
    } catch {
      // The group is empty: nothing outlived the run.
    }
  }
  const output = `${run.stdout ?? ''}${run.stderr ?? ''}`;
  if (process.env.MUTATION_VERBOSE) process.stdout.write(output);
  return { status: run.status, output, killed: run.signal !== null, seconds: Math.round((Date.now() - started) / 1000) };
}

/** Reads an ava run (its exit status, its output, whether the harness had to kill it): which tests failed an assertion, whether a file crashed, whether ava timed out. */
export function judge(run: { status: number | null; output: string; killed: boolean }): { verdict: Verdict; red: string[] } {
  const lines = run.output.split('\n').map((line) => line.trim());
  const red = lines.filter((line) => line.startsWith('✘ [fail]:'));
  if (run.killed) return { verdict: 'timed-out', red };
  if (red.length > 0) return { verdict: 'caught', red };
  if (run.status === 0) return { verdict: 'survived', red };
  return { verdict: lines.some((line) => line.startsWith('✘ Timed out')) ? 'timed-out' : 'crashed', red: lines.filter((line) => line.startsWith('✘')) };
}

/** Entries on one file, each named `<prefix>: <name>` and run against `tests`. */
export const entriesOn =
  (prefix: string, file: string, tests: string[]) =>
  (name: string, find: string, replace: string, also?: Edit[]): Mutation => ({ name: `${prefix}: ${name}`, file, find, replace, ...(also ? { also } : {}), tests });

/**
 * A guard of the web client, deleted in its source (web/src): the runner builds the bundle the browser tests serve
 * (web/dist) from the mutated source, so an entry names no minified text and outlives a rebuild.
 */
export const webGuard =
  (prefix: string, source: string, tests: string[]) =>
  (name: string, [find, replace]: [find: string, replace: string], more: Edit[] = []): Mutation =>
    entriesOn(prefix, source, tests)(name, find, replace, more.length > 0 ? more : undefined);

/**
 * Builds the web client's bundle (web/dist) in a scratch copy (`cwd`) from its mutated source, as `npm run build:web`
 * does, keeping the committed files in `originals` to be put back. A mutation the bundle does not show (esbuild dropped
 * the edit, or it only touched types) is `unchanged`; one that does not build is `crashed`. Neither counts as caught.
 */
export function buildWeb(cwd: string, originals: Map<string, string>): 'built' | 'unchanged' | 'crashed' {
  const dist = path.join(cwd, 'web/dist');
  const before = new Map(readdirSync(dist).map((name) => [path.join(dist, name), readFileSync(path.join(dist, name), 'utf8')]));
  for (const [file, text] of before) if (!originals.has(file)) originals.set(file, text);
  const run = spawnSync(path.join(cwd, 'node_modules/.bin/tsx'), ['web/build.ts'], { cwd, encoding: 'utf8' });
  if (run.status !== 0) return 'crashed';
  return [...before].some(([file, text]) => readFileSync(file, 'utf8') !== text) ? 'built' : 'unchanged';
}
