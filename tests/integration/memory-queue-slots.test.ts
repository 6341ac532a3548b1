/**
 * The in-process queue (MemoryMessageQueue) gives a consumer's slot back when a handler returns, and starts the next
 * waiting message in it at once. Alone in its file, and without stop() or close(): if a slot were never given back,
 * stop() would wait for it for ever and take the whole file down with it, where this test must fail on its assertion.
 * (An idle in-process consumer holds no timer, so the file still ends.)
 */
import test from 'ava';
import { MemoryMessageQueue } from '../../adapters/memory/memory-message-queue.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { waitFor } from '../contract/message-queue.contract.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a consumer with one slot runs each waiting message as soon as the slot is free', async (t) => {
  const queue = new MemoryMessageQueue(new MemoryStore());
  for (let n = 1; n <= 3; n++) await queue.publish({ taskType: 'generation', environment: 'local', body: { n } });
  const delivered: number[] = [];
  const started = Date.now();
  // A 60 s visibility: nothing but a freed slot can bring the next message this soon.
  await queue.consume({ taskTypes: ['generation'], environment: 'local', concurrency: 1, maxAttempts: 3, visibilitySeconds: 60 }, async (message) => {
    delivered.push((message.body as { n: number }).n);
    await sleep(20);
    return { action: 'ack' };
  });
  await waitFor(() => delivered.length === 3, 'three deliveries', 1500).catch(() => undefined);
  t.deepEqual(delivered, [1, 2, 3]);
  t.true(Date.now() - started < 1500);
});
