import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { createMariaDatabase, DATABASES } from '../support/databases.ts';
import { ServiceProcess } from '../support/service-process.ts';
import { freePort } from '../support/test-app.ts';
import { TestClient } from '../support/test-client.ts';

// About 0.4 s of blur per 512×512 frame: a job that is still running when the process is killed.
const slowWorkflow = {
  '1': { class_type: 'EmptyImage', inputs: { width: 512, height: 512, batch_size: 6, color: 0x808080 } },
  '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 31, sigma: 10 } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'slow' } },
};

async function waitForJob(client: TestClient, jobId: string, statuses: string[], timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const job = await client.get(`/generate/${jobId}`);
    if (statuses.includes(job.body.status)) return job.body;
    await sleep(150);
  }
  throw new Error(`job ${jobId} never reached ${statuses.join('/')}`);
}

for (const db of DATABASES) {
  test.serial(`[${db}] a job running when the process is killed is retried after restart, with one charge and no duplicate history`, async (t) => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'mgs-restart-'));
    const maria = db === 'mariadb' ? await createMariaDatabase() : null;
    const env = {
      DATA_DIR: dataDir,
      JWT_SECRET: 'restart-test-secret-long-enough-for-hs256-0000',
      QUEUE_VISIBILITY_SECONDS: '3',
      LOG_LEVEL: 'warn',
      SEED_TEMPLATES: 'false',
      // The seed's client order with a raw workflow: allowed for administrators, at RAW_WORKFLOW_COST.
      ADMIN_EMAILS: 'admin@restart.test',
      RAW_WORKFLOW_COST: '5',
      ...(maria ? { DATABASE_URL: maria.url } : {}),
    };
    const service = new ServiceProcess(env, await freePort());
    t.teardown(async () => {
      await service.stop();
      await maria?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });
    await service.start();
    const client = new TestClient(service.baseUrl);
    await client.signUp({ email: 'admin@restart.test' });
    const requestId = randomUUID();
    t.is((await client.post('/coin/deduct', { amount: 5, reason: 'image_generation', relatedEntityId: requestId })).status, 200);
    const submitted = await client.post('/generate', { workflow: slowWorkflow, requestId });
    t.is(submitted.status, 202);

    await waitForJob(client, requestId, ['running'], 30_000);
    await sleep(300);
    await service.kill();
    await service.start();

    const job = await waitForJob(client, requestId, ['succeeded', 'failed'], 90_000);
    t.is(job.status, 'succeeded', JSON.stringify(job.error));
    t.true(job.outputs.length === 6);
    const history = await client.get('/my-outputs?limit=100');
    t.is(history.body.total, 6, 'one history item per file, none duplicated');
    t.is((await client.get('/auth/profile')).body.coinBalance, 95, 'charged once');
    const ledger = (await client.get('/coin/transactions?limit=100')).body.items as { reason: string; amount: number }[];
    t.deepEqual(ledger.map((tx) => [tx.reason, tx.amount]).sort(), [['image_generation', -5], ['signup_bonus', 100]].sort());
  });
}
