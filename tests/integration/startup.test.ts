import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { PROJECT_BIN, runCommand } from '../support/run-command.ts';

test('a bad configuration prints every problem on stderr and exits non-zero within 2 s', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mgs-startup-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = {
    DATA_DIR: dataDir,
    APP_ENV: 'staging',
    PORT: 'not-a-port',
    QUEUE_DRIVER: 'sqs',
    STORAGE_DRIVER: 's3',
    JWT_SECRET: 'short',
    DATABASE_URL: 'postgres://db/app',
  };
  // The time is the program's own only when the machine is not saturated: the best of up to three runs
  // counts (each run's output is checked all the same).
  const times: number[] = [];
  for (let run = 0; run < 3 && !times.some((ms) => ms < 2000); run++) {
    const result = await runCommand(path.join(PROJECT_BIN, 'tsx'), ['bootstrap/main.ts'], env, { timeoutMs: 10_000 });
    times.push(result.ms);
    t.not(result.code, null, 'it exits by itself');
    t.not(result.code, 0);
    for (const name of ['APP_ENV', 'PORT', 'SQS_QUEUE_URL', 'AWS_REGION', 'S3_BUCKET', 'JWT_SECRET', 'DATABASE_URL']) {
      t.regex(result.stderr, new RegExp(`^  - ${name} `, 'm'), `${name} is reported`);
    }
    t.is(result.stdout, '');
  }
  t.log(`exited after ${times.map((ms) => `${ms.toFixed(0)} ms`).join(', ')}`);
  t.true(Math.min(...times) < 2000, `took ${times.map((ms) => ms.toFixed(0)).join(', ')} ms`);
  t.deepEqual(readdirSync(dataDir), [], 'nothing is created for a configuration that is refused');
});
