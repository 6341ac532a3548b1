import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { MemoryMessageQueue } from '../../adapters/memory/memory-message-queue.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { SequelizeDatabase, type DatabaseOptions } from '../../adapters/sequelize/sequelize-database.ts';
import { SequelizeMessageQueue, type SequelizeMessageQueueOptions } from '../../adapters/sequelize/sequelize-message-queue.ts';
import { AmqpLink } from '../../adapters/rabbitmq/amqp-link.ts';
import { RabbitMessageQueue } from '../../adapters/rabbitmq/rabbit-message-queue.ts';
import { SqsMessageQueue } from '../../adapters/sqs/sqs-message-queue.ts';
import { startFauxqs } from 'fauxqs';
import { BACKENDS } from '../support/backends.ts';
import { quietLogger } from '../support/generation-harness.ts';
import { createMariaDatabase, type TestDatabase } from '../support/databases.ts';
import { FAST, messageQueueContract, waitFor, type QueueBackend } from './message-queue.contract.ts';

/** One database per backend; `makeOther` opens a second SequelizeDatabase on it, as another process would. */
async function sequelizeBackend(options: DatabaseOptions, cleanup: () => Promise<void>): Promise<QueueBackend> {
  const main = new SequelizeDatabase(options);
  await main.migrate();
  const opened: SequelizeDatabase[] = [main];
  return {
    make: async () => ({ queue: new SequelizeMessageQueue(main, FAST) }),
    makeOther: async () => {
      const db = new SequelizeDatabase(options);
      opened.push(db);
      return { queue: new SequelizeMessageQueue(db, FAST) };
    },
    dispose: async () => {
      for (const db of opened) await db.close();
      await cleanup();
    },
  };
}

/** A fresh, empty database of this kind (a file for SQLite, a new database on the MariaDB server). */
async function databaseOptions(dialect: TestDatabase): Promise<{ options: DatabaseOptions; cleanup: () => Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'mgs-queue-'));
    return {
      options: { url: 'sqlite:', dialect: 'sqlite', storagePath: path.join(dir, 'app.db') },
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const maria = await createMariaDatabase();
  return { options: { url: maria.url, dialect: 'mysql' }, cleanup: () => maria.drop() };
}

for (const backend of BACKENDS) {
  messageQueueContract(backend, async (): Promise<QueueBackend> => {
    if (backend === 'memory') {
      // Instances over one store see the same messages, like processes over one database.
      const store = new MemoryStore();
      const make = async () => ({ queue: new MemoryMessageQueue(store, FAST) });
      return { make, makeOther: make, dispose: async () => {} };
    }
    const { options, cleanup } = await databaseOptions(backend);
    return sequelizeBackend(options, cleanup);
  });
}

// The database queue polls; a publish in the same process must not wait for the next poll.
for (const dialect of BACKENDS.filter((name): name is TestDatabase => name !== 'memory')) {
  test(`${dialect}: a publish in this process wakes an idle consumer at once`, async (t) => {
    const { options, cleanup } = await databaseOptions(dialect);
    const db = new SequelizeDatabase(options);
    await db.migrate();
    const slow: SequelizeMessageQueueOptions = { pollIntervalMs: 10_000 };
    const queue = new SequelizeMessageQueue(db, slow);
    t.teardown(async () => {
      await queue.close();
      await db.close();
      await cleanup();
    });
    const latencies: number[] = [];
    let publishedAt = 0;
    const consumer = await queue.consume(
      { taskTypes: ['generation'], environment: 'local', concurrency: 1, maxAttempts: 3, visibilitySeconds: 5 },
      async () => {
        latencies.push(Date.now() - publishedAt);
        return { action: 'ack' };
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 100)); // the first (empty) poll is done: the loop sleeps
    for (let n = 1; n <= 2; n++) {
      publishedAt = Date.now();
      await queue.publish({ taskType: 'generation', environment: 'local', body: { n } });
      await waitFor(() => latencies.length === n, `delivery ${n}`, 2000);
    }
    await consumer.stop();
    // Far below the 10 s poll interval (the margin is for a loaded machine).
    t.true(latencies.every((ms) => ms < 1500), `took ${latencies.join(', ')} ms`);
  });
}

// The queue is the outbox of the application's transactions: publishes made inside one must still purge old tombstones.
for (const dialect of BACKENDS.filter((name): name is TestDatabase => name !== 'memory')) {
  test(`${dialect}: acknowledged messages past their retention are purged, also when the publish is made inside a transaction`, async (t) => {
    const { options, cleanup } = await databaseOptions(dialect);
    const db = new SequelizeDatabase(options);
    await db.migrate();
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, warn: (msg: string, fields?: object) => void warnings.push(`${msg} ${JSON.stringify(fields)}`), error() {}, child: () => logger };
    let now = new Date('2026-01-01T00:00:00Z');
    const queue = new SequelizeMessageQueue(db, { ...FAST, retainDoneMs: 1000, logger, clock: { now: () => now } });
    t.teardown(async () => {
      await queue.close();
      await db.close();
      await cleanup();
    });
    const done = () => db.sequelize.query(`SELECT COUNT(*) AS n FROM queue_messages WHERE status = 'done'`, { plain: true }).then((row) => Number((row as { n: number }).n));
    const consumer = await queue.consume({ taskTypes: ['generation'], environment: 'local', concurrency: 1, maxAttempts: 3, visibilitySeconds: 5 }, async () => ({ action: 'ack' }));
    await queue.publish({ taskType: 'generation', environment: 'local', body: { n: 1 } });
    await waitFor(async () => (await done()) === 1, 'the first message acknowledged', 5000);
    await consumer.stop();

    now = new Date(now.getTime() + 120_000); // past the retention and the once-a-minute purge interval
    await db.transaction((scope) => queue.writerOn(scope).add({ id: 'in-a-transaction', message: { taskType: 'generation', environment: 'local', body: { n: 2 } }, createdAt: now }));
    await waitFor(async () => (await done()) === 0, 'the old tombstone purged', 5000);
    t.deepEqual(warnings.filter((w) => w.includes('purge')), []);
  });
}

const AMQP_URL = process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

// RabbitMQ (the running server): a prefix of its own per run, deleted afterwards.
messageQueueContract(
  'rabbitmq',
  async (): Promise<QueueBackend> => {
    const prefix = `test-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
    const links: AmqpLink[] = [];
    const queues: RabbitMessageQueue[] = [];
    const make = async () => {
      const link = new AmqpLink({ url: AMQP_URL, logger: quietLogger, initialMaxRetries: 0 });
      await link.open().catch((error: unknown) => {
        throw new Error(`RabbitMQ is not reachable at ${AMQP_URL} (start it: rabbitmq-server -detached): ${String(error)}`);
      });
      links.push(link);
      const queue = new RabbitMessageQueue(link, { prefix, backoff: FAST.backoff, deliveryLimit: 10 });
      queues.push(queue);
      return { queue };
    };
    return {
      make,
      makeOther: make,
      dispose: async () => {
        for (const queue of queues) await queue.destroyTopology().catch(() => undefined);
        for (const link of links) await link.close();
      },
    };
  },
  { deduplicates: false, peekReturnsCount: true, peekSeesDelayed: true, statsByTaskType: true, statsOldestAge: false, handsBackFailedDeadLetter: true },
);

// SQS on fauxqs (started here). Each make() gets a queue of its own (with its dead-letter queue), since one SQS queue
// serves one environment; makeOther() opens a second client on the latest one (only serial tests use it). Standard
// queues deliver a republished messageId again; FIFO queues deduplicate it (for five minutes).
for (const fifo of [false, true]) {
  const suffix = fifo ? '.fifo' : '';
  messageQueueContract(
    fifo ? 'sqs-fifo' : 'sqs',
    async (): Promise<QueueBackend> => {
      const server = await startFauxqs({ port: 0, logger: false });
      let latest: { queueUrl: string; dlqUrl: string } | null = null;
      let n = 0;
      // Peek and the dead letters short-poll here (fauxqs answers every message either way): the contract calls them inside
      // handlers whose visibility is a fraction of the 1 s long poll an empty queue would wait (sqs-queue-guards pins the default).
      const open = (queueUrl: string, dlqUrl: string) => ({
        queue: new SqsMessageQueue({
          queueUrl,
          deadLetterQueueUrl: dlqUrl,
          region: 'us-east-1',
          endpoint: server.address,
          credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
          waitTimeSeconds: 1,
          browseWaitSeconds: 0,
          backoff: FAST.backoff,
        }),
      });
      const fifoAttributes: Record<string, string> = fifo ? { FifoQueue: 'true' } : {};
      return {
        make: async () => {
          n += 1;
          const dlq = server.createQueue(`contract-${n}-dead${suffix}`, { attributes: fifoAttributes });
          const redrive = { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount: '10' }) };
          const main = server.createQueue(`contract-${n}${suffix}`, { attributes: { ...fifoAttributes, ...redrive } });
          latest = { queueUrl: main.queueUrl, dlqUrl: dlq.queueUrl };
          return open(latest.queueUrl, latest.dlqUrl);
        },
        makeOther: async () => open(latest!.queueUrl, latest!.dlqUrl),
        dispose: () => server.stop(),
      };
    },
    { deduplicates: fifo, peekReturnsCount: true, peekSeesDelayed: false, statsByTaskType: false, statsOldestAge: false, handsBackFailedDeadLetter: true },
  );
}

// SQS alone: where the dead letters go, and the deletes it batches.
test('sqs: consume() fails at once on a queue without a dead-letter queue; one named by the RedrivePolicy is found', async (t) => {
  const server = await startFauxqs({ port: 0, logger: false });
  t.teardown(() => server.stop());
  const open = (queueUrl: string) =>
    new SqsMessageQueue({ queueUrl, region: 'us-east-1', endpoint: server.address, credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, waitTimeSeconds: 1, backoff: FAST.backoff });
  const options = { taskTypes: ['generation'], environment: 'local', concurrency: 1, maxAttempts: 3, visibilitySeconds: 5 };

  const bare = open(server.createQueue('bare').queueUrl);
  t.teardown(() => bare.close());
  let ran = 0;
  await t.throwsAsync(() => bare.consume(options, async () => ((ran += 1), { action: 'ack' })), { message: /has no dead-letter queue/ });

  const dlq = server.createQueue('found-dead');
  const main = server.createQueue('found', { attributes: { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount: '10' }) } });
  const queue = open(main.queueUrl);
  t.teardown(() => queue.close());
  t.is(await queue.deadLetterQueueUrl(), dlq.queueUrl);
  const { messageId } = await queue.publish({ taskType: 'generation', environment: 'local', body: { n: 1 } });
  const consumer = await queue.consume(options, async () => ({ action: 'dead', reason: 'to the found queue' }));
  await waitFor(async () => (await queue.deadLetters(10)).length === 1, 'the dead letter');
  await consumer.stop();
  t.deepEqual((await queue.deadLetters(10)).map((m) => [m.id, m.reason]), [[messageId, 'to the found queue']]);
  t.is(ran, 0);
});

test('sqs: stop() sends the deletes still batched, so acknowledged messages do not come back', async (t) => {
  const server = await startFauxqs({ port: 0, logger: false });
  t.teardown(() => server.stop());
  const dlq = server.createQueue('batched-dead');
  const main = server.createQueue('batched');
  // Deletes held for a minute: only stop() sends them in time.
  const queue = new SqsMessageQueue({ queueUrl: main.queueUrl, deadLetterQueueUrl: dlq.queueUrl, region: 'us-east-1', endpoint: server.address, credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, waitTimeSeconds: 1, deleteFlushMs: 60_000 });
  t.teardown(() => queue.close());
  await queue.publish({ taskType: 'generation', environment: 'local', body: { n: 1 } });
  let deliveredAt = 0;
  // A visibility that outlasts stop() (which first waits out the receive in flight, up to 1 s here): a delete sent
  // after it would be refused as stale.
  const consumer = await queue.consume({ taskTypes: ['generation'], environment: 'local', concurrency: 1, maxAttempts: 3, visibilitySeconds: 4 }, async () => {
    deliveredAt = Date.now();
    return { action: 'ack' };
  });
  await waitFor(() => deliveredAt > 0, 'the delivery');
  await consumer.stop();
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, deliveredAt + 4500 - Date.now()))); // past the visibility
  t.deepEqual(await queue.peek(10), []);
});
