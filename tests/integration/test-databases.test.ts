import test from 'ava';
import path from 'node:path';
import { PROJECT_BIN, runCommand } from '../support/run-command.ts';

/** `TEST_DATABASES=sqlite npm test` on a machine without MariaDB: nothing may reach for it. Runs the suites that
 * create MariaDB databases in every way the tests do (a contract backend, the test app, two real processes). */
test('TEST_DATABASES=sqlite runs the database suites with MariaDB unreachable, and registers no MariaDB test', async (t) => {
  t.timeout(240_000);
  const files = ['tests/contract/message-queue.test.ts', 'tests/contract/job-repository.test.ts', 'tests/integration/multi-process.test.ts', 'tests/integration/restart.test.ts'];
  const env = {
    CI: 'true',
    TEST_DATABASES: 'sqlite',
    TEST_MARIADB_URL: 'mysql://root@127.0.0.1:9', // nothing listens on port 9
    ...(process.env.TEST_REDIS_URL ? { TEST_REDIS_URL: process.env.TEST_REDIS_URL } : {}),
  };
  const result = await runCommand(path.join(PROJECT_BIN, 'ava'), ['--timeout=120s', ...files], env, { timeoutMs: 230_000 });
  const output = result.stdout + result.stderr;
  t.is(result.code, 0, output.slice(-4000));
  t.regex(output, /\d+ tests? passed/);
  t.notRegex(output, /mariadb/i, 'no test title or error mentions MariaDB');
  t.regex(output, /\[sqlite\] a job run by the worker process/, 'the two-process test ran, on one SQLite file');
});

test('an unknown name in TEST_DATABASES is an error, not a silent narrowing', async (t) => {
  const result = await runCommand(path.join(PROJECT_BIN, 'tsx'), ['--eval', "import('./tests/support/databases.ts').catch((error) => { console.error(error.message); process.exit(3); })"], { TEST_DATABASES: 'sqlite,postgres' });
  t.is(result.code, 3);
  t.regex(result.stderr, /TEST_DATABASES="sqlite,postgres": name one or both of sqlite, mariadb/);
});
