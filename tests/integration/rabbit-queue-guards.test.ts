import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import test, { type ExecutionContext } from 'ava';
import { AmqpLink } from '../../adapters/rabbitmq/amqp-link.ts';
import { RabbitMessageQueue, type RabbitMessageQueueOptions } from '../../adapters/rabbitmq/rabbit-message-queue.ts';
import type { ConsumeOptions, DeliveredMessage, HandlerOutcome } from '../../core/ports/queue.port.ts';
import { FAST, waitFor } from '../contract/message-queue.contract.ts';
import { quietLogger } from '../support/generation-harness.ts';

// The RabbitMQ queue's own guards (slots and prefetch, timers, stop, dead letters, foreign messages, reconnections),
// each seen from outside: what consumers get, what peek and the dead letters show. The running server, a prefix per test.

const AMQP_URL = process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ENV = 'local';
const TASK = 'generation';
const base: ConsumeOptions = { taskTypes: [TASK], environment: ENV, concurrency: 1, maxAttempts: 3, visibilitySeconds: 5 };
let counter = 0;

/** A queue with a prefix of its own on a link of its own (named, so a test can have the broker cut it); cleaned up after. */
async function open(t: ExecutionContext, options: RabbitMessageQueueOptions = {}, link: Partial<{ prefix: string; initialDelayMs: number }> = {}) {
  const prefix = link.prefix ?? `guards-${Date.now().toString(36)}-${(counter += 1)}-${Math.random().toString(36).slice(2, 6)}`;
  const name = `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
  const amqp = new AmqpLink({ url: AMQP_URL, logger: quietLogger, name, initialMaxRetries: 0, initialDelayMs: link.initialDelayMs ?? 100, maxDelayMs: 500 });
  await amqp.open();
  const queue = new RabbitMessageQueue(amqp, { prefix, backoff: FAST.backoff, ...options });
  t.teardown(async () => {
    await queue.close();
    await queue.destroyTopology().catch(() => undefined);
    await amqp.close();
  });
  return { queue, link: amqp, prefix, name };
}

/** A handler gate: handlers wait on it until the test (or its teardown) opens it. */
function gate(t: ExecutionContext) {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  t.teardown(() => open());
  return { open, opened };
}

/** Has the broker close every connection whose client named itself `name` (as a network cut would). */
async function cut(name: string): Promise<void> {
  const { stdout } = await run('rabbitmqctl', ['list_connections', 'pid', 'client_properties', '-q', '--no-table-headers']);
  const ours = stdout.split('\n').filter((line) => line.includes(`{"connection_name","${name}"}`)).map((line) => line.split('\t')[0]!);
  if (ours.length !== 1) throw new Error(`expected one connection named ${name}, found ${ours.length}`);
  await run('rabbitmqctl', ['close_connection', ours[0]!, 'test: connection cut']);
}

/** Waits for the link to be cut and back on a new connection. */
async function reconnected(link: AmqpLink, name: string): Promise<void> {
  const before = link.live;
  await cut(name);
  await waitFor(() => link.live !== null && link.live !== before, 'the reconnection', 15_000);
}

const publish = (queue: RabbitMessageQueue, body: unknown) => queue.publish({ taskType: TASK, environment: ENV, body });
const ids = (messages: { id: string }[]) => messages.map((m) => m.id).sort();

test('a consumer holds no more messages than its free slots: another consumer gets the rest', async (t) => {
  const { queue } = await open(t);
  const held = gate(t);
  const first: unknown[] = [];
  await queue.consume(base, async (m) => {
    first.push(m.body);
    await held.opened;
    return { action: 'ack' };
  });
  for (let n = 0; n < 3; n++) await publish(queue, n);
  await waitFor(() => first.length === 1, 'the first consumer busy');
  const second: unknown[] = [];
  await queue.consume(base, async (m) => ((second.push(m.body), { action: 'ack' })));
  await waitFor(() => second.length === 2, 'the second consumer handled the other two', 3000);
  t.deepEqual(first, [0]);
});

test('a consumer whose every slot is held by a stalled handler takes nothing, not even the message it lost', async (t) => {
  const { queue } = await open(t);
  const held = gate(t);
  let stalled = 0;
  await queue.consume({ ...base, visibilitySeconds: 0.3 }, async () => {
    stalled += 1;
    await held.opened;
    return { action: 'ack' };
  });
  const { messageId } = await publish(queue, 'lost');
  await waitFor(() => stalled === 1, 'the stalled handler');
  await sleep(700); // past the visibility: the message is back in the queue
  await publish(queue, 'later');
  const other: string[] = [];
  await queue.consume(base, async (m) => ((other.push(m.id), { action: 'ack' })));
  await waitFor(() => other.length === 2, 'the other consumer got both', 3000);
  t.is(other[0], messageId);
  t.is(stalled, 1);
});

test('after a handler that outlived its visibility returns, its consumer takes messages again', async (t) => {
  const { queue } = await open(t);
  const seen: { body: unknown; attempt: number }[] = [];
  await queue.consume({ ...base, visibilitySeconds: 0.3 }, async (m) => {
    seen.push({ body: m.body, attempt: m.attempt });
    if (m.body === 'slow' && m.attempt === 1) await sleep(800);
    return { action: 'ack' };
  });
  await publish(queue, 'slow');
  await waitFor(() => seen.length === 1, 'the slow delivery');
  await sleep(1000); // it returned; its late ack ignored
  await publish(queue, 'next');
  await waitFor(() => seen.some((s) => s.body === 'next') && seen.some((s) => s.body === 'slow' && s.attempt === 2), 'both handled by the same consumer', 8000);
  t.pass();
});

/**
 * A consumer whose slot went stale resubscribes with a smaller prefetch, and the broker does not count the messages
 * its old subscription still holds: it can take one more than its free slots. That one waits for a slot, or, if the
 * consumer stops first, goes back with its attempt unchanged. Here: B runs long (extended), S stalls past its
 * visibility and comes back to the same consumer as attempt 2 while both slots are taken.
 */
async function overTaken(t: ExecutionContext) {
  const { queue } = await open(t);
  const held = gate(t);
  const seen: string[] = [];
  const consumer = await queue.consume({ ...base, concurrency: 2, visibilitySeconds: 0.4 }, async (m) => {
    seen.push(`${String(m.body)}#${m.attempt}`);
    if (m.body === 'B') {
      await m.extendVisibility(5);
      await sleep(1200);
    } else if (m.attempt === 1) {
      await held.opened;
    }
    return { action: 'ack' };
  });
  await publish(queue, 'B');
  await publish(queue, 'S');
  await waitFor(() => seen.length === 2, 'both started');
  await sleep(600); // S expired and came back, into the consumer's waiting list
  return { queue, held, seen, consumer };
}

test('a message taken beyond the free slots starts when a slot frees', async (t) => {
  const { seen } = await overTaken(t);
  await waitFor(() => seen.includes('S#2'), 'S again, once B returned', 3000);
  t.deepEqual(seen.sort(), ['B#1', 'S#1', 'S#2']);
});

test('a message taken beyond the free slots goes back with its attempt unchanged when its consumer stops', async (t) => {
  const { queue, held, seen, consumer } = await overTaken(t);
  const stopped = consumer.stop();
  await sleep(1000); // B returns meanwhile: the stopping consumer starts nothing more
  held.open();
  await stopped;
  t.deepEqual(seen.sort(), ['B#1', 'S#1']);
  const next: string[] = [];
  await queue.consume(base, async (m) => ((next.push(`${String(m.body)}#${m.attempt}`), { action: 'ack' })));
  await waitFor(() => next.length === 1, 'S for the next consumer', 3000);
  await sleep(1000); // a second copy, had there been one, would be here by now
  t.deepEqual(next, ['S#2'], 'once, with the attempt it had');
});

test('one slot handles every message in turn, and a finished delivery never expires afterwards', async (t) => {
  const { queue } = await open(t);
  const seen: unknown[] = [];
  await queue.consume({ ...base, visibilitySeconds: 0.3 }, async (m) => ((seen.push(m.body), { action: 'ack' })));
  for (let n = 0; n < 5; n++) await publish(queue, n);
  await waitFor(() => seen.length === 5, 'all five handled', 3000);
  await sleep(600); // past the visibility of every one of them
  for (let n = 5; n < 8; n++) await publish(queue, n);
  await waitFor(() => seen.length === 8, 'the later three handled', 3000);
  await sleep(300);
  t.deepEqual(seen, [0, 1, 2, 3, 4, 5, 6, 7]);
  t.deepEqual(await queue.peek(10), []);
});

test('extendVisibility replaces the expiry: the job is not delivered again', async (t) => {
  const { queue } = await open(t);
  let runs = 0;
  await queue.consume({ ...base, visibilitySeconds: 0.4 }, async (m) => {
    runs += 1;
    await m.extendVisibility(3);
    await sleep(900);
    return { action: 'ack' };
  });
  await publish(queue, 'long');
  await waitFor(() => runs === 1, 'the delivery');
  await sleep(1800);
  t.is(runs, 1);
  t.deepEqual(await queue.peek(10), []);
});

test('stop() waits for a handler past its visibility, whose outcome then counts; meanwhile new messages go to others', async (t) => {
  const { queue } = await open(t);
  const held = gate(t);
  let finished = false;
  const stopping = await queue.consume({ ...base, concurrency: 2, visibilitySeconds: 1 }, async () => {
    await held.opened;
    finished = true;
    return { action: 'ack' };
  });
  await publish(queue, 'running');
  await sleep(200);
  const stopped = stopping.stop().then(() => finished);
  const { messageId } = await publish(queue, 'published while stopping');
  const others: string[] = [];
  await queue.consume(base, async (m) => ((others.push(m.id), { action: 'ack' })));
  await waitFor(() => others.length === 1, 'the other consumer got the new message', 3000);
  t.deepEqual(others, [messageId]);
  await sleep(1200); // past the visibility of the running one, while stopping
  held.open();
  t.true(await stopped, 'stop() resolved after the handler returned');
  await sleep(300);
  t.deepEqual(others, [messageId], 'the stopped consumer acknowledged its message');
  t.deepEqual(await queue.peek(10), []);
});

test('close() stops the consumers of the queue', async (t) => {
  const { queue, prefix } = await open(t);
  const seen: unknown[] = [];
  await queue.consume(base, async (m) => ((seen.push(m.body), { action: 'ack' })));
  await queue.close();
  const { queue: other } = await open(t, {}, { prefix });
  await publish(other, 'after close');
  await sleep(500);
  t.deepEqual(seen, []);
  t.is((await other.peek(10)).length, 1);
});

test('consume() refuses options it cannot honour', async (t) => {
  const { queue } = await open(t);
  await t.throwsAsync(() => queue.consume({ ...base, taskTypes: [] }, async () => ({ action: 'ack' })), { message: /task type/ });
});

// Queue names join prefix, environment and task type with dots: env "a.b" + task "c" and env "a" + task "b.c" would
// share one queue, and env "delay" + a task of digits a retry delay queue. Such routes are refused everywhere.
test('a route part with a dot or another separator-like character, or the environment "delay", is refused', async (t) => {
  const { queue, prefix, link } = await open(t);
  for (const [environment, taskType] of [['a.b', 'c'], ['a', 'b.c'], ['local', 'gen eration'], ['', 'generation'], ['local', ''], ['delay', '5000']]) {
    await t.throwsAsync(queue.publish({ environment: environment!, taskType: taskType!, body: 1 }), { message: /RabbitMQ route/ }, `${environment} / ${taskType}`);
  }
  await t.throwsAsync(queue.consume({ ...base, environment: 'lo.cal' }, async () => ({ action: 'ack' })), { message: /"lo.cal"/ });
  t.throws(() => new RabbitMessageQueue(link, { prefix, routes: [{ environment: 'local', taskType: 'gen.eration' }] }), { message: /"gen.eration"/ });
  // What is allowed: letters, digits, _ and -, as today's environments and task types are.
  await queue.publish({ environment: 'Dev_2-b', taskType: 'publish_v2-x', body: 1 });
  t.like(await queue.peek(10), [{ body: 1, attributes: { Environment: 'Dev_2-b', TaskType: 'publish_v2-x' } }]);
});

test('a consumer whose queue exists with other arguments fails to start, once', async (t) => {
  const warnings: string[] = [];
  const logger = { ...quietLogger, warn: (message: string) => void warnings.push(message), child: () => logger };
  const { queue, link } = await open(t, { logger });
  const channel = await (await link.connection()).createChannel();
  t.teardown(() => channel.close().catch(() => undefined));
  // Declared by someone else without the delivery limit this adapter asks for: the broker refuses the declaration.
  await channel.assertQueue(queue.queueName({ environment: ENV, taskType: TASK }), { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await t.throwsAsync(() => queue.consume(base, async () => ({ action: 'ack' })), { message: /PRECONDITION_FAILED/ });
  await sleep(500);
  t.deepEqual(warnings, ['AMQP consumer channel error'], 'no new channel opened, over and over');
});

test('a body left undefined is published as null', async (t) => {
  const { queue } = await open(t);
  const bodies: unknown[] = [];
  await publish(queue, undefined);
  await queue.consume(base, async (m) => ((bodies.push(m.body), { action: 'ack' })));
  await waitFor(() => bodies.length === 1, 'the delivery');
  t.deepEqual(bodies, [null]);
});

test('without onDeadLetter a dead outcome goes to the dead letters once, its reason cut to 2000 characters', async (t) => {
  const { queue } = await open(t);
  let runs = 0;
  const consumer = await queue.consume(base, async () => ((runs += 1), { action: 'dead', reason: 'x'.repeat(300_000) }));
  const { messageId } = await publish(queue, 'doomed');
  await waitFor(async () => (await queue.deadLetters(10)).length === 1, 'the dead letter', 3000);
  await consumer.stop(); // an unacknowledged original would come back now
  await sleep(200);
  t.is(runs, 1);
  t.deepEqual(await queue.peek(10), []);
  const [dead] = await queue.deadLetters(10);
  t.is(dead!.id, messageId);
  t.is(dead!.reason, 'x'.repeat(2000));
});

test('the broker dead-letters a message returned more than deliveryLimit times (the backstop above maxAttempts)', async (t) => {
  const { queue } = await open(t, { deliveryLimit: 1 });
  const held = gate(t);
  let runs = 0;
  await queue.consume({ ...base, concurrency: 3, maxAttempts: 10, visibilitySeconds: 0.3 }, async () => {
    runs += 1;
    await held.opened;
    return { action: 'ack' };
  });
  const { messageId } = await publish(queue, 'stalls');
  await waitFor(async () => (await queue.deadLetters(10)).length === 1, 'the broker dead-lettered it', 5000);
  const [dead] = await queue.deadLetters(10);
  t.is(dead!.id, messageId);
  t.is(dead!.reason, undefined, 'not by this adapter');
  t.is(runs, 2);
});

test('peek leaves the messages to consumers and shows those waiting out a retry delay', async (t) => {
  const { queue } = await open(t);
  const a = await publish(queue, 'a');
  const b = await publish(queue, 'b');
  t.deepEqual(ids(await queue.peek(10)), ids([{ id: a.messageId }, { id: b.messageId }]));
  const seen: string[] = [];
  const consumer = await queue.consume(base, async (m) => {
    seen.push(m.id);
    return m.id === a.messageId && m.attempt <= 2 ? { action: 'retry', delaySeconds: 5 } : { action: 'ack' };
  });
  await waitFor(() => seen.length === 2, 'both peeked messages delivered', 3000);
  await consumer.stop();
  await sleep(200);
  t.deepEqual((await queue.peek(10)).map((m) => m.id), [a.messageId], 'the retry waits in its delay queue');
});

test('foreign messages (not JSON, no id, no attributes, garbled attempt headers) are handled and dead-lettered as they are', async (t) => {
  const { queue, link, prefix } = await open(t);
  const own = await publish(queue, 'ours');
  // A message of ours, peeked: no reason to show.
  t.deepEqual(await queue.peek(10), [{ id: own.messageId, body: 'ours', attributes: { TaskType: TASK, Environment: ENV } }]);
  const channel = await (await link.connection()).createConfirmChannel();
  t.teardown(() => channel.close().catch(() => undefined));
  channel.publish(prefix, `${ENV}.${TASK}`, Buffer.from('not json'), { headers: { 'x-attempt': 'garbled', 'x-delivery-count': 'garbled' } });
  await channel.waitForConfirms();
  const seen: DeliveredMessage[] = [];
  await queue.consume(base, async (m): Promise<HandlerOutcome> => {
    seen.push(m);
    return m.body === 'not json' ? { action: 'dead', reason: 'foreign' } : { action: 'ack' };
  });
  await waitFor(async () => (await queue.deadLetters(10)).length === 1, 'the foreign message dead', 3000);
  t.deepEqual(seen.map((m) => [m.id, m.body, m.attempt]), [[own.messageId, 'ours', 2], ['', 'not json', 1]]); // ours was peeked once
  t.deepEqual(await queue.deadLetters(10), [{ id: '', body: 'not json', attributes: { TaskType: '', Environment: '' }, reason: 'foreign' }]);
});

test('peek, deadLetters, redrive and discard go past known routes whose queues nobody declared yet', async (t) => {
  const { queue, prefix } = await open(t);
  const dead = await publish(queue, 'dead');
  const alsoDead = await publish(queue, 'also dead');
  const consumer = await queue.consume(base, async () => ({ action: 'dead', reason: 'test' }));
  await waitFor(async () => (await queue.deadLetters(10)).length === 2, 'two dead letters', 3000);
  await consumer.stop();
  const waiting = await publish(queue, 'waiting');
  // Another process that only knows the routes from its configuration, the undeclared one first.
  const { queue: admin } = await open(t, { routes: [{ environment: ENV, taskType: 'never-used' }, { environment: ENV, taskType: TASK }] }, { prefix });
  t.deepEqual((await admin.peek(10)).map((m) => m.id), [waiting.messageId]);
  t.deepEqual(ids(await admin.deadLetters(10)), ids([dead, alsoDead].map((m) => ({ id: m.messageId }))));
  t.false(await admin.discard('no such message'));
  t.true(await admin.redrive(alsoDead.messageId));
  // The dead letter got past on the way stays; the redriven one is gone from the dead letters and waits again.
  t.deepEqual((await admin.deadLetters(10)).map((m) => m.id), [dead.messageId]);
  t.deepEqual(ids(await admin.peek(10)), ids([{ id: waiting.messageId }, { id: alsoDead.messageId }]));
});

test('after a reconnection the queue declares its topology again (the broker may have lost it)', async (t) => {
  t.timeout(30_000);
  const { queue, link, name } = await open(t);
  await publish(queue, 'first');
  await queue.destroyTopology();
  await reconnected(link, name);
  const sent = await Promise.race([publish(queue, 'second'), sleep(3000).then(() => null)]).catch(() => null);
  t.truthy(sent, 'the publish was confirmed');
  t.deepEqual((await queue.peek(10)).map((m) => m.body), ['second']);
});

test('a consumer resumes after a reconnection, ignores an outcome its old channel can no longer settle, and a stopped one stays stopped', async (t) => {
  t.timeout(40_000);
  // The link comes back only after a second, so the handler below returns while it is away.
  const { queue, link, name } = await open(t, {}, { initialDelayMs: 1000 });
  const seen: { body: unknown; attempt: number }[] = [];
  const stopped = await queue.consume({ ...base, taskTypes: ['other'] }, async () => ({ action: 'ack' }));
  await stopped.stop();
  // A visibility far longer than the cut (rabbitmqctl takes seconds): the outcome is ignored for its channel alone.
  await queue.consume({ ...base, visibilitySeconds: 60 }, async (m) => {
    seen.push({ body: m.body, attempt: m.attempt });
    if (m.body === 'cut' && m.attempt === 1) {
      await cut(name);
      await sleep(100);
      return { action: 'dead', reason: 'too late: its channel is gone' };
    }
    return { action: 'ack' };
  });
  const before = link.live;
  await publish(queue, 'cut');
  await waitFor(() => link.live !== null && link.live !== before, 'the reconnection', 15_000);
  await publish(queue, 'after');
  const other = await queue.publish({ taskType: 'other', environment: ENV, body: 'for the stopped consumer' });
  await waitFor(() => seen.some((s) => s.body === 'after') && seen.some((s) => s.body === 'cut' && s.attempt === 2), 'both handled after the reconnection', 10_000);
  await sleep(300);
  t.deepEqual(await queue.deadLetters(10), []);
  t.deepEqual((await queue.peek(10)).map((m) => m.id), [other.messageId], 'the stopped consumer did not come back');
});
