import test, { type ExecutionContext } from 'ava';
import { GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, SetQueueAttributesCommand, type MessageAttributeValue } from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';
import { SqsMessageQueue, type SqsMessageQueueOptions } from '../../adapters/sqs/sqs-message-queue.ts';
import type { ConsumeOptions, HandlerOutcome } from '../../core/ports/queue.port.ts';
import type { Logger } from '../../core/ports/logger.port.ts';
import { FAST, waitFor } from '../contract/message-queue.contract.ts';

// The SQS queue's own guards (receive loop and its back-off, slots, visibility, deletes, dead letters, peek, redrive,
// stats, the dead-letter queue's lookup), each seen from outside: what handlers get, what peek, the dead letters and
// stats show, what the adapter tells the operator's log. SQS is fauxqs, started here (in-process: it cannot be missing).
// Faults are injected with a middleware on the adapter's own SQS client.

type Server = Awaited<ReturnType<typeof startFauxqs>>;
let server: Server;
test.before(async () => {
  server = await startFauxqs({ port: 0, logger: false });
});
test.after.always(async () => {
  await server?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ENV = 'local';
const TASK = 'generation';
const base: ConsumeOptions = { taskTypes: [TASK], environment: ENV, concurrency: 1, maxAttempts: 3, visibilitySeconds: 5 };
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
let counter = 0;

interface Call {
  name: string;
  input: Record<string, unknown>;
  at: number;
}
/** Decides, per command, whether it fails (true), succeeds (false), or answers this output without reaching SQS. */
type Fault = (call: Call) => boolean | { output: unknown } | Promise<boolean>;

/** Two queues of their own (work and dead letters) on the shared fauxqs, an adapter over them with a recording logger and a fault hook. */
async function open(t: ExecutionContext, options: Partial<SqsMessageQueueOptions> = {}, { fifo = false, redrivePolicy = true } = {}) {
  const n = (counter += 1);
  const suffix = fifo ? '.fifo' : '';
  const fifoAttributes: Record<string, string> = fifo ? { FifoQueue: 'true' } : {};
  const dlq = server.createQueue(`guards-${n}-dead${suffix}`, { attributes: fifoAttributes });
  const redrive: Record<string, string> = redrivePolicy ? { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount: '50' }) } : {};
  const main = server.createQueue(`guards-${n}${suffix}`, { attributes: { ...fifoAttributes, ...redrive } });
  const log: { level: string; message: string; at: number }[] = [];
  const logger: Logger = {
    debug() {},
    info: (message: string) => void log.push({ level: 'info', message, at: Date.now() }),
    warn: (message: string) => void log.push({ level: 'warn', message, at: Date.now() }),
    error: (message: string) => void log.push({ level: 'error', message, at: Date.now() }),
    child: () => logger,
  };
  const queue = new SqsMessageQueue({
    queueUrl: main.queueUrl,
    deadLetterQueueUrl: dlq.queueUrl,
    region: 'us-east-1',
    endpoint: server.address,
    credentials,
    waitTimeSeconds: 1,
    backoff: FAST.backoff,
    logger,
    ...options,
  });
  const calls: Call[] = [];
  const hook: { fault: Fault | null } = { fault: null };
  queue.client.middlewareStack.add(
    (next, context) => async (args) => {
      const call: Call = { name: String(context.commandName), input: args.input as Record<string, unknown>, at: Date.now() };
      calls.push(call);
      const verdict = hook.fault ? await hook.fault(call) : false;
      if (verdict === true) throw new Error(`injected failure of ${call.name}`);
      if (verdict !== false) return { output: verdict.output, response: {} } as never;
      return next(args);
    },
    { step: 'initialize', name: 'guards-tap' },
  );
  t.teardown(() => queue.close());
  const warnings = (text: string) => log.filter((entry) => entry.level === 'warn' && entry.message.includes(text));
  const infos = (text: string) => log.filter((entry) => entry.level === 'info' && entry.message.includes(text));
  const named = (name: string) => calls.filter((call) => call.name === name);
  return { queue, mainUrl: main.queueUrl, dlqUrl: dlq.queueUrl, log, warnings, infos, calls, named, hook };
}

const publish = (queue: SqsMessageQueue, body: unknown, extra: { environment?: string; messageId?: string } = {}) =>
  queue.publish({ taskType: TASK, environment: extra.environment ?? ENV, body, ...(extra.messageId ? { messageId: extra.messageId } : {}) });

const text = (value: string): MessageAttributeValue => ({ DataType: 'String', StringValue: value });

/** A dead letter put straight into the dead-letter queue, as an earlier dead-lettering would have. */
async function rawDead(queue: SqsMessageQueue, dlqUrl: string, id: string, body: unknown = { id }) {
  await queue.client.send(
    new SendMessageCommand({
      QueueUrl: dlqUrl,
      MessageBody: JSON.stringify(body),
      MessageAttributes: { TaskType: text(TASK), Environment: text(ENV), MessageId: text(id), DeadReason: text(`dead ${id}`) },
    }),
  );
}

/**
 * Rejects when `promise` takes longer than `ms`: a loop that never ends fails the test instead of hanging it, and
 * `hook` then fails every further command of that queue, so the loop ends too.
 */
async function within<T>(hook: { fault: Fault | null }, promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) =>
      (timer = setTimeout(() => {
        hook.fault = () => true;
        reject(new Error(`${what} took over ${ms} ms`));
      }, ms)),
  );
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// --- product faults found by this audit -------------------------------------------------------------------

test('fifo: a redriven message that goes dead again within five minutes is a dead letter again (not dropped as a duplicate, then lost)', async (t) => {
  const { queue } = await open(t, {}, { fifo: true });
  const { messageId } = await publish(queue, { n: 1 });
  let deliveries = 0;
  const consumer = await queue.consume({ ...base, visibilitySeconds: 10 }, async (): Promise<HandlerOutcome> => ((deliveries += 1), { action: 'dead', reason: `engine gone ${deliveries}` }));
  await waitFor(async () => (await queue.deadLetters(10)).length === 1, 'the first dead letter', 8000);
  t.true(await queue.redrive(messageId));
  await waitFor(() => deliveries === 2, 'the redriven delivery', 8000);
  await waitFor(async () => (await queue.deadLetters(10)).length === 1, 'the second dead letter', 5000).catch(() => undefined);
  await consumer.stop();
  t.deepEqual((await queue.deadLetters(10)).map((m) => [m.id, m.reason]), [[messageId, 'engine gone 2']]);
  t.deepEqual(await queue.peek(10), []);
});

test('fifo: a publish of the same messageId is one message; every publish has its own message group', async (t) => {
  const { queue } = await open(t, {}, { fifo: true });
  await publish(queue, { n: 1 }, { messageId: 'same' });
  await publish(queue, { n: 2 }, { messageId: 'same' });
  t.deepEqual(await queue.stats(), [{ taskType: null, waiting: 1, deadLetters: 0 }]);
  t.deepEqual((await queue.peek(10)).map((m) => [m.id, m.body]), [['same', { n: 1 }]]);
});

test('a message over its attempts whose dead-lettering fails is not lost, the failure is logged, and a later delivery dead-letters it', async (t) => {
  const { queue, dlqUrl, mainUrl, warnings, hook } = await open(t);
  const { messageId } = await publish(queue, { n: 1 });
  // Two receives (peeks count on SQS): the next delivery is the third, over maxAttempts 1.
  await queue.peek(1);
  await queue.peek(1);
  let failedOnce = false;
  hook.fault = (call) => {
    if (call.name !== 'SendMessageCommand' || call.input['QueueUrl'] !== dlqUrl || failedOnce) return false;
    failedOnce = true;
    return true;
  };
  const ended: number[] = [];
  const consumer = await queue.consume({ ...base, maxAttempts: 1, visibilitySeconds: 2, onDeadLetter: async (message) => void ended.push(message.attempt) }, async () => ({ action: 'ack' }));
  await waitFor(async () => (await queue.deadLetters(10)).length === 1, 'the dead letter on a later delivery', 6000);
  await consumer.stop();
  t.true(failedOnce);
  t.is(warnings('not dead-lettered').length, 1, 'the failed dead-lettering is logged');
  t.deepEqual(ended, [1, 1], 'onDeadLetter ran on both deliveries');
  t.deepEqual((await queue.deadLetters(10)).map((m) => m.id), [messageId]);
  t.truthy(mainUrl);
});

// Pins: the timer that marks a delivery expired is cleared once the message is settled (acked, or dead-lettered on a
// delivery past its attempts). Left armed, it held the worker process open for up to the visibility (SQS allows 12
// hours) after stop(). Serial: it watches the global timers while no other test of this file runs.
test.serial('a settled delivery leaves no expiry timer behind, acked or dead-lettered past its attempts', async (t) => {
  const VISIBILITY = 600;
  const armed = new Set<unknown>();
  const { setTimeout: realSet, clearTimeout: realClear } = globalThis;
  globalThis.setTimeout = ((callback: () => void, ms?: number) => {
    const handle = realSet(callback, ms);
    if (ms === VISIBILITY * 1000 - 250) armed.add(handle);
    return handle;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((handle: NodeJS.Timeout | undefined) => {
    armed.delete(handle);
    realClear(handle);
  }) as typeof clearTimeout;
  t.teardown(() => {
    Object.assign(globalThis, { setTimeout: realSet, clearTimeout: realClear });
    for (const handle of armed) realClear(handle as NodeJS.Timeout);
  });
  const { queue } = await open(t);
  await publish(queue, { n: 1 });
  const handled: number[] = [];
  const acking = await queue.consume({ ...base, visibilitySeconds: VISIBILITY }, async (message) => {
    handled.push(message.attempt);
    return { action: 'ack' };
  });
  await waitFor(() => handled.length === 1, 'the message handled', 6000);
  await acking.stop();
  t.is(armed.size, 0, 'the acked delivery cleared its timer');

  const { queue: other } = await open(t);
  await publish(other, { n: 2 });
  // Two receives (peeks count on SQS): the next delivery is the third, over maxAttempts 1.
  await other.peek(1);
  await other.peek(1);
  const dead: number[] = [];
  const ending = await other.consume({ ...base, maxAttempts: 1, visibilitySeconds: VISIBILITY, onDeadLetter: async (message) => void dead.push(message.attempt) }, async () => ({ action: 'ack' }));
  await waitFor(async () => (await other.deadLetters(10)).length === 1, 'the dead letter', 6000);
  await ending.stop();
  t.deepEqual(dead, [1]);
  t.is(armed.size, 0, 'the delivery dead-lettered past its attempts cleared its timer');
});

test('stop() during the back-off after failed receives returns at once, not when the back-off ends', async (t) => {
  const { queue, named, warnings, hook } = await open(t);
  hook.fault = (call) => call.name === 'ReceiveMessageCommand';
  const consumer = await queue.consume(base, async () => ({ action: 'ack' }));
  // Receives at 0, 0.4, 1.2 and 2.8 s: after the fourth the consumer waits 3.2 s.
  await waitFor(() => named('ReceiveMessageCommand').length >= 4, 'four failed receives', 8000);
  const started = Date.now();
  await consumer.stop();
  const took = Date.now() - started;
  t.true(took < 1500, `stop() took ${took} ms`);
  t.true(warnings('SQS receive failed').length >= 4);
});

// --- the receive loop ------------------------------------------------------------------------------------

test('a receive that fails while the consumer stops ends the loop without logging a retry', async (t) => {
  const { queue, warnings, named, hook } = await open(t);
  let stopping = false;
  hook.fault = async (call) => {
    if (call.name !== 'ReceiveMessageCommand') return false;
    await sleep(300);
    return stopping;
  };
  const consumer = await queue.consume(base, async () => ({ action: 'ack' }));
  await waitFor(() => named('ReceiveMessageCommand').length >= 1, 'a receive in flight');
  stopping = true;
  await consumer.stop();
  await sleep(100);
  t.deepEqual(warnings('SQS receive failed'), []);
});

test('a consumer whose receives failed takes messages again once SQS answers, and its back-off starts over', async (t) => {
  const { queue, named, hook } = await open(t, { waitTimeSeconds: 0 });
  // Receives 1–3 fail, the 4th answers, the 5th fails again: its back-off must be the first step's (0.4 s), not the fourth's (3.2 s).
  hook.fault = (call) => {
    if (call.name !== 'ReceiveMessageCommand') return false;
    const n = named('ReceiveMessageCommand').length;
    return n <= 3 || n === 5;
  };
  const seen: unknown[] = [];
  const consumer = await queue.consume(base, async (message) => ((seen.push(message.body), { action: 'ack' })));
  await waitFor(() => named('ReceiveMessageCommand').length >= 6, 'the receive after the second outage', 8000);
  const receives = named('ReceiveMessageCommand');
  const gap = receives[5]!.at - receives[4]!.at;
  t.true(gap < 2000, `the back-off after a recovered outage was ${gap} ms`);
  await publish(queue, { n: 1 });
  await waitFor(() => seen.length === 1, 'the delivery after the outages');
  await consumer.stop();
  t.deepEqual(seen, [{ n: 1 }]);
});

test('a consumer with every slot busy waits for one, then takes the next message at once (no receive of 0 messages)', async (t) => {
  const { queue, warnings } = await open(t);
  await publish(queue, { n: 1 });
  await publish(queue, { n: 2 });
  const finished: number[] = [];
  const started: number[] = [];
  let running = 0;
  let most = 0;
  const consumer = await queue.consume(base, async () => {
    started.push(Date.now());
    running += 1;
    most = Math.max(most, running);
    await sleep(1000);
    running -= 1;
    finished.push(Date.now());
    return { action: 'ack' };
  });
  await waitFor(() => finished.length === 2, 'both messages', 8000);
  await consumer.stop();
  t.is(most, 1, 'two handlers ran at once on a consumer of concurrency 1');
  t.true(started[1]! - finished[0]! < 1000, `the second message started ${started[1]! - finished[0]!} ms after the slot came free`);
  t.deepEqual(warnings('SQS receive failed'), []);
});

test('a consumer that receives only messages of others does not spin on them', async (t) => {
  const { queue, named } = await open(t, { waitTimeSeconds: 0 });
  await publish(queue, { n: 1 }, { environment: 'production' });
  const consumer = await queue.consume(base, async () => ({ action: 'ack' }));
  const before = named('ReceiveMessageCommand').length;
  await sleep(1000);
  const receives = named('ReceiveMessageCommand').length - before;
  await consumer.stop();
  t.true(receives <= 12, `${receives} receives in one second`);
});

test('a foreign message that cannot be handed back does not end the receive loop', async (t) => {
  const { queue, hook } = await open(t);
  await publish(queue, { n: 'foreign' }, { environment: 'production' });
  let failed = false;
  hook.fault = (call) => {
    if (call.name !== 'ChangeMessageVisibilityCommand' || failed) return false;
    failed = true;
    return true;
  };
  const seen: unknown[] = [];
  const consumer = await queue.consume(base, async (message) => ((seen.push(message.body), { action: 'ack' })));
  await waitFor(() => failed, 'the failed hand-back');
  await publish(queue, { n: 'ours' });
  await waitFor(() => seen.length === 1, 'our message after the failed hand-back').catch(() => undefined);
  await consumer.stop();
  t.deepEqual(seen, [{ n: 'ours' }]);
});

test('a message received while stopping that cannot be handed back does not make stop() fail', async (t) => {
  const { queue, named, hook } = await open(t);
  let stopping = false;
  hook.fault = async (call) => {
    if (call.name === 'ReceiveMessageCommand') {
      await sleep(400);
      return false;
    }
    return call.name === 'ChangeMessageVisibilityCommand' && stopping;
  };
  let ran = 0;
  const consumer = await queue.consume(base, async () => ((ran += 1), { action: 'ack' }));
  await waitFor(() => named('ReceiveMessageCommand').length >= 1, 'a receive in flight');
  await publish(queue, { n: 1 });
  stopping = true;
  await t.notThrowsAsync(() => consumer.stop());
  // stop() returned after the receive in flight and its hand-back: the consumer sends nothing more.
  const sent = named('ChangeMessageVisibilityCommand').length + named('ReceiveMessageCommand').length;
  await sleep(700);
  t.is(named('ChangeMessageVisibilityCommand').length + named('ReceiveMessageCommand').length, sent, 'the consumer sent commands after stop() returned');
  t.true(named('ChangeMessageVisibilityCommand').length >= 1 || ran === 1, 'the message was either handed back or run');
});

test('a consumer reads the receive count (the attempt) and our attributes from SQS', async (t) => {
  const { queue } = await open(t);
  const { messageId } = await publish(queue, { n: 1 });
  const seen: { id: string; attempt: number; taskType: string; environment: string }[] = [];
  const consumer = await queue.consume(base, async (message): Promise<HandlerOutcome> => {
    seen.push({ id: message.id, attempt: message.attempt, taskType: message.taskType, environment: message.environment });
    return message.attempt === 1 ? { action: 'retry', delaySeconds: 0.05 } : { action: 'ack' };
  });
  await waitFor(() => seen.length === 2, 'the retry', 5000);
  await consumer.stop();
  t.deepEqual(seen, [
    { id: messageId, attempt: 1, taskType: TASK, environment: ENV },
    { id: messageId, attempt: 2, taskType: TASK, environment: ENV },
  ]);
});

test('a message of our task type and environment without our MessageId is delivered with its SQS id', async (t) => {
  const { queue, mainUrl } = await open(t);
  const { MessageId } = await queue.client.send(new SendMessageCommand({ QueueUrl: mainUrl, MessageBody: '{"n":1}', MessageAttributes: { TaskType: text(TASK), Environment: text(ENV) } }));
  const ids: string[] = [];
  const consumer = await queue.consume(base, async (message) => ((ids.push(message.id), { action: 'ack' })));
  await waitFor(() => ids.length === 1, 'the delivery');
  await consumer.stop();
  t.deepEqual(ids, [MessageId!]);
});

// --- handlers, visibility, settling ----------------------------------------------------------------------

test('stop() and close() wait for the handlers in flight, whose acks are then sent', async (t) => {
  const { queue, mainUrl } = await open(t);
  await publish(queue, { n: 1 });
  let finishedAt = 0;
  let running = false;
  const consumer = await queue.consume({ ...base, visibilitySeconds: 3 }, async () => {
    running = true;
    await sleep(700);
    finishedAt = Date.now();
    return { action: 'ack' };
  });
  await waitFor(() => running, 'the handler');
  t.teardown(() => consumer.stop()); // a consumer that close() left running ends with the test
  await queue.close();
  const closedAt = Date.now();
  t.true(finishedAt > 0 && finishedAt <= closedAt, 'close() returned before the handler finished');
  const again = await open(t, { queueUrl: mainUrl });
  await sleep(3300); // past the visibility: an unsent ack would bring the message back
  t.deepEqual(await again.queue.peek(10), []);
});

test('extendVisibility(0) or a negative time keeps the message for a second (it is not handed to anyone meanwhile)', async (t) => {
  const { queue } = await open(t);
  await publish(queue, { n: 1 });
  let deliveries = 0;
  const consumer = await queue.consume({ ...base, concurrency: 2, visibilitySeconds: 5 }, async (message) => {
    deliveries += 1;
    if (deliveries === 1) {
      await message.extendVisibility(-5);
      await message.extendVisibility(0);
      await sleep(600);
    }
    return { action: 'ack' };
  });
  await waitFor(() => deliveries >= 1, 'the delivery');
  await sleep(1500);
  await consumer.stop();
  t.is(deliveries, 1);
});

test('extendVisibility fails once the visibility ran out (the message is someone else’s)', async (t) => {
  const { queue } = await open(t);
  await publish(queue, { n: 1 });
  const results: string[] = [];
  const consumer = await queue.consume({ ...base, concurrency: 2, visibilitySeconds: 1 }, async (message) => {
    if (results.length > 0) return { action: 'ack' };
    await sleep(1200);
    results.push(await message.extendVisibility(5).then(() => 'extended', (error: Error) => error.message));
    return { action: 'ack' };
  });
  await waitFor(() => results.length === 1, 'the late extension', 5000);
  await consumer.stop();
  t.regex(results[0]!, /no longer held/);
});

test('extendVisibility replaces the first expiry: an extended job’s ack counts', async (t) => {
  const { queue, infos, named } = await open(t);
  await publish(queue, { n: 1 });
  let done = false;
  const consumer = await queue.consume({ ...base, visibilitySeconds: 1 }, async (message) => {
    await message.extendVisibility(4);
    await sleep(1300);
    done = true;
    return { action: 'ack' };
  });
  await waitFor(() => done, 'the extended job', 5000);
  await waitFor(() => named('DeleteMessageBatchCommand').length === 1, 'the delete', 1500).catch(() => undefined);
  await consumer.stop();
  t.deepEqual(infos('late outcome ignored'), []);
  t.is(named('DeleteMessageBatchCommand').length, 1);
});

test('a handler that throws is logged; a settle that fails is logged and the message comes back', async (t) => {
  const { queue, warnings, hook } = await open(t);
  await publish(queue, { n: 1 });
  let failed = false;
  hook.fault = (call) => {
    if (call.name !== 'ChangeMessageVisibilityCommand' || failed) return false;
    failed = true;
    return true;
  };
  const attempts: number[] = [];
  const consumer = await queue.consume({ ...base, visibilitySeconds: 1 }, async (message) => {
    attempts.push(message.attempt);
    if (message.attempt === 1) throw new Error('engine crashed');
    return { action: 'ack' };
  });
  await waitFor(() => attempts.length === 2, 'the delivery after the failed settle', 5000);
  await consumer.stop();
  t.deepEqual(attempts, [1, 2]);
  t.is(warnings('queue handler failed').length, 1);
  t.is(warnings('not settled').length, 1);
});

test('a retry delay or an extension beyond SQS’s 12 hours is cut to 12 hours (not refused, which would bring the message back)', async (t) => {
  const { queue, warnings } = await open(t);
  await publish(queue, { n: 'retried' });
  await publish(queue, { n: 'extended' });
  const seen: string[] = [];
  const extended: string[] = [];
  const consumer = await queue.consume({ ...base, concurrency: 2, visibilitySeconds: 3 }, async (message): Promise<HandlerOutcome> => {
    const { n } = message.body as { n: string };
    seen.push(n);
    if (n === 'retried') return { action: 'retry', delaySeconds: 50_000 };
    extended.push(await message.extendVisibility(50_000).then(() => 'extended', (error: Error) => error.message));
    return { action: 'retry', delaySeconds: 60 };
  });
  await waitFor(() => seen.length >= 2 && extended.length === 1, 'both deliveries');
  await sleep(3500); // past the visibility: a refused change would bring them back
  await consumer.stop();
  t.deepEqual(seen.sort(), ['extended', 'retried']);
  t.deepEqual(extended, ['extended']);
  t.deepEqual(warnings('not settled'), []);
});

// Pins SQS's 12-hour hold, counted from the receive (a real SQS refuses a visibility past it; fauxqs does not check, so the
// value sent is what is checked): with the clock moved to 100 s before the hold ends, a retry delay and an extension
// are cut to what is left of it, less a second in hand.
test('a retry delay or an extension is cut to what is left of the 12 hours since the receive', async (t) => {
  let offset = 0;
  const { queue, named } = await open(t, { now: () => Date.now() + offset });
  await publish(queue, { n: 'retried' });
  await publish(queue, { n: 'extended' });
  const seen: string[] = [];
  const consumer = await queue.consume({ ...base, concurrency: 2, visibilitySeconds: 3 }, async (message): Promise<HandlerOutcome> => {
    const { n } = message.body as { n: string };
    seen.push(n);
    offset = (43_200 - 100) * 1000;
    if (n === 'retried') return { action: 'retry', delaySeconds: 600 };
    await message.extendVisibility(600);
    return { action: 'ack' };
  });
  await waitFor(() => seen.length >= 2 && named('ChangeMessageVisibilityCommand').length >= 2, 'both changes');
  await consumer.stop();
  const sent = named('ChangeMessageVisibilityCommand').map((call) => call.input['VisibilityTimeout'] as number);
  t.is(sent.length, 2);
  for (const seconds of sent) t.true(seconds >= 97 && seconds <= 99, `cut to what is left of the hold: ${seconds}`);
  offset = 0;
});

// --- dead letters ----------------------------------------------------------------------------------------

test('without onDeadLetter a dead message goes to the dead letters once, with its attributes and its reason cut to 1000 characters', async (t) => {
  const { queue } = await open(t);
  const { messageId } = await publish(queue, { n: 1 });
  const reason = 'r'.repeat(1500);
  let deliveries = 0;
  const consumer = await queue.consume({ ...base, visibilitySeconds: 3 }, async (): Promise<HandlerOutcome> => ((deliveries += 1), { action: 'dead', reason }));
  await waitFor(async () => (await queue.deadLetters(10)).length >= 1, 'the dead letter', 4000);
  await sleep(3500); // past the visibility: an undeleted message would come back
  await consumer.stop();
  t.is(deliveries, 1);
  const dead = await queue.deadLetters(10);
  t.deepEqual(
    dead.map((m) => ({ ...m, reason: m.reason?.length })),
    [{ id: messageId, body: { n: 1 }, attributes: { TaskType: TASK, Environment: ENV }, reason: 1000 }],
  );
});

test('redrive puts the dead letter back without its reason and deletes it from the dead letters; stats count it out', async (t) => {
  const { queue, dlqUrl } = await open(t);
  await rawDead(queue, dlqUrl, 'one');
  await rawDead(queue, dlqUrl, 'two');
  t.true(await queue.redrive('one'));
  t.deepEqual(await queue.stats(), [{ taskType: null, waiting: 1, deadLetters: 1 }]);
  t.deepEqual(await queue.peek(10), [{ id: 'one', body: { id: 'one' }, attributes: { TaskType: TASK, Environment: ENV } }]);
});

test('a redrive or discard looks through more than one round of ten, and hands back every dead letter it held, ten at a time', async (t) => {
  const { queue, dlqUrl, hook } = await open(t);
  for (let n = 0; n < 25; n++) await rawDead(queue, dlqUrl, `d${n}`);
  t.false(await within(hook, queue.discard('no-such-message'), 5000, 'discard of an unknown id'));
  t.is((await queue.deadLetters(100)).length, 25);
  t.true(await queue.discard('d24'));
  t.is((await queue.deadLetters(100)).length, 24);
});

// Real SQS may answer a receive with fewer messages than there are (a short poll even with none): a round of fewer
// than ten is not the end of the dead letters; only an empty long-polled round is. Here every discard's first round is
// cut to one message, and the discards go newest first (fauxqs answers oldest first), so each must look further.
test('a redrive or discard goes on past a round of fewer than ten, and each of its rounds is a long poll', async (t) => {
  const { queue, dlqUrl, hook, named } = await open(t);
  const ids = ['d0', 'd1', 'd2', 'd3', 'd4', 'd5'];
  for (const id of ids) await rawDead(queue, dlqUrl, id);
  let firstRound = true;
  hook.fault = (call) => {
    if (call.name === 'ReceiveMessageCommand' && firstRound) {
      firstRound = false;
      call.input['MaxNumberOfMessages'] = 1;
    }
    return false;
  };
  const found: boolean[] = [];
  for (const id of [...ids].reverse()) {
    firstRound = true;
    found.push(await within(hook, queue.discard(id), 5000, `discard of ${id} past a short round`));
  }
  t.deepEqual(found, [true, true, true, true, true, true]);
  const rounds = named('ReceiveMessageCommand');
  t.true(rounds.length > ids.length, 'some discards took more than one round');
  t.true(rounds.every((round) => round.input['WaitTimeSeconds'] === 1), 'long polls');
  hook.fault = null;
  t.deepEqual(await queue.deadLetters(10), []);
});

test('peek and the dead letters are read with long polls (a short poll samples only some of SQS’s servers)', async (t) => {
  const { queue, dlqUrl, named } = await open(t);
  await publish(queue, { n: 1 }, { messageId: 'm1' });
  await rawDead(queue, dlqUrl, 'd1');
  t.is((await queue.peek(10)).length, 1);
  t.is((await queue.deadLetters(10)).length, 1);
  const receives = named('ReceiveMessageCommand');
  t.is(receives.length, 2);
  t.deepEqual(receives.map((call) => [call.input['QueueUrl'], call.input['WaitTimeSeconds'], call.input['VisibilityTimeout']]), [
    [receives[0]!.input['QueueUrl'], 1, 0],
    [dlqUrl, 1, 0],
  ]);
});

test('a redrive whose hand-back of the others fails still reports the redrive', async (t) => {
  const { queue, dlqUrl, hook } = await open(t);
  for (let n = 0; n < 3; n++) await rawDead(queue, dlqUrl, `d${n}`);
  hook.fault = (call) => call.name === 'ChangeMessageVisibilityBatchCommand';
  const outcome = await queue.redrive('d2').then((found) => String(found), (error: Error) => error.message);
  // d0 and d1, held while looking, could not be made visible again: the redrive itself was done.
  t.is(outcome, 'true');
});

test('dead letters of others: one without our MessageId shows (and is found by) its SQS id; a body that is not JSON shows as text', async (t) => {
  const { queue, dlqUrl } = await open(t);
  const { MessageId } = await queue.client.send(new SendMessageCommand({ QueueUrl: dlqUrl, MessageBody: 'not json' }));
  t.deepEqual(await queue.deadLetters(10), [{ id: MessageId!, body: 'not json', attributes: { TaskType: '', Environment: '' } }]);
  t.true(await queue.discard(MessageId!));
  t.deepEqual(await queue.deadLetters(10), []);
});

// --- peek and stats --------------------------------------------------------------------------------------

test('peek takes rounds of at most ten, stops at max, and ends on a queue that holds fewer (its rounds come round again)', async (t) => {
  const { queue, hook } = await open(t);
  for (let n = 0; n < 15; n++) await publish(queue, { n }, { messageId: `m${n}` });
  const all = await within(hook, queue.peek(20), 5000, 'peek(20) of 15');
  t.is(all.length, 15);
  t.is(new Set(all.map((m) => m.id)).size, 15);
  t.is((await queue.peek(3)).length, 3);
  t.is((await queue.peek(12)).length, 12);
  t.false('reason' in all[0]!, 'a waiting message has no reason');
});

test('stats count delayed messages as waiting, and a dead letter someone holds as a dead letter', async (t) => {
  const { queue, mainUrl, dlqUrl } = await open(t);
  await queue.client.send(new SendMessageCommand({ QueueUrl: mainUrl, MessageBody: 'null', DelaySeconds: 30 }));
  await rawDead(queue, dlqUrl, 'held');
  await queue.client.send(new ReceiveMessageCommand({ QueueUrl: dlqUrl, VisibilityTimeout: 30 }));
  t.deepEqual(await queue.stats(), [{ taskType: null, waiting: 1, deadLetters: 1 }]);
});

// --- deletes ---------------------------------------------------------------------------------------------

test('ten acks are deleted at once, whatever the flush delay', async (t) => {
  const { queue, named } = await open(t, { deleteFlushMs: 60_000 });
  for (let n = 0; n < 10; n++) await publish(queue, { n });
  let acked = 0;
  // A concurrency above SQS's ten: a receive asks for ten at most.
  const consumer = await queue.consume({ ...base, concurrency: 20 }, async () => ((acked += 1), { action: 'ack' }));
  await waitFor(() => acked === 10, 'ten acks', 5000);
  await waitFor(() => named('DeleteMessageBatchCommand').length === 1, 'the batch delete', 1500).catch(() => undefined);
  t.is(named('DeleteMessageBatchCommand').length, 1);
  t.is((named('DeleteMessageBatchCommand')[0]!.input['Entries'] as unknown[]).length, 10);
  await consumer.stop();
});

test('stop() with nothing to delete sends no empty batch', async (t) => {
  const { queue, named, warnings } = await open(t);
  const consumer = await queue.consume(base, async () => ({ action: 'ack' }));
  await consumer.stop();
  t.deepEqual(named('DeleteMessageBatchCommand'), []);
  t.deepEqual(warnings('batch delete failed'), []);
});

test('a failed batch delete is logged and later deletes still go out', async (t) => {
  const { queue, named, warnings, hook } = await open(t);
  let failed = false;
  hook.fault = (call) => {
    if (call.name !== 'DeleteMessageBatchCommand' || failed) return false;
    failed = true;
    return true;
  };
  const seen: unknown[] = [];
  const consumer = await queue.consume({ ...base, visibilitySeconds: 3 }, async (message) => ((seen.push(message.body), { action: 'ack' })));
  await publish(queue, { n: 1 });
  await waitFor(() => failed, 'the failed delete');
  await publish(queue, { n: 2 });
  await waitFor(() => named('DeleteMessageBatchCommand').length >= 2 && seen.length >= 2, 'the next delete', 5000).catch(() => undefined);
  await sleep(3500); // past the visibility: what was not deleted comes back
  await consumer.stop();
  t.is(warnings('batch delete failed').length, 1);
  t.is(seen.filter((body) => (body as { n: number }).n === 2).length, 1, 'the message acked after the failure was deleted');
});

test('a delete SQS refuses is logged', async (t) => {
  const { queue, warnings, hook } = await open(t);
  hook.fault = (call) =>
    call.name === 'DeleteMessageBatchCommand' ? { output: { Successful: [], Failed: [{ Id: '0', Code: 'ReceiptHandleIsInvalid', SenderFault: true, Message: 'stale' }], $metadata: {} } } : false;
  await publish(queue, { n: 1 });
  let acked = false;
  const consumer = await queue.consume(base, async () => ((acked = true), { action: 'ack' }));
  await waitFor(() => acked, 'the ack');
  await consumer.stop();
  t.is(warnings('delete refused').length, 1);
});

// --- configuration and the dead-letter queue's lookup ----------------------------------------------------

test('a queue that gets its RedrivePolicy after a failed lookup is found without a restart; the lookup is made once', async (t) => {
  const { queue, mainUrl, dlqUrl, named } = await open(t, { deadLetterQueueUrl: undefined }, { redrivePolicy: false });
  await t.throwsAsync(() => queue.consume(base, async () => ({ action: 'ack' })), { message: /has no dead-letter queue/ });
  const { Attributes } = await queue.client.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }));
  await queue.client.send(new SetQueueAttributesCommand({ QueueUrl: mainUrl, Attributes: { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes!.QueueArn, maxReceiveCount: '50' }) } }));
  const consumer = await queue.consume(base, async (): Promise<HandlerOutcome> => ({ action: 'dead', reason: 'gone' }));
  await publish(queue, { n: 1 });
  await publish(queue, { n: 2 });
  await waitFor(async () => (await queue.deadLetters(10)).length === 2, 'two dead letters');
  await consumer.stop();
  await queue.stats();
  t.is(named('GetQueueUrlCommand').length, 1);
});

test('a RedrivePolicy without a target, or none at all, reads as no dead-letter queue', async (t) => {
  const { queue, mainUrl } = await open(t, { deadLetterQueueUrl: undefined }, { redrivePolicy: false });
  await t.throwsAsync(() => queue.deadLetterQueueUrl(), { message: /has no dead-letter queue/ });
  await queue.client.send(new SetQueueAttributesCommand({ QueueUrl: mainUrl, Attributes: { RedrivePolicy: JSON.stringify({ maxReceiveCount: '5' }) } }));
  await t.throwsAsync(() => queue.deadLetterQueueUrl(), { message: /has no dead-letter queue/ });
});

test('a long-poll time above 20 s is taken as 20, one below 0 as 0', async (t) => {
  for (const waitTimeSeconds of [60, -5]) {
    const { queue, warnings } = await open(t, { waitTimeSeconds });
    await publish(queue, { n: 1 });
    let seen = 0;
    const consumer = await queue.consume(base, async () => ((seen += 1), { action: 'ack' }));
    await waitFor(() => seen === 1, `the delivery with waitTimeSeconds ${waitTimeSeconds}`, 3000).catch(() => undefined);
    const stopped = consumer.stop();
    await publish(queue, { n: 'ends the long poll' }, { environment: 'production' });
    await stopped;
    t.is(seen, 1, `waitTimeSeconds ${waitTimeSeconds}`);
    t.deepEqual(warnings('SQS receive failed'), []);
  }
});

test('frozen credentials (configuration is frozen) are copied, not annotated by the SDK', async (t) => {
  const { queue } = await open(t, { credentials: Object.freeze({ ...credentials }) });
  await t.notThrowsAsync(() => publish(queue, { n: 1 }));
});

test('publish: an undefined body goes as null; a message without a messageId gets one', async (t) => {
  const { queue } = await open(t);
  const { messageId } = await queue.publish({ taskType: TASK, environment: ENV, body: undefined });
  t.truthy(messageId);
  t.deepEqual(await queue.peek(10), [{ id: messageId, body: null, attributes: { TaskType: TASK, Environment: ENV } }]);
});

test('consume() refuses options it cannot honour', async (t) => {
  const { queue } = await open(t);
  await t.throwsAsync(() => queue.consume({ ...base, concurrency: 0 }, async () => ({ action: 'ack' })), { message: /concurrency/ });
});

