/**
 * The fleet shape: two API processes and two worker processes on MariaDB, RabbitMQ (queue and event bus), an S3
 * stand-in and two ComfyUI protocol servers, no Redis. Users' sockets are spread over both API processes; jobs are submitted through either.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import test, { type ExecutionContext } from 'ava';
import amqp from 'amqplib';
import { startFauxqs } from 'fauxqs';
import mysql from 'mysql2/promise';
import { createMariaDatabase, DATABASES } from '../support/databases.ts';
import { startComfyProtocolServer } from '../support/comfy-protocol-server.ts';
import { startS3StandIn } from '../support/s3-stand-in.ts';
import { ServiceProcess, WorkerProcess } from '../support/service-process.ts';
import { openSocket, type SocketMessage } from '../support/socket-client.ts';
import { freePort } from '../support/test-app.ts';
import { TestClient } from '../support/test-client.ts';

const AMQP_URL = process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const run = promisify(execFile);
/** What the checks need of a socket: everything it received, and a wait for a message. */
interface Socket {
  messages: SocketMessage[];
  waitFor(predicate: (m: SocketMessage) => boolean, timeoutMs?: number): Promise<SocketMessage>;
  close(): void;
}

/** A client's new socket on another API process after the first one's process died: syncs from the last seq it saw. */
async function resume(lost: Socket, client: TestClient): Promise<Socket> {
  const since = lost.messages.reduce((max, m) => Math.max(max, m.seq ?? 0), 0);
  const again = await openSocket(client);
  const merged: Socket = {
    messages: [...lost.messages, ...again.messages],
    waitFor: async (predicate, timeoutMs) => merged.messages.find(predicate) ?? again.waitFor(predicate, timeoutMs),
    close: () => again.close(),
  };
  again.socket.on('message', (data) => merged.messages.push(JSON.parse(String(data)) as SocketMessage));
  again.send({ type: 'sync', since });
  return merged;
}

const clientOn = (api: ServiceProcess, from: TestClient): TestClient => {
  const client = new TestClient(api.baseUrl);
  for (const [name, value] of from.cookies) client.cookies.set(name, value);
  return client;
};

interface Fleet {
  apis: ServiceProcess[];
  workers: WorkerProcess[];
  prefix: string;
  databaseUrl: string;
  output(): string;
}

async function startFleet(t: ExecutionContext, env: Record<string, string> = {}): Promise<Fleet> {
  const maria = await createMariaDatabase();
  const s3 = await startS3StandIn();
  // Two GPU servers, as the builtin engine served over ComfyUI's protocol; the workers share them.
  const comfy = [await startComfyProtocolServer(), await startComfyProtocolServer()];
  const root = mkdtempSync(path.join(tmpdir(), 'mgs-fleet-'));
  const prefix = `fleet-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  const shared = {
    ...s3.env,
    DATABASE_URL: maria.url,
    JWT_SECRET: 'fleet-secret-that-is-long-enough-for-hs256-000',
    QUEUE_DRIVER: 'rabbitmq',
    AMQP_URL,
    AMQP_PREFIX: prefix,
    EVENT_BUS_DRIVER: 'rabbitmq',
    CACHE_DRIVER: 'memory',
    LOG_LEVEL: 'warn',
    WORKER_CONCURRENCY: '2',
    QUEUE_VISIBILITY_SECONDS: '10',
    // Every client here comes from 127.0.0.1: lift the per-address limits meant for the internet.
    REGISTER_MAX_PER_ADDRESS: '100000',
    LOGIN_MAX_FAILURES_PER_ADDRESS: '100000',
    ENGINE_DRIVER: 'comfyui',
    COMFYUI_URLS: comfy.map((server) => server.url).join(','),
    ...env,
  };
  const ports = [await freePort(), await freePort()];
  const apis = [0, 1].map((n) => new ServiceProcess({ ...shared, ROLES: 'api', DATA_DIR: path.join(root, `api${n}`) }, ports[n]!));
  const workers = [0, 1].map((n) => new WorkerProcess({ ...shared, ROLES: 'worker', DATA_DIR: path.join(root, `worker${n}`) }));
  const fleet: Fleet = {
    apis,
    workers,
    prefix,
    databaseUrl: maria.url,
    output: () => [...apis, ...workers].map((p, i) => `--- ${i < 2 ? `api${i}` : `worker${i - 2}`}\n${p.output.join('').slice(-3000)}`).join('\n'),
  };
  t.teardown(async () => {
    await Promise.all([...apis, ...workers].map((p) => p.stop()));
    if (process.env.TEST_LOGS) t.log(fleet.output());
    await deleteTopology(prefix);
    await maria.drop();
    await s3.stop();
    for (const server of comfy) await server.close();
    rmSync(root, { recursive: true, force: true });
  });
  for (const api of apis) await api.start(); // one after the other: the first migrates and installs the ready templates
  for (const worker of workers) worker.start();
  return fleet;
}

async function deleteTopology(prefix: string): Promise<void> {
  const { stdout: queues } = await run('rabbitmqctl', ['list_queues', 'name', '-q', '--no-table-headers']);
  const { stdout: exchanges } = await run('rabbitmqctl', ['list_exchanges', 'name', '-q', '--no-table-headers']);
  const connection = await amqp.connect(AMQP_URL);
  const channel = await connection.createChannel();
  for (const name of queues.split('\n').filter((q) => q.startsWith(prefix))) await channel.deleteQueue(name).catch(() => undefined);
  for (const name of exchanges.split('\n').filter((x) => x.startsWith(prefix))) await channel.deleteExchange(name).catch(() => undefined);
  await connection.close();
}

interface User {
  client: TestClient;
  id: string;
  sockets: Socket[];
}

/** Users signed up through alternating API processes, each with one socket on every API process. */
async function signUpUsers(fleet: Fleet, count: number, t: ExecutionContext): Promise<User[]> {
  const users: User[] = [];
  for (let n = 0; n < count; n++) {
    const client = new TestClient(fleet.apis[n % 2]!.baseUrl);
    const user = await client.signUp({ email: `user${n}@fleet.test` });
    const sockets: Socket[] = [];
    for (const api of fleet.apis) {
      const socket = await openSocket(clientOn(api, client));
      t.teardown(() => socket.close());
      sockets.push(socket);
    }
    users.push({ client, id: user.id, sockets });
  }
  return users;
}

async function imageTemplate(client: TestClient): Promise<{ id: string; cost: number }> {
  const catalogue = await client.get('/templates');
  return catalogue.body.find((template: { name: string }) => template.name === 'Solid colour image');
}

const terminal = (m: SocketMessage) => m.type === 'job.completed' || m.type === 'job.failed' || m.type === 'job.cancelled';

/** Every job of every user ended once, completed, seen by each of its owner's sockets and by no one else's. */
async function expectAllCompletedOnce(t: ExecutionContext, users: User[], jobsOf: Map<string, string[]>, fleet: Fleet): Promise<void> {
  for (const user of users) {
    for (const jobId of jobsOf.get(user.id)!) {
      for (const socket of user.sockets) {
        await socket.waitFor((m) => terminal(m) && m.jobId === jobId, 90_000).catch(async (error: unknown) => {
          const job = await user.client.get(`/generate/${jobId}`);
          const events = socket.messages.filter((m) => m.jobId === jobId).map((m) => m.type);
          throw new Error(`${String(error)}\njob ${jobId}: ${JSON.stringify(job.body)}\nits events here: ${events.join(', ')}\n${fleet.output()}`);
        });
      }
    }
  }
  await sleep(500); // anything duplicated would arrive by now
  const owner = new Map<string, string>();
  for (const [userId, jobs] of jobsOf) for (const jobId of jobs) owner.set(jobId, userId);
  for (const user of users) {
    for (const [index, socket] of user.sockets.entries()) {
      const foreign = socket.messages.filter((m) => m.jobId && owner.get(m.jobId) !== user.id);
      t.deepEqual(foreign, [], `user ${user.id}'s socket on api${index} got nobody else's events`);
      for (const jobId of jobsOf.get(user.id)!) {
        const ends = socket.messages.filter((m) => terminal(m) && m.jobId === jobId);
        t.is(ends.length, 1, `job ${jobId} ended once on api${index}`);
        t.is(ends[0]!.type, 'job.completed', JSON.stringify(ends[0]));
      }
    }
  }
}

/** Database truth: each job succeeded, has one history row per output and was charged once, with no refund. */
async function expectConsistentDatabase(t: ExecutionContext, fleet: Fleet, users: User[], perJobCost: number, jobsPerUser: number, outputsPerJob: number): Promise<void> {
  const connection = await mysql.createConnection(fleet.databaseUrl);
  try {
    const [jobs] = await connection.query<mysql.RowDataPacket[]>('SELECT status, COUNT(*) AS n FROM generation_jobs GROUP BY status');
    t.deepEqual(jobs.map((row) => [row.status, Number(row.n)]), [['succeeded', users.length * jobsPerUser]]);
    const [history] = await connection.query<mysql.RowDataPacket[]>('SELECT job_id, COUNT(*) AS n FROM history_items GROUP BY job_id HAVING n <> ?', [outputsPerJob]);
    t.deepEqual(history, [], `${outputsPerJob} history rows per job, no more`);
  } finally {
    await connection.end();
  }
  for (const user of users) {
    const profile = await user.client.get('/auth/profile');
    t.is(profile.body.coinBalance, 100 - jobsPerUser * perJobCost, 'charged once per job, nothing refunded');
    t.is((await user.client.get('/my-outputs?limit=100')).body.total, jobsPerUser * outputsPerJob);
  }
}

/** Submits five jobs for each user, alternating the API process they go through. */
async function submitFive(fleet: Fleet, users: User[], template: { id: string }): Promise<Map<string, string[]>> {
  const jobsOf = new Map<string, string[]>();
  await Promise.all(
    users.map(async (user, u) => {
      const jobs: string[] = [];
      for (let n = 0; n < 5; n++) {
        const client = n % 2 === 0 ? user.client : clientOn(fleet.apis[(u + 1) % 2]!, user.client);
        const submitted = await client.post('/generate', { templateId: template.id, parameters: { prompt: `u${u} n${n}`, width: 64, height: 64 } });
        if (submitted.status !== 202) throw new Error(`submit answered ${submitted.status}: ${JSON.stringify(submitted.body)}`);
        jobs.push(submitted.body.id as string);
      }
      jobsOf.set(user.id, jobs);
    }),
  );
  return jobsOf;
}

if (DATABASES.includes('mariadb')) {
  test.serial('[mariadb] fleet on SQS: 50 jobs of 10 users through 2 API and 2 worker processes (SQS queue, Redis bus, S3) each complete once', async (t) => {
    t.timeout(240_000);
    const sqs = await startFauxqs({ port: 0, logger: false });
    t.teardown(() => sqs.stop());
    const dlq = sqs.createQueue('fleet-dead');
    const main = sqs.createQueue('fleet', { attributes: { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount: '8' }) } });
    const fleet = await startFleet(t, {
      QUEUE_DRIVER: 'sqs',
      SQS_QUEUE_URL: main.queueUrl,
      SQS_ENDPOINT: sqs.address,
      SQS_WAIT_SECONDS: '2',
      CACHE_DRIVER: 'redis',
      REDIS_URL,
      EVENT_BUS_DRIVER: 'redis',
    });
    const users = await signUpUsers(fleet, 10, t);
    const template = await imageTemplate(users[0]!.client);
    const jobsOf = await submitFive(fleet, users, template);
    await expectAllCompletedOnce(t, users, jobsOf, fleet);
    await expectConsistentDatabase(t, fleet, users, template.cost, 5, 1);
  });

  test.serial('[mariadb] fleet: 50 jobs of 10 users through 2 API and 2 worker processes on RabbitMQ and S3 each complete once, events reach only their owners', async (t) => {
    t.timeout(240_000);
    const fleet = await startFleet(t);
    const users = await signUpUsers(fleet, 10, t);
    const template = await imageTemplate(users[0]!.client);
    const jobsOf = await submitFive(fleet, users, template);
    await expectAllCompletedOnce(t, users, jobsOf, fleet);
    await expectConsistentDatabase(t, fleet, users, template.cost, 5, 1);
    // Outputs are served by the store through presigned URLs, whichever process asks.
    const history = await users[3]!.client.get('/my-outputs?limit=1');
    const viewed = await fetch(history.body.items[0].viewUrl);
    t.is(viewed.status, 200);
    t.is(viewed.headers.get('content-type'), 'image/png');
  });

  test.serial('[mariadb] fleet faults: a worker killed mid-job, the broker dropping every connection, an API process killed under its sockets', async (t) => {
    t.timeout(300_000);
    const fleet = await startFleet(t);
    const users = await signUpUsers(fleet, 4, t);
    const template = await imageTemplate(users[0]!.client);
    const jobsOf = new Map<string, string[]>(users.map((user) => [user.id, []]));
    const submit = async (user: User, n: number) => {
      const submitted = await user.client.post('/generate', { templateId: template.id, parameters: { prompt: `n${n}`, width: 1024, height: 1024, batch_size: 4 } });
      if (submitted.status !== 202) throw new Error(`submit answered ${submitted.status}: ${JSON.stringify(submitted.body)}`);
      jobsOf.get(user.id)!.push(submitted.body.id as string);
    };
    for (const [u, user] of users.entries()) for (let n = 0; n < 3; n++) await submit(user, u * 10 + n);

    // 1. A worker dies while jobs run: its unacknowledged messages go back to the queue for the other worker.
    await users[0]!.sockets[0]!.waitFor((m) => m.type === 'job.started', 60_000);
    await fleet.workers[0]!.kill();

    // 2. The broker drops every connection of the fleet (as a RabbitMQ restart would): all reconnect.
    const { stdout } = await run('rabbitmqctl', ['list_connections', 'pid', 'client_properties', '-q', '--no-table-headers']);
    const ours = stdout.split('\n').filter((line) => line.includes(`{"connection_name","media-gen ${fleet.prefix} `));
    for (const line of ours) await run('rabbitmqctl', ['close_connection', line.split('\t')[0]!, 'test: broker restart']).catch(() => undefined);
    t.true(ours.length >= 3, `closed ${ours.length} connections`);

    // 3. api1 dies under its sockets: its clients reconnect to api0 and sync what they missed.
    await fleet.apis[1]!.kill();
    for (const user of users) {
      user.sockets[1] = await resume(user.sockets[1]!, clientOn(fleet.apis[0]!, user.client));
      t.teardown(() => user.sockets[1]!.close());
      // Users signed in through api1 keep working through api0.
      if (user.client.baseUrl === fleet.apis[1]!.baseUrl) user.client = clientOn(fleet.apis[0]!, user.client);
    }
    for (const [u, user] of users.entries()) await submit(user, u * 10 + 5);

    await expectAllCompletedOnce(t, users, jobsOf, fleet);
    await expectConsistentDatabase(t, fleet, users, template.cost, 4, 4);
  });
}
