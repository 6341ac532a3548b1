import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { buildApplication, type Application } from '../../bootstrap/app.ts';
import { loadConfig } from '../../bootstrap/config.ts';
import { submitRaw } from '../support/scheduling-app.ts';
import { freePort, silentLogger } from '../support/test-app.ts';
import { TestClient } from '../support/test-client.ts';

// What bootstrap/app.ts builds and starts for each role, the media origins the web client's CSP allows with S3, and a
// start-up whose database never answers: it gives up after its retries instead of waiting for ever.

const BASE = {
  APP_ENV: 'local',
  HOST: '127.0.0.1',
  JWT_SECRET: 'roles-secret-that-is-long-enough-for-hs256-0000',
  REGISTER_MAX_PER_ADDRESS: '100000',
  LOGIN_MAX_FAILURES_PER_ADDRESS: '100000',
  ALLOW_RAW_WORKFLOWS: 'all',
  RAW_WORKFLOW_COST: '1',
};

const build = (env: Record<string, string>): Application => {
  const loaded = loadConfig({ ...BASE, ...env }, { persistLocalSecret: false });
  if (!loaded.ok) throw new Error(`config invalid: ${loaded.problems.join('; ')}`);
  return buildApplication(loaded.config, { logger: silentLogger });
};

const dataDir = (t: ExecutionContext): string => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mgs-roles-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('ROLES=api serves HTTP and runs no job; ROLES=worker serves nothing and runs the jobs the api queued', async (t) => {
  const dir = dataDir(t);
  const port = await freePort();
  const api = build({ ROLES: 'api', DATA_DIR: dir, PORT: String(port) });
  t.teardown(() => api.stop());
  t.truthy(api.server);
  t.deepEqual(await api.start(), { port });
  const user = new TestClient(`http://127.0.0.1:${port}`);
  await user.signUp();
  const submitted = await submitRaw(user);
  t.is(submitted.status, 202, JSON.stringify(submitted.body));
  const jobId = submitted.body.id as string;
  await sleep(1_500);
  t.is((await user.get(`/generate/${jobId}`)).body.status, 'queued', 'an api process runs no job');

  const worker = build({ ROLES: 'worker', DATA_DIR: dir, PORT: String(port) });
  t.teardown(() => worker.stop());
  t.is(worker.server, null);
  t.is(worker.http, null);
  t.deepEqual(await worker.start(), { port: null }, 'a worker listens on no port (the api holds it)');
  let status = '';
  for (let waited = 0; waited < 30_000 && status !== 'succeeded'; waited += 100) {
    status = (await user.get(`/generate/${jobId}`)).body.status;
    if (status !== 'succeeded') await sleep(100);
  }
  t.is(status, 'succeeded', 'the worker ran the job the api queued');
});

/** The Content-Security-Policy's img-src of the web client, from an application built (not started) with `env`. */
const imgSrcOf = async (t: ExecutionContext, env: Record<string, string>): Promise<string[]> => {
  const app = build({ ROLES: 'api', DATA_DIR: dataDir(t), PORT: '3999', STORAGE_DRIVER: 's3', S3_BUCKET: 'outputs', AWS_REGION: 'eu-west-3', ...env });
  t.teardown(() => app.stop());
  const server = createServer(app.http!);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as { port: number };
  const page = await fetch(`http://127.0.0.1:${port}/`, { headers: { accept: 'text/html' } });
  const directive = (page.headers.get('content-security-policy') ?? '').split(';').map((part) => part.trim().split(/\s+/)).find(([name]) => name === 'img-src');
  return directive?.slice(1) ?? [];
};

test("with S3 the client may load media from the store's public endpoint, else its endpoint, else the bucket's AWS hosts", async (t) => {
  const own = 'http://localhost:3999';
  t.deepEqual(await imgSrcOf(t, {}), ["'self'", 'blob:', 'data:', own, 'https://outputs.s3.eu-west-3.amazonaws.com', 'https://s3.eu-west-3.amazonaws.com']);
  t.deepEqual(await imgSrcOf(t, { S3_ENDPOINT: 'http://minio.internal:9000' }), ["'self'", 'blob:', 'data:', own, 'http://minio.internal:9000']);
  t.deepEqual(await imgSrcOf(t, { S3_ENDPOINT: 'http://minio.internal:9000', S3_PUBLIC_ENDPOINT: 'https://media.example.com' }), ["'self'", 'blob:', 'data:', own, 'https://media.example.com']);
});

test('a database that never answers fails start-up after the migration retries, without waiting for ever', async (t) => {
  const closed = await freePort();
  const app = build({ ROLES: 'api', DATA_DIR: dataDir(t), PORT: String(await freePort()), DATABASE_URL: `mariadb://app:pw@127.0.0.1:${closed}/media` });
  t.teardown(() => app.stop().catch(() => undefined));
  const started = Date.now();
  const outcome = await Promise.race([
    app.start().then(
      () => 'started',
      (error: unknown) => `failed: ${(error as Error).message}`,
    ),
    sleep(40_000).then(() => 'still retrying after 40 s'),
  ]);
  t.regex(outcome, /^failed: /);
  t.true(Date.now() - started >= 4_000, `it retried before giving up (${Date.now() - started} ms)`);
});
