import { entriesOn, type Mutation } from '../mutation.ts';

/**
 * Guards of the mutation check itself: how an ava run is judged, and how a mutation of the web client's source is
 * built before its browser tests (ADR 058). A runner that counted a crash or an unbuilt bundle as caught would make
 * every other entry of this list worth nothing.
 */
const verdict = entriesOn('tooling', 'tests/mutation/mutation.ts', ['tests/unit/mutation-verdict.test.ts']);
const webBuild = entriesOn('tooling', 'tests/mutation/mutation.ts', ['tests/unit/mutation-web-build.test.ts']);
const avaRun = entriesOn('tooling', 'tests/mutation/mutation.ts', ['tests/unit/mutation-ava-run.test.ts']);

export const MUTATIONS: Mutation[] = [
  verdict('judge: a run the harness killed counts by the failures it printed', "  if (run.killed) return { verdict: 'timed-out', red };\n", ''),
  verdict('judge: a failed assertion is not read as a catch', "  if (red.length > 0) return { verdict: 'caught', red };\n", ''),
  verdict('judge: a green run is not read as a survivor', "  if (run.status === 0) return { verdict: 'survived', red };\n", ''),
  verdict("judge: ava's own timeout reads as a crash", "lines.some((line) => line.startsWith('✘ Timed out')) ? 'timed-out' : 'crashed'", "'crashed'"),
  webBuild('web build: a source that does not build goes on to the browser tests', "  if (run.status !== 0) return 'crashed';\n", ''),
  webBuild('web build: an edit the bundle does not show goes on to the browser tests', "readFileSync(file, 'utf8') !== text) ? 'built' : 'unchanged'", "readFileSync(file, 'utf8') !== text) ? 'built' : 'built'"),
  webBuild("web build: a second edit's build overwrites the committed files kept by the first", 'if (!originals.has(file)) originals.set(file, text);', 'originals.set(file, text);'),
  avaRun('ava run: what the run left behind is not killed', "      process.kill(-run.pid, 'SIGKILL');", '      void run.pid;'),
  avaRun('ava run: the run is not a process group of its own', "spawnSync('setsid', [path.join(cwd, 'node_modules/.bin/ava'), ", "spawnSync(path.join(cwd, 'node_modules/.bin/ava'), ["),
  avaRun('ava run: --fail-fast is not passed on', "...(failFast ? ['--fail-fast'] : [])", '...([] as string[])'),
];
