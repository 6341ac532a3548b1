import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { ava } from '../mutation/mutation.ts';

// The mutation runner's ava run (tests/mutation/mutation.ts), on a stand-in "ava" script in a scratch project: the
// arguments it gets, its output, the time limit, and that nothing the run started outlives it.

/** A scratch project whose node_modules/.bin/ava is `script` (a shell script). */
const project = (t: { teardown(fn: () => void): void }, script: string): string => {
  const cwd = mkdtempSync(path.join(tmpdir(), 'mgs-ava-run-'));
  t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
  mkdirSync(path.join(cwd, 'node_modules/.bin'), { recursive: true });
  writeFileSync(path.join(cwd, 'node_modules/.bin/ava'), `#!/bin/sh\n${script}\n`);
  chmodSync(path.join(cwd, 'node_modules/.bin/ava'), 0o755);
  return cwd;
};

/** Alive: the process exists and is not a zombie waiting to be reaped. */
const alive = (pid: number): boolean => {
  const status = `/proc/${pid}/status`;
  return existsSync(status) && !/^State:\s+Z/m.test(readFileSync(status, 'utf8'));
};

test('the run gets the test files, after --fail-fast when asked, with CI=true; its output comes back', (t) => {
  const cwd = project(t, 'echo "args: $*"; echo "ci: $CI"; echo "✘ [fail]: a test" >&2; exit 1');
  const plain = ava(cwd, ['tests/a.test.ts', 'tests/b.test.ts']);
  t.regex(plain.output, /^args: tests\/a\.test\.ts tests\/b\.test\.ts$/m);
  t.regex(plain.output, /^ci: true$/m);
  t.regex(plain.output, /✘ \[fail\]: a test/);
  t.is(plain.status, 1);
  t.false(plain.killed);
  t.regex(ava(cwd, ['tests/a.test.ts'], true).output, /^args: --fail-fast tests\/a\.test\.ts$/m);
});

// Pins: a test worker that spins (a mutation can make one loop without ever yielding) is left behind when ava gives
// up and exits; the run's whole process group is killed when it returns, so it cannot spin beside every later run.
test('a process the run left behind is killed when it returns', (t) => {
  const cwd = project(t, 'sh -c "while :; do :; done" > /dev/null 2>&1 & echo $! > spinner.pid; exit 1');
  ava(cwd, []);
  const pid = Number(readFileSync(path.join(cwd, 'spinner.pid'), 'utf8'));
  // Gone already when the run's group was killed; when it was not (the guard deleted), this test still ends it.
  t.teardown(() => {
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  });
  const deadline = Date.now() + 2000;
  while (alive(pid) && Date.now() < deadline) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  t.false(alive(pid), `process ${pid} still runs`);
});

test('a run past its limit is stopped and reported as killed', (t) => {
  const cwd = project(t, 'sleep 30');
  const run = ava(cwd, [], false, 300);
  t.true(run.killed);
  t.true(run.seconds < 10);
});
