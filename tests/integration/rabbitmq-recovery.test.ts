import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import test from 'ava';
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
    if (n === 0 && message.attempt === 1) cut ??= closeConnections(name); // the broker drops us while job 0 runs
    await new Promise((resolve) => setTimeout(resolve, n === 0 && message.attempt === 1 ? 3000 : 50));
    acked.add(n);
    return { action: 'ack' };
  });
  t.teardown(() => consumer.stop());

  for (let n = 0; n < 6; n++) await api.publish({ taskType: 'generation', environment: 'local', body: { n } });
  await waitFor(() => cut !== null, 'job 0 started', 10_000);
  t.is(await cut!, 1, 'the worker connection was closed by the broker');
  // While the worker reconnects, publishing through its link waits for the connection instead of failing.
  await worker.publish({ taskType: 'generation', environment: 'local', body: { n: 6 } });

  await waitFor(() => [0, 1, 2, 3, 4, 5, 6].every((n) => handled.some((h) => h.n === n && h.attempt >= 1)) && handled.filter((h) => h.n === 0).length >= 2, 'every message handled, job 0 again', 30_000);
  await waitFor(async () => (await api.peek(100)).length === 0, 'the queue drained', 10_000);
  t.deepEqual(await api.deadLetters(100), []);
  const zero = handled.filter((h) => h.n === 0).map((h) => h.attempt);
  t.deepEqual(zero.slice(0, 2), [1, 2], 'the job cut off with its connection came back as attempt 2');
  t.deepEqual([...new Set(handled.map((h) => h.n))].sort(), [0, 1, 2, 3, 4, 5, 6], 'nothing lost');
});
