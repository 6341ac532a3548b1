/**
 * The mutation check of the guards: each mutation deletes one guard (a conditional update, a fence, a
 * refund, a state check, an ownership check...) in a scratch copy of the project, runs the tests that should
 * catch it, and reports whether they went red. Every mutation must be caught. Not part of `npm test` (it runs
 * the suites many times); run it with `npm run mutation` (optionally `--area=money,jobs` to take only those
 * list files, a name filter, and `--fail-fast` to stop each mutated run at its first failed assertion) and read
 * the JSON lines.
 *
 * A mutation counts as caught only when a test of its files fails an assertion. Before any mutation, the
 * same files run unmutated and must all pass (green first): otherwise a missing server, a flaky file or a
 * timeout would read as "caught". A file that crashes or times out under a mutation is reported as such and
 * does not count as caught. The list lives in `mutations/*.mutations.ts`, one file per area. A mutation of the web
 * client's source (web/src) rebuilds its bundle (web/dist) in the scratch copy before its browser tests run.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ava, buildWeb, judge, type Mutation, type Verdict } from './mutation.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LIST_DIR = path.join(ROOT, 'tests/mutation/mutations');

async function loadMutations(areas: string[] | null): Promise<Mutation[]> {
  const all: Mutation[] = [];
  const lists = readdirSync(LIST_DIR).filter((name) => name.endsWith('.mutations.ts')).sort();
  const unknown = (areas ?? []).filter((area) => !lists.includes(`${area}.mutations.ts`));
  if (unknown.length > 0) throw new Error(`no mutation list for area ${unknown.join(', ')} (there are ${lists.map((name) => name.replace('.mutations.ts', '')).join(', ')})`);
  for (const file of lists.filter((name) => !areas || areas.includes(name.replace('.mutations.ts', '')))) {
    const module = (await import(pathToFileURL(path.join(LIST_DIR, file)).href)) as { MUTATIONS: Mutation[] };
    all.push(...module.MUTATIONS);
  }
  const names = new Set<string>();
  for (const mutation of all) {
    if (names.has(mutation.name)) throw new Error(`two mutations are named "${mutation.name}"`);
    names.add(mutation.name);
  }
  return all;
}

const print = (line: object): void => {
  process.stdout.write(`${JSON.stringify(line)}\n`);
};

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const areaArg = args.find((arg) => arg.startsWith('--area='));
  const areas = areaArg ? areaArg.slice('--area='.length).split(',').filter(Boolean) : null;
  const filter = args.find((arg) => !arg.startsWith('--'));
  // A sweep of many new entries: a mutated run stops at its first failed assertion (the baseline still runs whole).
  const failFast = args.includes('--fail-fast');
  const chosen = (await loadMutations(areas)).filter((mutation) => !filter || mutation.name.includes(filter));
  if (chosen.length === 0) {
    print({ error: `no mutation matches ${JSON.stringify(filter)}` });
    return 2;
  }
  // The bundle is built from the mutated source (buildWeb): an edit of web/dist would be overwritten.
  const built = chosen.filter((mutation) => [mutation, ...(mutation.also ?? [])].some((edit) => edit.file.startsWith('web/dist/')));
  if (built.length > 0) {
    print({ error: 'web/dist is built from web/src: delete the guard in its source (webGuard)', mutations: built.map((mutation) => mutation.name) });
    return 2;
  }
  // Every guard text must still be in the code before anything runs: a stale entry is an error, not a pass.
  const stale = chosen.flatMap((mutation) =>
    [mutation, ...(mutation.also ?? [])].filter((edit) => !readFileSync(path.join(ROOT, edit.file), 'utf8').includes(edit.find)).map((edit) => ({ mutation: mutation.name, file: edit.file })),
  );
  if (stale.length > 0) {
    print({ error: 'the guard text of these mutations is no longer in the code', stale });
    return 2;
  }

  const scratch = mkdtempSync(path.join(tmpdir(), 'mgs-mutation-'));
  const files = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
  for (const file of files) cpSync(path.join(ROOT, file), path.join(scratch, file), { recursive: true });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(scratch, 'node_modules'));
  try {
    // Green first: the files the chosen mutations rely on pass on the unmutated code, in this environment.
    const testFiles = [...new Set(chosen.flatMap((mutation) => mutation.tests))].sort();
    const baseline = ava(scratch, testFiles);
    const green = baseline.status === 0 && !baseline.killed;
    print({ baseline: testFiles, green, seconds: baseline.seconds, ...(green ? {} : { red: judge(baseline).red.slice(0, 10) }) });
    if (!green) {
      print({ error: 'the unmutated tests are not green here: fix them (or start the servers they need) before mutating' });
      return 2;
    }

    const counts: Record<Verdict | 'unchanged', number> = { caught: 0, survived: 0, crashed: 0, 'timed-out': 0, unchanged: 0 };
    for (const mutation of chosen) {
      const originals = new Map<string, string>();
      const edits = [mutation, ...(mutation.also ?? [])];
      for (const edit of edits) {
        const target = path.join(scratch, edit.file);
        const current = readFileSync(target, 'utf8');
        if (!originals.has(target)) originals.set(target, current);
        writeFileSync(target, current.replace(edit.find, edit.replace));
      }
      const built = edits.some((edit) => edit.file.startsWith('web/src/')) ? buildWeb(scratch, originals) : 'built';
      const run = built === 'built' ? ava(scratch, mutation.tests, failFast) : null;
      for (const [target, original] of originals) writeFileSync(target, original);
      const { verdict, red } = run ? judge(run) : { verdict: built as 'unchanged' | 'crashed', red: [] as string[] };
      counts[verdict] += 1;
      print({ mutation: mutation.name, verdict, caught: verdict === 'caught', seconds: run?.seconds ?? 0, red: red.slice(0, 3) });
    }
    print({ mutations: chosen.length, ...counts });
    return counts.caught === chosen.length ? 0 : 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

process.exit(await main());
