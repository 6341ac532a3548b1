/**
 * The scaled-out deployment as real processes: one `ROLES=api` process and one `ROLES=worker`
 * process sharing a database (MariaDB, or one SQLite file), a storage directory (a shared volume) and Redis, which carries
 * the event bus. Jobs run only in the worker; their events must reach sockets on the API process
 * live, and a cancel request made on the API process must reach the engine run in the worker.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import sharp from 'sharp';
import { createMariaDatabase, DATABASES, type TestDatabase } from '../support/databases.ts';
import { ServiceProcess, WorkerProcess } from '../support/service-process.ts';
import { openSocket, type SocketMessage } from '../support/socket-client.ts';
import { freePort } from '../support/test-app.ts';
import { TestClient } from '../support/test-client.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ADMIN = 'admin@multi.test';

const smallWorkflow = {
  '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 64, batch_size: 1, color: 0x00ff00 } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'small' } },
};

// About 0.4 s of blur per 512×512 frame, checked for interruption between frames: some 3 s in all.
const slowWorkflow = {
  '1': { class_type: 'EmptyImage', inputs: { width: 512, height: 512, batch_size: 8, color: 0x808080 } },
  '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 31, sigma: 10 } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'slow' } },
};

interface Deployment {
  api: ServiceProcess;
  worker: WorkerProcess;
}

/** One fresh database (a MariaDB database, or one SQLite file both processes open), one shared storage
 * directory, one Redis; distinct DATA_DIRs; the same JWT_SECRET. */
async function startDeployment(t: { teardown(fn: () => Promise<void>): void; log(...values: unknown[]): void }, db: TestDatabase): Promise<Deployment> {
  const maria = db === 'mariadb' ? await createMariaDatabase() : null;
  const root = mkdtempSync(path.join(tmpdir(), 'mgs-multi-'));
  const port = await freePort();
  const shared = {
    DATABASE_URL: maria ? maria.url : `sqlite:${path.join(root, 'shared.db')}`,
    STORAGE_DIR: path.join(root, 'shared-storage'),
    JWT_SECRET: 'multi-process-secret-long-enough-for-hs256-00',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    CACHE_DRIVER: 'redis',
    REDIS_URL,
    // Counters in the shared Redis outlive a run; every run signs up from 127.0.0.1.
    REGISTER_MAX_PER_ADDRESS: '100000',
    EVENT_BUS_DRIVER: 'redis',
    QUEUE_DRIVER: 'db',
    SEED_TEMPLATES: 'false',
    LOG_LEVEL: 'warn',
    WORKER_CONCURRENCY: '1',
    // Raw workflows (these tests submit them) are for administrators; priced at 0 by the operator here.
    ADMIN_EMAILS: ADMIN,
    RAW_WORKFLOW_COST: '0',
  };
  const api = new ServiceProcess({ ...shared, ROLES: 'api', DATA_DIR: path.join(root, 'api') }, port);
  const worker = new WorkerProcess({ ...shared, ROLES: 'worker', DATA_DIR: path.join(root, 'worker') });
  t.teardown(async () => {
    await Promise.all([api.stop(), worker.stop()]);
    if (process.env.TEST_LOGS) t.log(`api:\n${api.output.join('')}\nworker:\n${worker.output.join('')}`);
    await maria?.drop();
    rmSync(root, { recursive: true, force: true });
  });
  await api.start(); // migrates the database first, so the worker does not race it
  worker.start();
  return { api, worker };
}

/** Waits for a socket message, failing at once with the worker's output if the worker process died. */
async function expectMessage(
  socket: Awaited<ReturnType<typeof openSocket>>,
  worker: WorkerProcess,
  predicate: (m: SocketMessage) => boolean,
  what: string,
  timeoutMs = 60_000,
): Promise<SocketMessage> {
  const died = (async () => {
    while (worker.exitCode === null) await sleep(100);
    throw new Error(`the worker exited with ${worker.exitCode} while waiting for ${what}: ${worker.output.join('').slice(-2000)}`);
  })();
  died.catch(() => undefined);
  return Promise.race([socket.waitFor(predicate, timeoutMs), died]);
}

for (const db of DATABASES) {
  test.serial(`[${db}] a job run by the worker process reports live to a socket on the api process, and its output is served by the api process`, async (t) => {
    const { api, worker } = await startDeployment(t, db);
    const client = new TestClient(api.baseUrl);
    await client.signUp({ email: ADMIN });
    const socket = await openSocket(client);
    t.teardown(() => socket.close());

    const submitted = await client.post('/generate', { workflow: smallWorkflow });
    t.is(submitted.status, 202, JSON.stringify(submitted.body));
    const jobId = submitted.body.id as string;
    const completed = await expectMessage(socket, worker, (m) => m.type === 'job.completed' && m.jobId === jobId, 'job.completed');

    // No sync was sent: every one of these came live, over Redis, from the worker process.
    const types = socket.messages.filter((m) => m.jobId === jobId).map((m) => m.type);
    t.log(`events on the api process's socket: ${types.join(', ')}`);
    t.true(types.includes('job.started'));
    t.true(types.indexOf('job.started') < types.indexOf('job.completed'));
    const seqs = socket.messages.map((m) => m.seq!);
    t.deepEqual(seqs, [...seqs].sort((a, b) => a - b), 'seq grows');
    const outputs = completed.outputs as { id: string; viewUrl: string; width: number; height: number }[];
    t.is(outputs.length, 1);
    t.like(outputs[0], { width: 64, height: 64 });
    t.is((await client.get(`/generate/${jobId}`)).body.status, 'succeeded');

    const history = await client.get('/my-outputs');
    t.is(history.status, 200);
    t.is(history.body.total, 1);
    t.is(history.body.items[0].id, outputs[0]!.id);
    // The worker wrote the file; the api process serves it from the shared storage directory.
    for (const url of [history.body.items[0].viewUrl as string, outputs[0]!.viewUrl]) {
      const viewed = await fetch(url);
      t.is(viewed.status, 200, url);
      t.is(viewed.headers.get('content-type'), 'image/png');
      const image = await sharp(Buffer.from(await viewed.arrayBuffer())).raw().toBuffer({ resolveWithObject: true });
      t.like(image.info, { width: 64, height: 64 });
      t.deepEqual([...image.data.subarray(0, 3)], [0, 255, 0]);
    }
  });

  test.serial(`[${db}] a cancel made on the api process interrupts the job running in the worker process`, async (t) => {
    const { api, worker } = await startDeployment(t, db);
    const client = new TestClient(api.baseUrl);
    await client.signUp({ email: ADMIN });
    const socket = await openSocket(client);
    t.teardown(() => socket.close());
    const started = (jobId: string) => expectMessage(socket, worker, (m) => m.type === 'job.started' && m.jobId === jobId, `job.started of ${jobId}`);

    // How long the slow job takes here when nobody cancels it (also warms the worker up).
    const reference = (await client.post('/generate', { workflow: slowWorkflow })).body.id as string;
    await started(reference);
    const referenceStart = Date.now();
    await expectMessage(socket, worker, (m) => m.type === 'job.completed' && m.jobId === reference, 'the reference job.completed');
    const fullRunMs = Date.now() - referenceStart;

    const slow = await client.post('/generate', { workflow: slowWorkflow });
    t.is(slow.status, 202, JSON.stringify(slow.body));
    const jobId = slow.body.id as string;
    // job.started is published just before the engine run begins: nearly all of the run is still ahead.
    await started(jobId);
    // With one job at a time in the worker, this one starts only once the engine has let go of the slow one.
    const next = (await client.post('/generate', { workflow: smallWorkflow })).body.id as string;
    const cancelledAt = Date.now();
    const cancel = await client.post(`/generate/${jobId}/cancel`);
    t.is(cancel.status, 200, JSON.stringify(cancel.body));
    t.is(cancel.body.status, 'cancelled');

    const cancelled = await expectMessage(socket, worker, (m) => m.type === 'job.cancelled' && m.jobId === jobId, 'job.cancelled');
    t.is(cancelled.refunded, 0, 'a raw workflow costs nothing here (RAW_WORKFLOW_COST=0)');
    await started(next);
    const freedAfterMs = Date.now() - cancelledAt;
    t.log(`uncancelled run ${fullRunMs} ms; the worker took the next job ${freedAfterMs} ms after the cancel`);
    // Not interrupted, the engine would run on for about fullRunMs; interrupted, it stops at the next frame.
    t.true(freedAfterMs < fullRunMs / 2, `the worker was busy ${freedAfterMs} ms after the cancel (a full run takes ${fullRunMs} ms)`);
    await expectMessage(socket, worker, (m) => m.type === 'job.completed' && m.jobId === next, 'job.completed of the next job');

    const job = await client.get(`/generate/${jobId}`);
    t.is(job.body.status, 'cancelled');
    const history = (await client.get('/my-outputs?limit=100')).body as { total: number; items: { jobId?: string }[] };
    t.is(history.total, 9, 'the reference job’s eight frames and the next job’s one; nothing of the cancelled job');
    t.false(socket.messages.some((m) => m.jobId === jobId && (m.type === 'job.completed' || m.type === 'job.failed')));
  });
}
