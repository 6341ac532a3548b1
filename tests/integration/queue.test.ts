import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { startFauxqs } from 'fauxqs';
import { openSocket } from '../support/socket-client.ts';
import { RabbitMessageQueue } from '../../adapters/rabbitmq/rabbit-message-queue.ts';
import { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import { SequelizeMessageQueue } from '../../adapters/sequelize/sequelize-message-queue.ts';
import { SequelizeUnitOfWork } from '../../adapters/sequelize/sequelize-unit-of-work.ts';
import { SqsMessageQueue } from '../../adapters/sqs/sqs-message-queue.ts';
import { buildApplication } from '../../bootstrap/app.ts';
import { loadConfig } from '../../bootstrap/config.ts';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';
import type { Outbox, OutboxEntry } from '../../core/ports/outbox.port.ts';
import type { DeliveredMessage } from '../../core/ports/queue.port.ts';
import { RelayOutbox } from '../../core/use-cases/queue/relay-outbox.use-case.ts';
import { createMariaDatabase, DATABASES, type TestDatabase } from '../support/databases.ts';
import { quietLogger } from '../support/generation-harness.ts';
import { silentLogger, startTestApp, type TestApp } from '../support/test-app.ts';

let skew = 0;
/** The relays' clock: a test moves it past a lease. */
const clock = { now: () => new Date(Date.now() + skew) };
const ids = { newId: () => crypto.randomUUID() };
const relayOf = (outbox: Outbox, db: SequelizeDatabase, batchSize?: number) =>
  new RelayOutbox({ outbox, queue: new SequelizeMessageQueue(db), ids, clock, logger: quietLogger, ...(batchSize ? { batchSize } : {}) });
let counter = 0;
const entry = (): OutboxEntry => {
  counter += 1;
  return {
    id: `00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`,
    createdAt: new Date(Date.UTC(2026, 2, 1, 0, 0, 0, counter)),
    message: { taskType: 'generation', environment: 'local', body: { n: counter } },
  };
};

/** A database and a way to open it again, as a second process would. */
async function openDatabase(kind: TestDatabase): Promise<{ open(): Promise<SequelizeDatabase>; dispose(): Promise<void> }> {
  const opened: SequelizeDatabase[] = [];
  let options: ConstructorParameters<typeof SequelizeDatabase>[0];
  let cleanup: () => Promise<void>;
  if (kind === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'mgs-relay-'));
    options = { url: 'sqlite:', dialect: 'sqlite', storagePath: path.join(dir, 'app.db') };
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const maria = await createMariaDatabase();
    options = { url: maria.url, dialect: 'mysql' };
    cleanup = () => maria.drop();
  }
  return {
    async open() {
      const db = new SequelizeDatabase(options);
      if (opened.length === 0) await db.migrate();
      opened.push(db);
      return db;
    },
    async dispose() {
      for (const db of opened) await db.close();
      await cleanup();
    },
  };
}

for (const kind of DATABASES) {
  test(`${kind}: a relay that dies between publish and markPublished loses nothing; after its lease the entry goes out once`, async (t) => {
    const database = await openDatabase(kind);
    t.teardown(() => database.dispose());
    const db = await database.open();
    const uow = new SequelizeUnitOfWork(db);
    const outbox = uow.outbox;
    const crashing: Outbox = Object.assign(Object.create(outbox) as Outbox, {
      markPublished: async () => {
        throw new Error('process killed between publish and markPublished');
      },
    });
    const e = entry();
    await uow.run((tx) => tx.outbox.add(e));
    await t.throwsAsync(relayOf(crashing, db).execute(), { message: /process killed/ });
    t.deepEqual((await new SequelizeMessageQueue(db).peek(10)).map((m) => m.id), [e.id], 'published before the crash');
    t.is(await relayOf(outbox, db).execute(), 0, 'leased to the dead relay for now');
    skew = 31_000;
    t.teardown(() => (skew = 0));
    t.is(await relayOf(outbox, db).execute(), 1, 'its lease ended: published again and marked');
    t.deepEqual((await new SequelizeMessageQueue(db).peek(10)).map((m) => m.id), [e.id], 'the queue kept it once');
    t.is(await relayOf(outbox, db).execute(), 0);
  });

  test(`${kind}: two processes relaying one outbox put each entry on the queue exactly once`, async (t) => {
    const database = await openDatabase(kind);
    t.teardown(() => database.dispose());
    const [first, second] = [await database.open(), await database.open()];
    const entries = Array.from({ length: 40 }, entry);
    const uows = [new SequelizeUnitOfWork(first), new SequelizeUnitOfWork(second)];
    await uows[0]!.run(async (tx) => {
      for (const e of entries) await tx.outbox.add(e);
    });
    const relays = [first, second].map((db, i) => relayOf(uows[i]!.outbox, db, 7));
    const counts = await Promise.all([relays[0]!.execute(), relays[1]!.execute(), relays[0]!.execute(), relays[1]!.execute()]);
    t.is(counts.reduce((a, b) => a + b, 0), 40, 'no entry published by two relays');
    const queued = (await new SequelizeMessageQueue(first).peek(100)).map((m) => m.id);
    t.deepEqual([...queued].sort(), entries.map((e) => e.id).sort(), 'each once');
  });

  test(`${kind}: in the app, an outbox entry added in a unit of work reaches a consumer at once; /health checks the queue`, async (t) => {
    const app = await startTestApp(kind);
    t.teardown(() => app.close());
    const container = app.app.container;
    const queue = resolve(container, TOKENS.Queue);
    const received: { message: DeliveredMessage; at: number }[] = [];
    const consumer = await queue.consume(
      { taskTypes: ['test.ping'], environment: 'local', concurrency: 1, maxAttempts: 3, visibilitySeconds: 30 },
      async (message) => {
        received.push({ message, at: Date.now() });
        return { action: 'ack' };
      },
    );
    t.teardown(() => consumer.stop());
    const e = { ...entry(), message: { taskType: 'test.ping', environment: 'local', body: { ping: 1 } } };
    await new Promise((resolve) => setTimeout(resolve, 300)); // everything idle: a poll would take up to its interval
    const committedAt = Date.now();
    await resolve(container, TOKENS.UnitOfWork).run((tx) => tx.outbox.add(e));
    const deadline = Date.now() + 3000;
    while (received.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    t.is(received.length, 1);
    t.like(received[0]!.message, { id: e.id, taskType: 'test.ping', environment: 'local', attempt: 1, body: e.message.body });
    // Notified, not found by the relay's 1 s fallback poll (the queue's own wake-up is timed in the contract suite).
    t.true(received[0]!.at - committedAt < 800, `delivered ${received[0]!.at - committedAt} ms after the commit`);
    t.is(await resolve(container, TOKENS.OutboxRelay).flush(), 0);

    const health = (await (await fetch(`${app.baseUrl}/api/v1/health`)).json()) as { checks: Record<string, string> };
    t.is(health.checks['queue'], 'ok');
  });
}

test('QUEUE_DRIVER=sqs fails start-up naming the problem: no queue there, or a queue without a dead-letter queue', async (t) => {
  const server = await startFauxqs({ port: 0, logger: false });
  t.teardown(() => server.stop());
  const bare = server.createQueue('no-redrive');
  const base = { QUEUE_DRIVER: 'sqs', AWS_REGION: 'us-east-1', SQS_ENDPOINT: server.address, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' };
  await t.throwsAsync(() => startTestApp('sqlite', { ...base, SQS_QUEUE_URL: bare.queueUrl }), { message: /has no dead-letter queue: give it a RedrivePolicy, or set SQS_DLQ_URL/ });
  await t.throwsAsync(() => startTestApp('sqlite', { ...base, SQS_QUEUE_URL: `${server.address}/000000000000/missing` }));
});

for (const db of DATABASES) {
  test.serial(`[${db}] QUEUE_DRIVER=sqs: jobs go through the outbox relay and SQS to the worker, exactly once`, async (t) => {
    const server = await startFauxqs({ port: 0, logger: false });
    t.teardown(() => server.stop());
    const dlq = server.createQueue('media-dead');
    const main = server.createQueue('media', { attributes: { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount: '6' }) } });
    const app = await startTestApp(db, { QUEUE_DRIVER: 'sqs', SQS_QUEUE_URL: main.queueUrl, SQS_ENDPOINT: server.address, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', SQS_WAIT_SECONDS: '1' });
    t.teardown(() => app.close());
    await expectFiveJobsOnce(t, app, SqsMessageQueue);
  });
}

const AMQP_URL = process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

for (const db of DATABASES) {
  test.serial(`[${db}] QUEUE_DRIVER=rabbitmq: a job goes through the outbox relay and RabbitMQ to the worker, exactly once`, async (t) => {
    const prefix = `it-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
    const app = await startTestApp(db, { QUEUE_DRIVER: 'rabbitmq', AMQP_URL, AMQP_PREFIX: prefix });
    t.teardown(async () => {
      const queue = resolve(app.app.container, TOKENS.Queue) as RabbitMessageQueue;
      await queue.destroyTopology().catch(() => undefined);
      await app.close();
    });
    await expectFiveJobsOnce(t, app, RabbitMessageQueue);
  });
}

/**
 * Five jobs through the bound queue, which is the one QUEUE_DRIVER names (not the database queue that would carry them
 * as well): each started and completed once, charged once, and nothing left behind.
 */
async function expectFiveJobsOnce(t: ExecutionContext, app: TestApp, driver: typeof SqsMessageQueue | typeof RabbitMessageQueue): Promise<void> {
  t.true(resolve(app.app.container, TOKENS.Queue) instanceof driver, `the queue is a ${driver.name}`);
  const client = app.client();
  await client.signUp();
  const socket = await openSocket(client);
  t.teardown(() => socket.close());
  const image = (await client.get('/templates')).body.find((template: { name: string }) => template.name === 'Solid colour image');
  const jobs: string[] = [];
  for (let n = 0; n < 5; n++) {
    const submitted = await client.post('/generate', { templateId: image.id, parameters: { prompt: `n${n}`, width: 64, height: 64 } });
    t.is(submitted.status, 202, JSON.stringify(submitted.body));
    jobs.push(submitted.body.id);
  }
  for (const jobId of jobs) await socket.waitFor((m) => m.type === 'job.completed' && m.jobId === jobId, 30_000);
  for (const jobId of jobs) {
    t.is(socket.messages.filter((m) => m.type === 'job.started' && m.jobId === jobId).length, 1, 'started once');
    t.is(socket.messages.filter((m) => m.type === 'job.completed' && m.jobId === jobId).length, 1, 'completed once');
  }
  t.is((await client.get('/my-outputs')).body.total, 5);
  t.is((await client.get('/auth/profile')).body.coinBalance, 100 - 5 * image.cost);
  const queue = resolve(app.app.container, TOKENS.Queue);
  t.deepEqual(await queue.peek(100), []);
  t.deepEqual(await queue.deadLetters(100), []);
  t.is(await resolve(app.app.container, TOKENS.OutboxRelay).flush(), 0, 'the outbox is empty');
  const health = (await (await fetch(`${app.baseUrl}/api/v1/health`)).json()) as { checks: Record<string, string> };
  t.is(health.checks['queue'], 'ok');
}
