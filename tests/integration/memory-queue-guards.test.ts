/**
 * Guards of the in-process queue (MemoryMessageQueue) that the shared MessageQueue contract does not reach: an
 * undefined body, options it cannot honour, negative list sizes, redrive (at once, and behind what waited before it),
 * the tombstone a discard leaves, close() waiting for its handlers, settled messages never taken again, freed slots,
 * the wake-up timer (the earliest message first, none while idle or once every consumer stopped), a visibility
 * shortened by extendVisibility, and what it logs. Every expectation is a literal; nothing is read back from the code.
 */
import test from 'ava';
import { MemoryMessageQueue, type MemoryMessageQueueOptions } from '../../adapters/memory/memory-message-queue.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import type { Clock } from '../../core/ports/clock.port.ts';
import type { ConsumeOptions, DeliveredMessage, HandlerOutcome } from '../../core/ports/queue.port.ts';
import { waitFor } from '../contract/message-queue.contract.ts';
import { activeTimers as timers, capturingLogger } from '../support/queue-test-kit.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const FAST: MemoryMessageQueueOptions = { backoff: { initialSeconds: 0.05, maxSeconds: 0.4 } };
const options = (overrides: Partial<ConsumeOptions> = {}): ConsumeOptions => ({
  taskTypes: ['generation'],
  environment: 'local',
  concurrency: 1,
  maxAttempts: 3,
  visibilitySeconds: 60,
  ...overrides,
});
const publish = (queue: MemoryMessageQueue, body: unknown, extra: { messageId?: string } = {}) =>
  queue.publish({ taskType: 'generation', environment: 'local', body, ...extra });

function fresh(extra: MemoryMessageQueueOptions = {}): MemoryMessageQueue {
  return new MemoryMessageQueue(new MemoryStore(), { ...FAST, ...extra });
}

test('a message published without a body is delivered with the body null', async (t) => {
  const queue = fresh();
  t.teardown(() => queue.close());
  await queue.publish({ taskType: 'generation', environment: 'local', body: undefined });
  const bodies: unknown[] = [];
  await queue.consume(options(), async (message) => (bodies.push(message.body), { action: 'ack' }));
  await waitFor(() => bodies.length === 1, 'the delivery', 2000);
  t.deepEqual(bodies, [null]);
});

test('consume() refuses options it cannot honour, and takes nothing', async (t) => {
  const queue = fresh();
  t.teardown(() => queue.close());
  await publish(queue, { n: 1 });
  let ran = 0;
  await t.throwsAsync(() => queue.consume(options({ concurrency: 0 }), async () => ((ran += 1), { action: 'ack' })));
  await sleep(50);
  t.is(ran, 0);
  t.is((await queue.peek(10)).length, 1);
});

test('peek and deadLetters with a negative size list nothing', async (t) => {
  const queue = fresh();
  t.teardown(() => queue.close());
  await publish(queue, { n: 1 });
  await publish(queue, { n: 2 });
  const consumer = await queue.consume(options({ environment: 'dead' }), async () => ({ action: 'dead', reason: 'no' }));
  await queue.publish({ taskType: 'generation', environment: 'dead', body: { n: 3 } });
  await queue.publish({ taskType: 'generation', environment: 'dead', body: { n: 4 } });
  await waitFor(async () => (await queue.deadLetters(10)).length === 2, 'two dead letters', 2000);
  await consumer.stop();
  t.deepEqual(await queue.peek(-1), []);
  t.deepEqual(await queue.deadLetters(-1), []);
});

test('a redriven message is delivered at once to an idle consumer, whatever visibility it had when it went dead', async (t) => {
  const queue = fresh();
  t.teardown(() => queue.close());
  const deliveries: number[] = [];
  // A 60 s visibility: the dead letter was taken with it, and must not wait it out once redriven.
  await queue.consume(options({ visibilitySeconds: 60 }), async (message) => {
    deliveries.push(message.attempt);
    return message.attempt === 1 && deliveries.length === 1 ? { action: 'dead', reason: 'first time' } : { action: 'ack' };
  });
  const { messageId } = await publish(queue, { n: 1 });
  await waitFor(async () => (await queue.deadLetters(10)).length === 1, 'the dead letter', 2000);
  await sleep(50); // the consumer is idle
  t.true(await queue.redrive(messageId));
  await waitFor(() => deliveries.length === 2, 'the redriven delivery', 1500);
  t.deepEqual(deliveries, [1, 1]);
});

test('a redriven message waits behind the messages that were waiting before the redrive (a clock that stands still)', async (t) => {
  // A clock that never moves: every message is visible at the same instant, so only the order of arrival decides.
  const clock: Clock = { now: () => new Date('2026-01-01T00:00:00Z') };
  const queue = fresh({ clock });
  t.teardown(() => queue.close());
  const first = await queue.consume(options(), async () => ({ action: 'dead', reason: 'later' }));
  const { messageId } = await publish(queue, { name: 'redriven' });
  await waitFor(async () => (await queue.deadLetters(10)).length === 1, 'the dead letter', 2000);
  await first.stop();
  await publish(queue, { name: 'waiting-1' });
  await publish(queue, { name: 'waiting-2' });
  t.true(await queue.redrive(messageId));
  t.deepEqual((await queue.peek(10)).map((m) => (m.body as { name: string }).name), ['waiting-1', 'waiting-2', 'redriven']);
  const order: string[] = [];
  await queue.consume(options(), async (message) => (order.push((message.body as { name: string }).name), { action: 'ack' }));
  await waitFor(() => order.length === 3, 'three deliveries', 2000);
  t.deepEqual(order, ['waiting-1', 'waiting-2', 'redriven']);
});

test('a discarded dead letter stays a tombstone: publishing its messageId again delivers nothing', async (t) => {
  const queue = fresh();
  t.teardown(() => queue.close());
  const delivered: unknown[] = [];
  await queue.consume(options(), async (message) => {
    delivered.push(message.body);
    return delivered.length === 1 ? { action: 'dead', reason: 'no' } : { action: 'ack' };
  });
  await publish(queue, { n: 1 }, { messageId: 'tomb-1' });
  await waitFor(async () => (await queue.deadLetters(10)).length === 1, 'the dead letter', 2000);
  t.true(await queue.discard('tomb-1'));
  await publish(queue, { n: 2 }, { messageId: 'tomb-1' });
  await sleep(100);
  t.deepEqual(delivered, [{ n: 1 }]);
  t.deepEqual(await queue.peek(10), []);
});

test('close() waits for the handlers in flight, and their outcome is kept', async (t) => {
  const store = new MemoryStore();
  const queue = new MemoryMessageQueue(store, FAST);
  const other = new MemoryMessageQueue(store, FAST);
  t.teardown(() => other.close());
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let started = 0;
  await queue.consume(options(), async () => {
    started += 1;
    await held;
    return { action: 'ack' };
  });
  await publish(queue, { n: 1 });
  await waitFor(() => started === 1, 'the delivery', 2000);
  let closed = false;
  const closing = queue.close().then(() => void (closed = true));
  await sleep(100);
  t.false(closed, 'close() returned while a handler was still running');
  release();
  await closing;
  t.deepEqual(await other.peek(10), []);
  t.deepEqual(await other.stats('local', ['generation']), [{ taskType: 'generation', waiting: 0, oldestWaitingSeconds: 0, deadLetters: 0 }]);
});

test('acknowledged and dead messages are never taken again, also once their visibility has run out', async (t) => {
  const queue = fresh();
  t.teardown(() => queue.close());
  const delivered: string[] = [];
  await queue.consume(options({ visibilitySeconds: 0.1 }), async (message) => {
    const { name } = message.body as { name: string };
    delivered.push(name);
    return name === 'dead' ? { action: 'dead', reason: 'no' } : { action: 'ack' };
  });
  await publish(queue, { name: 'acked' });
  await publish(queue, { name: 'dead' });
  await waitFor(() => delivered.length === 2, 'two deliveries', 2000);
  await sleep(300); // past the 100 ms visibility of both
  await publish(queue, { name: 'later' }); // a dispatch: it must find only this one
  await waitFor(() => delivered.includes('later'), 'the later message', 2000);
  await sleep(100);
  t.deepEqual(delivered, ['acked', 'dead', 'later']);
});

test('a retry waiting out its delay is listed by peek and counted as waiting by stats', async (t) => {
  const queue = fresh();
  t.teardown(() => queue.close());
  let attempts = 0;
  await queue.consume(options(), async () => ((attempts += 1), { action: 'retry', delaySeconds: 30 }));
  const { messageId } = await publish(queue, { n: 1 });
  await waitFor(() => attempts === 1, 'the delivery', 2000);
  await sleep(50); // settled: waiting out its 30 s delay
  t.deepEqual((await queue.peek(10)).map((m) => m.id), [messageId]);
  t.like((await queue.stats('local', ['generation']))[0], { taskType: 'generation', waiting: 1, deadLetters: 0 });
});

test('the earliest delayed retry wakes the consumer, not the latest', async (t) => {
  const queue = fresh();
  t.teardown(() => queue.close());
  const delivered: string[] = [];
  let retriedAt = 0;
  await queue.consume(options({ concurrency: 2 }), async (message) => {
    const { name } = message.body as { name: string };
    delivered.push(`${name}#${message.attempt}`);
    if (message.attempt > 1) return { action: 'ack' };
    retriedAt = Date.now();
    return { action: 'retry', delaySeconds: name === 'soon' ? 0.1 : 30 };
  });
  await publish(queue, { name: 'soon' });
  await publish(queue, { name: 'late' });
  await waitFor(() => delivered.includes('soon#2'), "the retry that waits 100 ms", 1500);
  t.true(Date.now() - retriedAt < 1500);
  t.deepEqual(delivered.sort(), ['late#1', 'soon#1', 'soon#2']);
});

test('an idle consumer does not spin: the queue looks at the clock only when something happens', async (t) => {
  let reads = 0;
  const clock: Clock = { now: () => ((reads += 1), new Date()) };
  const queue = fresh({ clock });
  t.teardown(() => queue.close());
  await queue.consume(options(), async () => ({ action: 'ack' }));
  await sleep(50);
  const before = reads;
  await sleep(300);
  t.true(reads - before <= 2, `${reads - before} clock reads in 300 ms of idling`);
});

test.serial('an idle consumer holds no timer for messages already settled', async (t) => {
  const baseline = timers();
  const queue = fresh();
  t.teardown(() => queue.close());
  const delivered: string[] = [];
  await queue.consume(options({ visibilitySeconds: 30 }), async (message) => {
    const { name } = message.body as { name: string };
    delivered.push(name);
    return name === 'dead' ? { action: 'dead', reason: 'no' } : { action: 'ack' };
  });
  await publish(queue, { name: 'acked' });
  await publish(queue, { name: 'dead' });
  await waitFor(() => delivered.length === 2, 'two deliveries', 2000);
  await sleep(50);
  t.is(timers(), baseline);
});

test.serial('a stopped consumer leaves no timer behind for a retry still waiting out its delay (the process can exit)', async (t) => {
  const baseline = timers();
  const store = new MemoryStore();
  const queue = new MemoryMessageQueue(store, FAST);
  // Another process's queue (an API's, say): it publishes and never consumes, and is never closed here.
  const publisher = new MemoryMessageQueue(store, FAST);
  t.teardown(async () => {
    await queue.close();
    await publisher.close();
  });
  let attempts = 0;
  const consumer = await queue.consume(options(), async () => ((attempts += 1), { action: 'retry', delaySeconds: 30 }));
  await publish(publisher, { n: 1 });
  await waitFor(() => attempts === 1, 'the delivery', 2000);
  await sleep(50);
  t.is(timers(), baseline + 1, 'a consumer waits for the retry with one timer');
  await consumer.stop();
  t.is(timers(), baseline, 'no timer once its only consumer stopped');
  await publish(publisher, { n: 2 });
  await sleep(50);
  t.is(timers(), baseline, 'a queue without consumers arms no timer when it publishes');
  t.is(attempts, 1);
});

test('extendVisibility can also shorten the visibility: the message comes back when the shorter one ends', async (t) => {
  const queue = fresh();
  t.teardown(() => queue.close());
  const attempts: number[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  t.teardown(() => release());
  let shortenedAt = 0;
  await queue.consume(options({ concurrency: 2, visibilitySeconds: 60 }), async (message: DeliveredMessage): Promise<HandlerOutcome> => {
    attempts.push(message.attempt);
    if (message.attempt === 1) {
      await message.extendVisibility(0.2);
      shortenedAt = Date.now();
      await held;
    }
    return { action: 'ack' };
  });
  await publish(queue, { n: 1 });
  await waitFor(() => attempts.length === 2, 'the second delivery', 2000);
  t.true(Date.now() - shortenedAt >= 150);
  t.deepEqual(attempts, [1, 2]);
});

test('what the queue logs: a handler that threw, a failed onDeadLetter, and an outcome that came too late', async (t) => {
  const { logger, lines } = capturingLogger();
  const queue = fresh({ logger });
  t.teardown(() => queue.close());
  let failDeadLetter = true;
  await queue.consume(
    {
      ...options({ maxAttempts: 1, environment: 'throws' }),
      onDeadLetter: async () => {
        if (failDeadLetter) {
          failDeadLetter = false;
          throw new Error('ending failed');
        }
      },
    },
    async () => {
      throw new Error('boom');
    },
  );
  const { messageId } = await queue.publish({ taskType: 'generation', environment: 'throws', body: { n: 1 }, messageId: 'logged-1' });
  await waitFor(() => lines.length === 2, 'two log lines', 2000);
  t.deepEqual(lines, [
    `warn queue handler failed {"messageId":"${messageId}","attempt":1,"error":"Error: boom"}`,
    `error queue dead-lettering failed {"messageId":"logged-1","error":"Error: ending failed"}`,
  ]);

  // A delivery whose visibility ran out while its handler ran: its outcome is ignored, with a warning.
  lines.length = 0;
  let calls = 0;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await queue.consume(options({ environment: 'late', concurrency: 2, visibilitySeconds: 0.1 }), async () => {
    calls += 1;
    if (calls === 1) await held;
    return { action: 'ack' };
  });
  await queue.publish({ taskType: 'generation', environment: 'late', body: { n: 1 }, messageId: 'late-1' });
  await waitFor(() => calls === 2, 'the second delivery', 2000);
  release();
  await waitFor(() => lines.length === 1, 'the warning', 2000);
  t.deepEqual(lines, ['warn queue message was taken by another delivery before it was settled (visibility expired) {"messageId":"late-1"}']);
});

test('a message without a trace context is delivered without one; its dead letter shows its reason; stats count each task type apart', async (t) => {
  const queue = fresh();
  t.teardown(() => queue.close());
  const traces: unknown[] = [];
  await queue.consume(options({ taskTypes: ['generation', 'publish'], environment: 'apart' }), async (message): Promise<HandlerOutcome> => {
    traces.push('trace' in message ? message.trace : 'none');
    return message.taskType === 'publish' ? { action: 'dead', reason: 'cannot publish' } : { action: 'ack' };
  });
  await queue.publish({ taskType: 'generation', environment: 'apart', body: { n: 1 } });
  await queue.publish({ taskType: 'publish', environment: 'apart', body: { n: 2 } });
  await waitFor(async () => (await queue.deadLetters(10)).length === 1, 'the dead letter', 2000);
  t.deepEqual(traces, ['none', 'none']);
  t.deepEqual((await queue.deadLetters(10)).map((m) => m.reason), ['cannot publish']);
  // Waiting in another environment's queue, one of each task type.
  await queue.publish({ taskType: 'generation', environment: 'counted', body: { n: 3 } });
  await queue.publish({ taskType: 'generation', environment: 'counted', body: { n: 4 } });
  t.deepEqual(
    (await queue.stats('apart', ['generation', 'publish'])).map(({ taskType, waiting, deadLetters }) => ({ taskType, waiting, deadLetters })),
    [
      { taskType: 'generation', waiting: 0, deadLetters: 0 },
      { taskType: 'publish', waiting: 0, deadLetters: 1 },
    ],
  );
  t.deepEqual(
    (await queue.stats('counted', ['generation', 'publish'])).map(({ taskType, waiting, deadLetters }) => ({ taskType, waiting, deadLetters })),
    [
      { taskType: 'generation', waiting: 2, deadLetters: 0 },
      { taskType: 'publish', waiting: 0, deadLetters: 0 },
    ],
  );
});

test('an acknowledged message stays a tombstone: publishing its messageId again delivers nothing', async (t) => {
  const queue = fresh();
  t.teardown(() => queue.close());
  const delivered: unknown[] = [];
  await queue.consume(options(), async (message) => (delivered.push(message.body), { action: 'ack' }));
  await publish(queue, { n: 1 }, { messageId: 'acked-1' });
  await waitFor(() => delivered.length === 1, 'the delivery', 2000);
  await sleep(50);
  await publish(queue, { n: 2 }, { messageId: 'acked-1' });
  await sleep(100);
  t.deepEqual(delivered, [{ n: 1 }]);
});

test('onDeadLetter is called only for a message that goes dead', async (t) => {
  const queue = fresh();
  t.teardown(() => queue.close());
  const ended: string[] = [];
  const handled: string[] = [];
  await queue.consume({ ...options(), onDeadLetter: async (message) => void ended.push((message.body as { name: string }).name) }, async (message): Promise<HandlerOutcome> => {
    const { name } = message.body as { name: string };
    handled.push(`${name}#${message.attempt}`);
    if (name === 'dead') return { action: 'dead', reason: 'given up' };
    if (name === 'retried' && message.attempt === 1) return { action: 'retry', delaySeconds: 0 };
    return { action: 'ack' };
  });
  for (const name of ['acked', 'retried', 'dead']) await publish(queue, { name });
  await waitFor(() => handled.length === 4, 'four deliveries', 2000);
  await sleep(50);
  t.deepEqual(handled.sort(), ['acked#1', 'dead#1', 'retried#1', 'retried#2']);
  t.deepEqual(ended, ['dead']);
});
