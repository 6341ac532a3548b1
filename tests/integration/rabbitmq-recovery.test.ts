import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';
import { openSocket } from '../support/socket-client.ts';
import { startTestApp } from '../support/test-app.ts';
import { AmqpLink } from '../../adapters/rabbitmq/amqp-link.ts';
import { RabbitMessageQueue } from '../../adapters/rabbitmq/rabbit-message-queue.ts';
import { waitFor } from '../contract/message-queue.contract.ts';
import { quietLogger } from '../support/generation-harness.ts';

const AMQP_URL = process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const run = promisify(execFile);

/** Has the broker close every connection whose client named itself `name` (as a broker restart or a network cut would). */
async function closeConnections(name: string): Promise<number> {
  const { stdout } = await run('rabbitmqctl', ['list_connections', 'pid', 'client_properties', '-q', '--no-table-headers']);
  const ours = stdout.split('\n').filter((line) => line.includes(`{"connection_name","${name}"}`)).map((line) => line.split('\t')[0]!);
  for (const pid of ours) await run('rabbitmqctl', ['close_connection', pid, 'test: connection cut']);
  return ours.length;
}

test('RabbitMQ: a connection cut mid-job loses nothing: the job comes back, the late ack is ignored, consumers and publishers reconnect', async (t) => {
  t.timeout(90_000);
  const prefix = `recovery-${Date.now().toString(36)}`;
  const name = `${prefix}-worker`;
  const workerLink = new AmqpLink({ url: AMQP_URL, logger: quietLogger, name, initialDelayMs: 100, maxDelayMs: 500 });
  const apiLink = new AmqpLink({ url: AMQP_URL, logger: quietLogger, name: `${prefix}-api` });
  await workerLink.open();
  await apiLink.open();
  const worker = new RabbitMessageQueue(workerLink, { prefix });
  const api = new RabbitMessageQueue(apiLink, { prefix });
  t.teardown(async () => {
    await worker.close();
    await api.destroyTopology().catch(() => undefined);
    await workerLink.close();
    await apiLink.close();
  });

  const handled: { n: number; attempt: number }[] = [];
  const acked = new Set<number>();
  let cut: Promise<number> | null = null;
  const consumer = await worker.consume({ taskTypes: ['generation'], environment: 'local', concurrency: 2, maxAttempts: 5, visibilitySeconds: 30 }, async (message) => {
    const { n } = message.body as { n: number };
    handled.push({ n, attempt: message.attempt });
    if (n === 0 && message.attempt === 1) {
      // The broker drops us while job 0 runs; it finishes only after that, so its ack is a late one.
      cut ??= closeConnections(name);
      await cut.catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 500));
    } else {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    acked.add(n);
    return { action: 'ack' };
  });
  t.teardown(() => consumer.stop());

  for (let n = 0; n < 6; n++) await api.publish({ taskType: 'generation', environment: 'local', body: { n } });
  await waitFor(() => cut !== null, 'job 0 started', 10_000);
  t.is(await cut!, 1, 'the worker connection was closed by the broker');
  // While the worker reconnects, publishing through its link waits for the connection instead of failing.
  await worker.publish({ taskType: 'generation', environment: 'local', body: { n: 6 } });

  await waitFor(() => [0, 1, 2, 3, 4, 5, 6].every((n) => handled.some((h) => h.n === n && h.attempt >= 1)) && handled.filter((h) => h.n === 0).length >= 2, 'every message handled, job 0 again', 30_000).catch(async (error: unknown) => {
    throw new Error(`${String(error)}; handled ${JSON.stringify(handled)}; waiting ${JSON.stringify(await api.peek(100))}; dead ${JSON.stringify(await api.deadLetters(100))}`);
  });
  await waitFor(async () => (await api.peek(100)).length === 0, 'the queue drained', 10_000);
  t.deepEqual(await api.deadLetters(100), []);
  const zero = handled.filter((h) => h.n === 0).map((h) => h.attempt);
  t.deepEqual(zero.slice(0, 2), [1, 2], 'the job cut off with its connection came back as attempt 2');
  t.deepEqual([...new Set(handled.map((h) => h.n))].sort(), [0, 1, 2, 3, 4, 5, 6], 'nothing lost');
});

test('EVENT_BUS_DRIVER=rabbitmq: after the bus connection comes back, open sockets catch up from the store on what they missed', async (t) => {
  t.timeout(60_000);
  const prefix = `busrec-${Date.now().toString(36)}`;
  const app = await startTestApp('sqlite', { QUEUE_DRIVER: 'rabbitmq', EVENT_BUS_DRIVER: 'rabbitmq', AMQP_URL, AMQP_PREFIX: prefix });
  t.teardown(async () => {
    await (resolve(app.app.container, TOKENS.Queue) as RabbitMessageQueue).destroyTopology().catch(() => undefined);
    await app.close();
  });
  const client = app.client();
  const user = await client.signUp();
  const socket = await openSocket(client);
  t.teardown(() => socket.close());
  const uow = resolve(app.app.container, TOKENS.UnitOfWork);
  const log = resolve(app.app.container, TOKENS.UserEventLog);
  const jobId = randomUUID();
  await uow.run((tx) => log.record(tx, user.id, { type: 'job.status', jobId, text: 'one' }));
  await socket.waitFor((m) => m.text === 'one');

  // The last event of the stream is stored but its fan-out is lost (the bus was down): no later event reveals the gap.
  await resolve(app.app.container, TOKENS.Repositories).events.append(user.id, { type: 'job.status', jobId, text: 'two' }, new Date());
  t.is(await closeConnections(`media-gen ${prefix} events api+worker`), 1, 'the event bus connection was cut');
  const caught = await socket.waitFor((m) => m.text === 'two', 20_000);
  t.is(caught.seq, 2);
});
