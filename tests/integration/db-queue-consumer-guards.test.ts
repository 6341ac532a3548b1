/**
 * Guards of the database queue's consumer (SequelizeQueueConsumer) that the shared MessageQueue contract does not
 * reach: the take of a message ended for its attempts, hints of other environments and task types, more hints than
 * free slots, wake-ups that come while the consumer is not asleep, stop() during a take, a failing poll or settle, a
 * failing onDeadLetter on a message ended for its attempts, the loop looking again (and only then) after a take, the
 * sleep's timer, and a poll that reads only what it can take (not done, dead or not-yet-visible messages). Polls are
 * 60 s apart where a test must show that something other than the poll brought a message.
 * Every expectation is a literal; nothing is read back from the code.
 */
import 'reflect-metadata';
import test, { type ExecutionContext } from 'ava';
import { QueryTypes } from 'sequelize';
import { SequelizeMessageQueue, type SequelizeMessageQueueOptions } from '../../adapters/sequelize/sequelize-message-queue.ts';
import { SequelizeUnitOfWork } from '../../adapters/sequelize/sequelize-unit-of-work.ts';
import { claimMessage, type Candidate, type SequelizeQueueConsumer } from '../../adapters/sequelize/sequelize-queue-consumer.ts';
import type { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import { sqlTime } from '../../adapters/sequelize/sql-scope.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import type { ConsumeOptions, Consumer, DeliveredMessage, HandlerOutcome } from '../../core/ports/queue.port.ts';
import { DATABASES } from '../support/databases.ts';
import { openMigratedDatabase } from '../support/migrated-database.ts';
import { quietLogger } from '../support/generation-harness.ts';
import { within } from '../contract/fixtures.ts';
import { waitFor } from '../contract/message-queue.contract.ts';
import { activeTimers as timers, capturingLogger } from '../support/queue-test-kit.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Polls a minute apart: within a test, only a wake-up (or the loop looking again at once) brings a message. */
const SLOW: SequelizeMessageQueueOptions = { logger: quietLogger, pollIntervalMs: 60_000, backoff: { initialSeconds: 0.05, maxSeconds: 0.4 } };
const options = (environment: string, overrides: Partial<ConsumeOptions> = {}): ConsumeOptions => ({
  taskTypes: ['generation'],
  environment,
  concurrency: 1,
  maxAttempts: 3,
  visibilitySeconds: 60,
  ...overrides,
});
const CANDIDATES = 'SELECT id, message_id, task_type, environment, body, attempts, trace FROM queue_messages';
const CLAIM = 'UPDATE queue_messages SET visible_at = ?, attempts = ?, claim_token = ?';

type Kind = (typeof DATABASES)[number];

async function opened(t: { teardown(fn: () => Promise<void> | void): void }, kind: Kind): Promise<SequelizeDatabase> {
  const { db, dispose } = await openMigratedDatabase(kind);
  t.teardown(dispose);
  return db;
}

/** Runs `before` (or `after`) each candidate poll; undone by the returned function. */
function onPoll(db: SequelizeDatabase, hooks: { before?: () => Promise<void> | void; after?: () => Promise<void> | void }): () => void {
  const sequelize = db.autocommit.sequelize;
  const query = sequelize.query.bind(sequelize);
  sequelize.query = (async (sql: unknown, ...rest: unknown[]) => {
    const poll = typeof sql === 'string' && sql.startsWith(CANDIDATES);
    if (poll) await hooks.before?.();
    const result = await (query as (...args: unknown[]) => Promise<unknown>)(sql, ...rest);
    if (poll) await hooks.after?.();
    return result;
  }) as typeof sequelize.query;
  return () => void (sequelize.query = query);
}

/** Runs `hook` before each take (the conditional claim); undone by the returned function. */
function onClaim(db: SequelizeDatabase, hook: () => Promise<void> | void): () => void {
  const scope = db.autocommit;
  const run = scope.run.bind(scope);
  scope.run = async (sql: string, params: readonly unknown[]) => {
    if (sql.startsWith(CLAIM)) await hook();
    return run(sql, params);
  };
  return () => void (scope.run = run);
}

const statusOf = async (db: SequelizeDatabase, messageId: string) => {
  const [row] = await db.sequelize.query<{ status: string; attempts: number | string }>('SELECT status, attempts FROM queue_messages WHERE message_id = ?', {
    replacements: [messageId],
    type: QueryTypes.SELECT,
  });
  return { status: row!.status, attempts: Number(row!.attempts) };
};

const nameOf = (message: DeliveredMessage) => (message.body as { name: string }).name;

for (const kind of DATABASES) {
  test(`${kind}: a message taken only to be ended (delivered maxAttempts times) cannot be taken again while that take holds it`, async (t) => {
    const db = await opened(t, kind);
    const queue = new SequelizeMessageQueue(db, SLOW);
    t.teardown(() => queue.close());
    const { messageId } = await queue.publish({ taskType: 'generation', environment: 'ended', body: { n: 1 } });
    // Delivered 3 times already and visible: the next take only ends it, and leaves its attempts at 3.
    await db.sequelize.query('UPDATE queue_messages SET attempts = 3 WHERE message_id = ?', { replacements: [messageId] });
    const [{ id }] = await db.sequelize.query<{ id: string }>('SELECT id FROM queue_messages WHERE message_id = ?', { replacements: [messageId], type: QueryTypes.SELECT });
    const now = new Date(Date.now() + 1000);
    const claim = (token: string) => ({ token, takenAt: now, visibleUntil: new Date(now.getTime() + 60_000), attempts: 3 });
    t.true(await claimMessage(db, { id: id!, attempts: 3 }, claim('ender'), now));
    // A rival that read it as visible with 3 attempts (the same picture: the attempts did not move) must not take it.
    t.false(await claimMessage(db, { id: id!, attempts: 3 }, claim('rival'), now));
    const [row] = await db.sequelize.query<{ claim_token: string }>('SELECT claim_token FROM queue_messages WHERE id = ?', { replacements: [id], type: QueryTypes.SELECT });
    t.is(row!.claim_token, 'ender');
  });

  test(`${kind}: a publish of another environment or task type in this process is not taken by a consumer through its hint`, async (t) => {
    const db = await opened(t, kind);
    const queue = new SequelizeMessageQueue(db, SLOW);
    t.teardown(() => queue.close());
    const seen: string[] = [];
    const consumer = await queue.consume(options('mine'), async (message) => (seen.push(nameOf(message)), { action: 'ack' }));
    t.teardown(() => consumer.stop());
    await sleep(100); // the first (empty) poll is done: the loop sleeps
    await queue.publish({ taskType: 'generation', environment: 'theirs', body: { name: 'other environment' } });
    await queue.publish({ taskType: 'publish', environment: 'mine', body: { name: 'other task type' } });
    await queue.publish({ taskType: 'generation', environment: 'mine', body: { name: 'mine' } });
    await waitFor(() => seen.includes('mine'), 'its own message', 2000);
    await sleep(100);
    t.deepEqual(seen, ['mine']);
    t.deepEqual((await queue.peek(10)).map((m) => (m.body as { name: string }).name).sort(), ['other environment', 'other task type']);
  });

  test(`${kind}: two hints that arrive together, with one slot free, are served in the queue's fair order, not as hinted`, async (t) => {
    const db = await opened(t, kind);
    const queue = new SequelizeMessageQueue(db, SLOW);
    const elsewhere = new SequelizeMessageQueue(db, SLOW);
    t.teardown(async () => {
      await queue.close();
      await elsewhere.close();
    });
    const seen: string[] = [];
    const consumer = (await queue.consume(options('two-hints'), async (message) => (seen.push(nameOf(message)), { action: 'ack' }))) as SequelizeQueueConsumer;
    t.teardown(() => consumer.stop());
    await sleep(100); // idle, its one slot free
    // Published elsewhere (no hint reaches this consumer), A's second turn first; then both hinted at once, in that order.
    await elsewhere.publish({ taskType: 'generation', environment: 'two-hints', body: { name: 'a2' }, messageId: 'a2', fairnessKey: 'A', fairnessTurn: 2 });
    await elsewhere.publish({ taskType: 'generation', environment: 'two-hints', body: { name: 'b1' }, messageId: 'b1', fairnessKey: 'B', fairnessTurn: 1 });
    const hints = await db.sequelize.query<Candidate>(`${CANDIDATES} WHERE environment = 'two-hints' ORDER BY created_at ASC, message_id ASC`, { type: QueryTypes.SELECT });
    t.deepEqual(
      hints.map((hint) => hint.message_id),
      ['a2', 'b1'],
    );
    for (const hint of hints) consumer.wake(hint);
    await waitFor(() => seen.length === 2, 'both deliveries', 2000);
    t.deepEqual(seen, ['b1', 'a2'], "B's first turn before A's second");
  });

  test(`${kind}: a message published while the consumer is polling (not asleep) is taken at once, not after the poll interval`, async (t) => {
    const db = await opened(t, kind);
    const queue = new SequelizeMessageQueue(db, SLOW);
    t.teardown(() => queue.close());
    let armed = false;
    // After the second poll's (empty) answer, while the consumer is not asleep: a publish in this process.
    const undo = onPoll(db, {
      after: async () => {
        if (!armed) return;
        armed = false;
        await queue.publish({ taskType: 'generation', environment: 'busy', body: { name: 'during the poll' } });
      },
    });
    t.teardown(undo);
    const seen: string[] = [];
    const consumer = await queue.consume(options('busy'), async (message) => (seen.push(nameOf(message)), { action: 'ack' }));
    t.teardown(() => consumer.stop());
    await sleep(100); // the first poll is done and its sleep began
    armed = true;
    // Wakes the sleeping consumer (a publish elsewhere in this process): it polls again, and the hook publishes.
    await queue.publish({ taskType: 'generation', environment: 'elsewhere', body: { name: 'wake-up' } });
    await waitFor(() => seen.length === 1, 'the message published during the poll', 2000);
    t.deepEqual(seen, ['during the poll']);
  });

  // Serial, and declared before the other serial tests, so that it runs first: without stop()'s guard, each later
  // test's stop would hang before this one could report.
  test.serial(`${kind}: stop() of an idle consumer returns at once, not after its poll interval`, async (t) => {
    const db = await opened(t, kind);
    const queue = new SequelizeMessageQueue(db, SLOW);
    // Both under a deadline: a stop that does not end the loop would otherwise hang the test, not fail it.
    t.teardown(() => within(queue.close(), 5_000, 'close() of the queue'));
    const consumer = await queue.consume(options('idle'), async () => ({ action: 'ack' }));
    await sleep(100);
    const started = Date.now();
    await within(consumer.stop(), 5_000, 'stop() of an idle consumer');
    t.true(Date.now() - started < 1000, `stop() took ${Date.now() - started} ms`);
  });

  test(`${kind}: stop() during a take waits for what that take claimed, and claims nothing more`, async (t) => {
    const db = await opened(t, kind);
    const queue = new SequelizeMessageQueue(db, SLOW);
    t.teardown(() => queue.close());
    const first = await queue.publish({ taskType: 'generation', environment: 'stopping', body: { name: 'first' } });
    const second = await queue.publish({ taskType: 'generation', environment: 'stopping', body: { name: 'second' } });
    let consumer!: Consumer;
    let stopping: Promise<void> | null = null;
    const events: string[] = [];
    // The first claim is on its way when stop() is called.
    const undo = onClaim(db, async () => {
      if (stopping) return;
      stopping = consumer.stop().then(() => void events.push('stopped'));
      await sleep(100);
    });
    t.teardown(undo);
    consumer = await queue.consume(options('stopping', { concurrency: 2 }), async (message) => {
      events.push(`handled ${nameOf(message)}`);
      await sleep(50);
      return { action: 'ack' };
    });
    await waitFor(() => stopping !== null, 'the first claim', 2000);
    await stopping;
    await sleep(100);
    t.deepEqual(events, ['handled first', 'stopped']);
    t.deepEqual(await statusOf(db, first.messageId), { status: 'done', attempts: 1 });
    t.deepEqual(await statusOf(db, second.messageId), { status: 'ready', attempts: 0 });
  });

  test(`${kind}: a poll that fails is logged, and the consumer polls again`, async (t) => {
    const db = await opened(t, kind);
    const { logger, lines } = capturingLogger();
    const queue = new SequelizeMessageQueue(db, { ...SLOW, logger, pollIntervalMs: 50 });
    t.teardown(() => queue.close());
    let failures = 1;
    const undo = onPoll(db, {
      before: () => {
        if (failures > 0) {
          failures -= 1;
          throw new Error('connection lost');
        }
      },
    });
    t.teardown(undo);
    await queue.publish({ taskType: 'generation', environment: 'flaky', body: { name: 'after the failure' } });
    const seen: string[] = [];
    const consumer = await queue.consume(options('flaky'), async (message) => (seen.push(nameOf(message)), { action: 'ack' }));
    t.teardown(() => consumer.stop());
    await waitFor(() => seen.length === 1, 'the delivery after the failed poll', 2000);
    t.deepEqual(seen, ['after the failure']);
    t.deepEqual(lines, ['warn queue poll failed {"error":"Error: connection lost"}']);
  });

  test(`${kind}: after taking a hinted message with a slot still free, the consumer polls at once for work the hint did not show`, async (t) => {
    const db = await opened(t, kind);
    const queue = new SequelizeMessageQueue(db, SLOW);
    const elsewhere = new SequelizeMessageQueue(db, SLOW);
    t.teardown(async () => {
      await queue.close();
      await elsewhere.close();
    });
    const seen: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    t.teardown(() => release());
    const consumer = await queue.consume(options('look-again', { concurrency: 2 }), async (message) => {
      seen.push(nameOf(message));
      await held;
      return { action: 'ack' };
    });
    t.teardown(async () => {
      release();
      await consumer.stop();
    });
    await sleep(100); // idle
    await elsewhere.publish({ taskType: 'generation', environment: 'look-again', body: { name: 'published elsewhere' } }); // no hint here
    await queue.publish({ taskType: 'generation', environment: 'look-again', body: { name: 'hinted' } });
    await waitFor(() => seen.length === 2, 'both messages', 2000);
    t.deepEqual(seen.sort(), ['hinted', 'published elsewhere']);
  });

  test(`${kind}: an idle consumer polls once per poll interval, not continually`, async (t) => {
    const db = await opened(t, kind);
    const queue = new SequelizeMessageQueue(db, { ...SLOW, pollIntervalMs: 1000 });
    t.teardown(() => queue.close());
    let polls = 0;
    t.teardown(onPoll(db, { before: () => void (polls += 1) }));
    const consumer = await queue.consume(options('quiet', { concurrency: 2 }), async () => ({ action: 'ack' }));
    t.teardown(() => consumer.stop());
    await waitFor(() => polls === 1, 'the first poll', 2000);
    await sleep(400);
    t.is(polls, 1);
  });

  test.serial(`${kind}: a stopped consumer leaves no timer behind (its sleep's timer is cleared when it is woken)`, async (t) => {
    const db = await opened(t, kind);
    const queue = new SequelizeMessageQueue(db, SLOW);
    t.teardown(() => queue.close());
    await sleep(50);
    const baseline = timers();
    const consumer = await queue.consume(options('timers'), async () => ({ action: 'ack' }));
    await sleep(100); // asleep for 60 s
    t.is(timers(), baseline + 1, 'the sleeping consumer has its one timer');
    await consumer.stop();
    t.is(timers(), baseline);
  });

  test.serial(`${kind}: a message ended for its attempts whose onDeadLetter fails is logged, comes back, and is ended then`, async (t) => {
    const db = await opened(t, kind);
    const { logger, lines } = capturingLogger();
    const queue = new SequelizeMessageQueue(db, { ...SLOW, logger, pollIntervalMs: 50 });
    t.teardown(() => queue.close());
    const ended: number[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    t.teardown(() => release());
    const { messageId } = await queue.publish({ taskType: 'generation', environment: 'ending', body: { name: 'stalls' } });
    const consumer = await queue.consume(
      {
        ...options('ending', { concurrency: 2, maxAttempts: 1, visibilitySeconds: 0.3 }),
        onDeadLetter: async (message) => {
          ended.push(message.attempt);
          if (ended.length === 1) throw new Error('ending failed');
        },
      },
      async () => {
        await held; // never settles in time: delivered once, then only ended
        return { action: 'ack' };
      },
    );
    t.teardown(async () => {
      release();
      await consumer.stop();
    });
    await waitFor(async () => (await statusOf(db, messageId)).status === 'dead', 'the dead letter', 5000);
    t.deepEqual(ended, [1, 1]);
    t.deepEqual(lines.filter((line) => line.startsWith('error')), [`error queue dead-lettering failed {"messageId":"${messageId}","error":"Error: ending failed"}`]);
  });

  test(`${kind}: a consumer with one slot takes the next waiting message as soon as its handler returns`, async (t) => {
    const db = await opened(t, kind);
    const queue = new SequelizeMessageQueue(db, SLOW);
    t.teardown(() => queue.close());
    for (const name of ['one', 'two', 'three']) await queue.publish({ taskType: 'generation', environment: 'slot', body: { name } });
    const seen: string[] = [];
    const consumer = await queue.consume(options('slot'), async (message) => (seen.push(nameOf(message)), { action: 'ack' }));
    t.teardown(() => consumer.stop());
    await waitFor(() => seen.length === 3, 'three deliveries', 3000);
    t.deepEqual(seen, ['one', 'two', 'three']);
  });

  // Pins: a message whose handler asked for a retry later is no longer held by that delivery: peek and stats show it as
  // waiting during its delay (a claim left on it hid it from both until the delay ran out).
  test(`${kind}: a message waiting out a retry delay is shown as waiting, not as held`, async (t) => {
    const db = await opened(t, kind);
    const queue = new SequelizeMessageQueue(db, SLOW);
    t.teardown(() => queue.close());
    const { messageId } = await queue.publish({ taskType: 'generation', environment: 'later', body: { name: 'later' } });
    let deliveries = 0;
    const consumer = await queue.consume(options('later'), async () => (deliveries++, { action: 'retry', delaySeconds: 60 }));
    t.teardown(() => consumer.stop());
    await waitFor(async () => (await statusOf(db, messageId)).attempts === 1 && (await queue.peek(10)).length === 1, 'the retry settled and shown', 3000);
    t.deepEqual((await queue.peek(10)).map((message) => (message.body as { name: string }).name), ['later']);
    t.like((await queue.stats('later', ['generation']))[0], { taskType: 'generation', waiting: 1 });
    t.is(deliveries, 1);
  });

  test.serial(`${kind}: a settle that fails is logged; the message comes back when its visibility ends and is settled then`, async (t) => {
    const db = await opened(t, kind);
    const { logger, lines } = capturingLogger();
    const queue = new SequelizeMessageQueue(db, { ...SLOW, logger, pollIntervalMs: 50 });
    t.teardown(() => queue.close());
    const scope = db.autocommit;
    const write = scope.write.bind(scope);
    let failNext = false;
    scope.write = (async (work: never) => {
      if (failNext) {
        failNext = false;
        throw new Error('write lost');
      }
      return write(work);
    }) as typeof scope.write;
    t.teardown(() => void (scope.write = write));
    const attempts: number[] = [];
    const { messageId } = await queue.publish({ taskType: 'generation', environment: 'settle', body: { name: 'x' } });
    const consumer = await queue.consume(options('settle', { visibilitySeconds: 0.3 }), async (message): Promise<HandlerOutcome> => {
      attempts.push(message.attempt);
      if (message.attempt === 1) failNext = true; // this delivery's ack is lost
      return { action: 'ack' };
    });
    t.teardown(() => consumer.stop());
    await waitFor(async () => (await statusOf(db, messageId)).status === 'done', 'the second settle', 5000);
    t.deepEqual(attempts, [1, 2]);
    t.deepEqual(lines, [`error queue settle failed {"messageId":"${messageId}","error":"Error: write lost"}`]);
  });

  test(`${kind}: ackWith a transaction that is not this database's (an in-memory one) is a no-op; the handler's ack settles as usual`, async (t) => {
    const db = await opened(t, kind);
    const { logger, lines } = capturingLogger();
    const queue = new SequelizeMessageQueue(db, { ...SLOW, logger, pollIntervalMs: 50 });
    t.teardown(() => queue.close());
    const memory = new MemoryUnitOfWork(new MemoryStore());
    const attempts: number[] = [];
    const { messageId } = await queue.publish({ taskType: 'generation', environment: 'foreign', body: { name: 'x' } });
    const consumer = await queue.consume(options('foreign', { visibilitySeconds: 0.5 }), async (message): Promise<HandlerOutcome> => {
      attempts.push(message.attempt);
      await memory.run((tx) => message.ackWith!(tx));
      return { action: 'ack' };
    });
    t.teardown(() => consumer.stop());
    await waitFor(async () => (await statusOf(db, messageId)).status === 'done', 'the ack', 3000);
    await sleep(700); // past the visibility: nothing comes back
    t.deepEqual(attempts, [1]);
    t.deepEqual(lines, []);
  });

  test.serial(`${kind}: the outcome of a delivery that lost its message is dropped with a warning; an outcome in time logs nothing`, async (t) => {
    const db = await opened(t, kind);
    const { logger, lines } = capturingLogger();
    const queue = new SequelizeMessageQueue(db, { ...SLOW, logger, pollIntervalMs: 50 });
    t.teardown(() => queue.close());
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    t.teardown(() => release());
    const attempts: number[] = [];
    const { messageId } = await queue.publish({ taskType: 'generation', environment: 'late', body: { name: 'x' } });
    const consumer = await queue.consume(options('late', { concurrency: 2, visibilitySeconds: 0.3 }), async (message): Promise<HandlerOutcome> => {
      attempts.push(message.attempt);
      if (message.attempt === 1) await held; // outlives its visibility: delivered again meanwhile
      return { action: 'ack' };
    });
    t.teardown(() => consumer.stop());
    await waitFor(async () => (await statusOf(db, messageId)).status === 'done', 'the second delivery acknowledged', 3000);
    t.deepEqual(lines, []);
    release();
    await waitFor(() => lines.length === 1, 'the warning', 2000);
    t.deepEqual(attempts, [1, 2]);
    t.deepEqual(lines, [`warn queue message was taken by another delivery before it was settled (visibility expired) {"messageId":"${messageId}","settlement":"delete"}`]);
  });

  test.serial(`${kind}: a handler that throws is logged with its attempt`, async (t) => {
    const db = await opened(t, kind);
    const { logger, lines } = capturingLogger();
    const queue = new SequelizeMessageQueue(db, { ...SLOW, logger, pollIntervalMs: 50 });
    t.teardown(() => queue.close());
    const { messageId } = await queue.publish({ taskType: 'generation', environment: 'throws', body: { name: 'x' } });
    const consumer = await queue.consume(options('throws', { maxAttempts: 1 }), async () => {
      throw new Error('boom');
    });
    t.teardown(() => consumer.stop());
    await waitFor(async () => (await statusOf(db, messageId)).status === 'dead', 'the dead letter', 3000);
    t.deepEqual(lines, [`warn queue handler failed {"messageId":"${messageId}","attempt":1,"error":"Error: boom"}`]);
  });

  test.serial(`${kind}: a message acknowledged in the handler's transaction is not ended or dead-lettered when the handler then throws on its last attempt`, async (t) => {
    const db = await opened(t, kind);
    const { logger, lines } = capturingLogger();
    const queue = new SequelizeMessageQueue(db, { ...SLOW, logger, pollIntervalMs: 50 });
    t.teardown(() => queue.close());
    const uow = new SequelizeUnitOfWork(db);
    const ended: string[] = [];
    let handled = 0;
    const { messageId } = await queue.publish({ taskType: 'generation', environment: 'acked-then-threw', body: { name: 'x' } });
    const consumer = await queue.consume(
      { ...options('acked-then-threw', { maxAttempts: 1 }), onDeadLetter: async (_message, reason) => void ended.push(reason) },
      async (message): Promise<HandlerOutcome> => {
        await uow.run((tx) => message.ackWith!(tx));
        handled += 1;
        throw new Error('after the commit');
      },
    );
    t.teardown(() => consumer.stop());
    await waitFor(() => handled === 1, 'the delivery', 3000);
    await sleep(300);
    t.deepEqual(await statusOf(db, messageId), { status: 'done', attempts: 1 });
    t.deepEqual(ended, []);
    t.deepEqual(lines, [`warn queue handler failed {"messageId":"${messageId}","attempt":1,"error":"Error: after the commit"}`]);
  });

  test(`${kind}: a message whose stored body is not JSON goes to the dead letters without onDeadLetter (there is no message to hand it)`, async (t) => {
    const db = await opened(t, kind);
    const queue = new SequelizeMessageQueue(db, { ...SLOW, pollIntervalMs: 50 });
    t.teardown(() => queue.close());
    const { messageId } = await queue.publish({ taskType: 'generation', environment: 'garbled', body: { name: 'x' } });
    await db.sequelize.query("UPDATE queue_messages SET body = '{not json' WHERE message_id = ?", { replacements: [messageId] });
    const ended: unknown[] = [];
    let handled = 0;
    const consumer = await queue.consume(
      { ...options('garbled', { maxAttempts: 1 }), onDeadLetter: async (message) => void ended.push(message) },
      async () => ((handled += 1), { action: 'ack' }),
    );
    t.teardown(() => consumer.stop());
    await waitFor(async () => (await statusOf(db, messageId)).status === 'dead', 'the dead letter', 3000);
    t.is(handled, 0);
    t.deepEqual(ended, []);
  });

  test(`${kind}: an idle consumer polls once and sleeps beside messages it cannot take (done, dead, not yet visible); a later one is taken`, async (t) => {
    const db = await opened(t, kind);
    const queue = new SequelizeMessageQueue(db, SLOW);
    t.teardown(() => queue.close());
    // Published through another queue object: no hint reaches this one's consumer, only its polls.
    const elsewhere = new SequelizeMessageQueue(db, SLOW);
    t.teardown(() => elsewhere.close());
    const publish = async (name: string) => (await elsewhere.publish({ taskType: 'generation', environment: 'idle', body: { name } })).messageId;
    // Six of each, more than one poll reads (free slots + 4): left in the poll, they would fill it.
    for (let n = 0; n < 6; n += 1) {
      await db.autocommit.run("UPDATE queue_messages SET status = 'done' WHERE message_id = ?", [await publish(`done ${n}`)]);
      await db.autocommit.run("UPDATE queue_messages SET status = 'dead' WHERE message_id = ?", [await publish(`dead ${n}`)]);
      await db.autocommit.run("UPDATE queue_messages SET claim_token = 'held', visible_at = ? WHERE message_id = ?", [sqlTime(new Date(Date.now() + 3_600_000), db.dialect), await publish(`held ${n}`)]);
    }
    let polls = 0;
    t.teardown(onPoll(db, { before: () => void (polls += 1) }));
    const seen: string[] = [];
    const consumer = await queue.consume(options('idle', { concurrency: 2 }), async (message) => (seen.push(nameOf(message)), { action: 'ack' }));
    t.teardown(() => within(consumer.stop(), 5_000, "the idle consumer's stop()"));
    await sleep(500);
    t.is(polls, 1);
    t.deepEqual(seen, []);
    // A message published now is read by the next poll (woken here by hand) and taken.
    await publish('later');
    (consumer as SequelizeQueueConsumer).wake();
    await waitFor(() => seen.length > 0, 'the later message', 3000);
    t.deepEqual(seen, ['later']);
  });
}

/** A SQLite queue whose one-slot consumer (for `environment`) holds a message until the test ends. */
async function busyConsumer(t: ExecutionContext, environment: string) {
  const db = await opened(t, 'sqlite');
  const queue = new SequelizeMessageQueue(db, SLOW);
  t.teardown(() => queue.close());
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  t.teardown(() => release());
  const seen: string[] = [];
  const consumer = (await queue.consume(options(environment), async (message) => (seen.push(nameOf(message)), await held, { action: 'ack' }))) as SequelizeQueueConsumer;
  await queue.publish({ taskType: 'generation', environment, body: { name: 'first' } });
  await waitFor(() => seen.length === 1, 'the one slot taken');
  return { db, consumer };
}

// Pins: a consumer keeps at most 64 hints. A burst of publishes in this process while its slots are busy (a thousand
// jobs submitted at once) marks a backlog for the next poll instead of holding every message's hint in memory.
test('sqlite: a burst of hints while every slot is busy keeps at most 64 of them', async (t) => {
  const { consumer } = await busyConsumer(t, 'burst');
  const hint = (n: number): Candidate => ({ id: `hint-${n}`, message_id: `hint-${n}`, task_type: 'generation', environment: 'burst', body: '{}', attempts: 0, trace: null }) as unknown as Candidate;
  for (let n = 0; n < 200; n += 1) consumer.wake(hint(n));
  t.is((consumer as unknown as { hints: Candidate[] }).hints.length, 64);
});

// Pins: a consumer with no free slot does not poll when woken (every publish in this process wakes it): it takes
// nothing it could run, so a burst of submissions would otherwise cost a query each.
test('sqlite: a consumer with every slot busy does not poll when woken', async (t) => {
  const { db, consumer } = await busyConsumer(t, 'busy-wake');
  await sleep(50);
  let polls = 0;
  t.teardown(onPoll(db, { before: () => void (polls += 1) }));
  for (let n = 0; n < 5; n += 1) {
    consumer.wake();
    await sleep(10);
  }
  await sleep(50);
  t.is(polls, 0);
});
