/**
 * Queue and storage drivers side by side, in one run (issue 10):
 *  1. each MessageQueue adapter with a zero-work handler (ack at once): messages/s for a burst of published messages
 *     consumed at WORKER_CONCURRENCY 4, and the latency of one hop (publish → handler start) for messages published
 *     one at a time, p50/p99. Baseline: the in-memory queue, the same code path with no transport; the ratio is
 *     what the transport costs. Drivers: database queue on SQLite and MariaDB, RabbitMQ (the running server),
 *     SQS (fauxqs in this process, so its figures include fauxqs's own CPU).
 *  2. S3 (s3rver in this process): a 256 MiB streamed upload, MB/s and the RSS growth while it runs.
 * Prints one JSON line per measurement. `node --expose-gc --import tsx bench/queue-drivers.bench.ts`
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { startFauxqs } from 'fauxqs';
import { MemoryMessageQueue } from '../adapters/memory/memory-message-queue.ts';
import { MemoryStore } from '../adapters/memory/memory-store.ts';
import { AmqpLink } from '../adapters/rabbitmq/amqp-link.ts';
import { RabbitMessageQueue } from '../adapters/rabbitmq/rabbit-message-queue.ts';
import { S3ObjectStorage } from '../adapters/s3/s3-object-storage.ts';
import { SequelizeDatabase } from '../adapters/sequelize/sequelize-database.ts';
import { SequelizeMessageQueue } from '../adapters/sequelize/sequelize-message-queue.ts';
import { SqsMessageQueue } from '../adapters/sqs/sqs-message-queue.ts';
import type { MessageQueue } from '../core/ports/queue.port.ts';
import { createMariaDatabase } from '../tests/support/databases.ts';
import { ROOT } from './support/harness.ts';

const BURST = Number(process.env.BENCH_BURST ?? 500);
const HOPS = Number(process.env.BENCH_HOPS ?? 100);
const CONCURRENCY = 4;
const AMQP_URL = process.env.BENCH_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };

interface Driver {
  name: string;
  queue: MessageQueue;
  dispose(): Promise<void>;
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 100) / 100;
};

async function measure(driver: Driver): Promise<{ messagesPerSecond: number; hopP50Ms: number; hopP99Ms: number }> {
  const environment = `bench-${Math.random().toString(36).slice(2, 8)}`;
  const { queue } = driver;
  // 1. Throughput: a burst, then consumers drain it.
  for (let n = 0; n < BURST; n++) await queue.publish({ taskType: 'generation', environment, body: { n } });
  let handled = 0;
  let done!: () => void;
  const drained = new Promise<void>((resolve) => (done = resolve));
  const started = performance.now();
  const consumer = await queue.consume({ taskTypes: ['generation'], environment, concurrency: CONCURRENCY, maxAttempts: 3, visibilitySeconds: 30 }, async () => {
    if (++handled === BURST) done();
    return { action: 'ack' };
  });
  await drained;
  const seconds = (performance.now() - started) / 1000;
  await consumer.stop();

  // 2. One hop at a time: publish → handler start.
  const hops: number[] = [];
  let sentAt = 0;
  let arrived!: () => void;
  const hopConsumer = await queue.consume({ taskTypes: ['generation'], environment: `${environment}-hop`, concurrency: 1, maxAttempts: 3, visibilitySeconds: 30 }, async () => {
    hops.push(performance.now() - sentAt);
    arrived();
    return { action: 'ack' };
  });
  for (let n = 0; n < HOPS; n++) {
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    sentAt = performance.now();
    await queue.publish({ taskType: 'generation', environment: `${environment}-hop`, body: { n } });
    await arrival;
  }
  await hopConsumer.stop();
  return { messagesPerSecond: Math.round(BURST / seconds), hopP50Ms: percentile(hops, 50), hopP99Ms: percentile(hops, 99) };
}

async function drivers(): Promise<Driver[]> {
  const list: Driver[] = [];
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-queue-'));
  const sqliteDb = new SequelizeDatabase({ url: 'sqlite:', dialect: 'sqlite', storagePath: path.join(dir, 'app.db') });
  await sqliteDb.migrate();
  list.push({ name: 'db-sqlite', queue: new SequelizeMessageQueue(sqliteDb, { pollIntervalMs: 200 }), dispose: async () => (await sqliteDb.close(), rmSync(dir, { recursive: true, force: true })) });

  const maria = await createMariaDatabase();
  const mariaDb = new SequelizeDatabase({ url: maria.url, dialect: 'mysql' });
  await mariaDb.migrate();
  list.push({ name: 'db-mariadb', queue: new SequelizeMessageQueue(mariaDb, { pollIntervalMs: 200 }), dispose: async () => (await mariaDb.close(), await maria.drop()) });

  const link = new AmqpLink({ url: AMQP_URL, logger: silent });
  await link.open();
  const rabbit = new RabbitMessageQueue(link, { prefix: `bench-${Date.now().toString(36)}` });
  list.push({ name: 'rabbitmq', queue: rabbit, dispose: async () => (await rabbit.destroyTopology(), await link.close()) });

  const fauxqs = await startFauxqs({ port: 0, logger: false });
  const dlq = fauxqs.createQueue('bench-dead');
  const main = fauxqs.createQueue('bench', { attributes: { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount: '5' }) } });
  const sqs = new SqsMessageQueue({ queueUrl: main.queueUrl, deadLetterQueueUrl: dlq.queueUrl, region: 'us-east-1', endpoint: fauxqs.address, credentials: { accessKeyId: 'b', secretAccessKey: 'b' }, waitTimeSeconds: 1 });
  list.push({ name: 'sqs-fauxqs', queue: sqs, dispose: async () => (await sqs.close(), await fauxqs.stop()) });
  return list;
}

/** s3rver in a child process, so the RSS measured here is the adapter's own, not the stand-in's buffers. */
async function s3rverProcess(): Promise<{ endpoint: string; stop(): void; dir: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-s3-'));
  const script = `import S3rver from 's3rver'; const s = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: ${JSON.stringify(dir)}, configureBuckets: [{ name: 'media' }] }); const a = await s.run(); console.log(a.port);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => child.stdout.once('data', (data) => resolve(Number(String(data).trim()))));
  return { endpoint: `http://127.0.0.1:${port}`, dir, stop: () => (child.kill(), rmSync(dir, { recursive: true, force: true })) };
}

async function s3Upload(): Promise<void> {
  const s3 = await s3rverProcess();
  const storage = new S3ObjectStorage({ bucket: 'media', region: 'us-east-1', endpoint: s3.endpoint, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  const total = 256 * 1024 * 1024;
  const chunk = Buffer.alloc(1024 * 1024, 7);
  async function* body() {
    for (let sent = 0; sent < total; sent += chunk.length) yield chunk;
  }
  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const started = performance.now();
  await storage.put('bench/big.bin', Readable.from(body()), { contentType: 'application/octet-stream' });
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  storage.close();
  s3.stop();
  const line = {
    bench: 's3-upload',
    sizeMiB: 256,
    seconds: Math.round(seconds * 100) / 100,
    mbPerSecond: Math.round((total / 1e6 / seconds) * 10) / 10,
    rssGrowthMiB: Math.round(((peak - rssBefore) / 1024 / 1024) * 10) / 10,
    limitMiB: 64,
    cpus: cpus().length,
    loadAvg1m: Math.round(loadavg()[0]! * 10) / 10,
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

const baselineQueue: Driver = { name: 'memory', queue: new MemoryMessageQueue(new MemoryStore()), dispose: async () => undefined };
const base = await measure(baselineQueue);
for (const driver of await drivers()) {
  try {
    const result = await measure(driver);
    const line = {
      bench: 'queue-driver',
      driver: driver.name,
      burst: BURST,
      concurrency: CONCURRENCY,
      ...result,
      baseline: 'memory queue',
      baselineMessagesPerSecond: base.messagesPerSecond,
      baselineHopP50Ms: base.hopP50Ms,
      ratioToMemory: Math.round((result.messagesPerSecond / base.messagesPerSecond) * 1000) / 1000,
      addedHopP50Ms: Math.round((result.hopP50Ms - base.hopP50Ms) * 100) / 100,
      cpus: cpus().length,
      loadAvg1m: Math.round(loadavg()[0]! * 10) / 10,
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  } finally {
    await driver.dispose();
  }
}
await s3Upload();
process.exit(0);
