/**
 * Guards of the database queue (QUEUE_DRIVER=db) that the shared MessageQueue contract does not reach: owner keys
 * longer than their column, consume() inside a unit of work, negative list sizes, a publisher's clock ahead of the
 * reader's, where messages without an owner stand, and what the tombstone purge removes and how often it runs.
 */
import 'reflect-metadata';
import test from 'ava';
import { SequelizeMessageQueue, type SequelizeMessageQueueOptions } from '../../adapters/sequelize/sequelize-message-queue.ts';
import type { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import type { HandlerOutcome } from '../../core/ports/queue.port.ts';
import { DATABASES } from '../support/databases.ts';
import { openMigratedDatabase } from '../support/migrated-database.ts';
import { quietLogger } from '../support/generation-harness.ts';
import { waitFor } from '../contract/message-queue.contract.ts';

const FAST: SequelizeMessageQueueOptions = { logger: quietLogger, pollIntervalMs: 20, backoff: { initialSeconds: 0.05, maxSeconds: 0.4 } };
const base = { concurrency: 1, maxAttempts: 3, visibilitySeconds: 30 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function opened(t: { teardown(fn: () => Promise<void>): void }, kind: 'sqlite' | 'mariadb' = 'sqlite'): Promise<SequelizeDatabase> {
  const { db, dispose } = await openMigratedDatabase(kind);
  t.teardown(dispose);
  return db;
}

const rowsOf = async (db: SequelizeDatabase, messageId: string) =>
  (await db.sequelize.query<{ status: string }>('SELECT status FROM queue_messages WHERE message_id = ?', { replacements: [messageId], type: 'SELECT' as never })).map((row) => row.status);

for (const kind of DATABASES) {
  // Pins: the owner key is the user id; an id longer than the 64-character column (an OIDC subject, say) must not make
  // every job of that user fail to submit on MariaDB (strict mode refuses the over-long value).
  test(`${kind}: a message whose owner key is longer than 64 characters is published and delivered`, async (t) => {
    const db = await opened(t, kind);
    const queue = new SequelizeMessageQueue(db, FAST);
    t.teardown(() => queue.close());
    const owner = 'o'.repeat(200);
    const { messageId } = await queue.publish({ taskType: 'generation', environment: 'long', body: { n: 1 }, fairnessKey: owner });
    const seen: string[] = [];
    const consumer = await queue.consume({ ...base, taskTypes: ['generation'], environment: 'long' }, async (message) => (seen.push(message.id), { action: 'ack' }));
    await waitFor(() => seen.length === 1, 'the delivery');
    await consumer.stop();
    t.deepEqual(seen, [messageId]);
  });
}

// Pins: a consumer started inside a unit of work would run its poll loop in that transaction's context; the
// caller learns at once instead of getting a consumer that never takes anything (or deadlocks the database).
test('sqlite: consume() inside a unit of work is refused and starts no consumer', async (t) => {
  const db = await opened(t);
  const queue = new SequelizeMessageQueue(db, FAST);
  t.teardown(() => queue.close());
  let started = false;
  await t.throwsAsync(
    () =>
      db.transaction(async () => {
        await queue.consume({ ...base, taskTypes: ['generation'], environment: 'tx' }, async () => ({ action: 'ack' }));
        started = true;
      }),
    { message: /must not be called inside a unit of work/ },
  );
  t.false(started);
});

// Pins: an admin asking for a negative number of messages gets none; SQLite reads LIMIT -1 as "no limit" (a full
// table dump), MariaDB refuses it as a syntax error.
test('sqlite: peek and deadLetters with a negative size list nothing', async (t) => {
  const db = await opened(t);
  const queue = new SequelizeMessageQueue(db, FAST);
  t.teardown(() => queue.close());
  await queue.publish({ taskType: 'generation', environment: 'neg', body: { n: 'dead' } });
  const consumer = await queue.consume({ ...base, taskTypes: ['generation'], environment: 'neg' }, async () => ({ action: 'dead', reason: 'gone' }));
  await waitFor(async () => (await queue.deadLetters(10)).length === 1, 'the dead letter');
  await consumer.stop();
  await queue.publish({ taskType: 'generation', environment: 'neg', body: { n: 'waiting' } });
  t.is((await queue.peek(10)).length, 1);
  t.deepEqual(await queue.peek(-1), []);
  t.deepEqual(await queue.deadLetters(-1), []);
});

// Pins: a message published by a process whose clock runs ahead has a creation time in the reader's future; the
// oldest-waiting age (a metric operators alert on) must read 0, not a negative age.
test('sqlite: the oldest waiting age is never negative when the publisher\'s clock is ahead', async (t) => {
  const db = await opened(t);
  const ahead = new SequelizeMessageQueue(db, { ...FAST, clock: { now: () => new Date(Date.now() + 60_000) } });
  const here = new SequelizeMessageQueue(db, FAST);
  t.teardown(async () => (await ahead.close(), await here.close()));
  await ahead.publish({ taskType: 'generation', environment: 'skew', body: { n: 1 } });
  const [stats] = await here.stats('skew', ['generation']);
  t.is(stats!.waiting, 1);
  t.is(stats!.oldestWaitingSeconds, 0);
});

// Pins: consumers serve place 1 of every owner before any place 2; a message without an owner takes place 0, so
// ownerless work is not queued behind users' jobs published before it.
test('sqlite: a message without an owner is served before an owner\'s message published earlier', async (t) => {
  const db = await opened(t);
  const queue = new SequelizeMessageQueue(db, FAST);
  t.teardown(() => queue.close());
  await queue.publish({ taskType: 'generation', environment: 'fair', body: { n: 'owned' }, fairnessKey: 'user-1' });
  await sleep(20); // a later creation time: by time alone, the owned message would go first
  await queue.publish({ taskType: 'generation', environment: 'fair', body: { n: 'ownerless' } });
  const seen: string[] = [];
  const consumer = await queue.consume({ ...base, taskTypes: ['generation'], environment: 'fair' }, async (message) => {
    seen.push((message.body as { n: string }).n);
    return { action: 'ack' };
  });
  await waitFor(() => seen.length === 2, 'both deliveries');
  await consumer.stop();
  t.deepEqual(seen, ['ownerless', 'owned']);
});

/** A queue whose clock the test moves; `settle` consumes `environment` once: bodies named `dead` are dead-lettered. */
async function clocked(db: SequelizeDatabase, retainDoneMs: number) {
  let now = new Date('2026-01-01T00:00:00Z');
  const queue = new SequelizeMessageQueue(db, { ...FAST, retainDoneMs, clock: { now: () => now } });
  const settle = async (environment: string, count: number) => {
    let handled = 0;
    const consumer = await queue.consume({ ...base, taskTypes: ['generation'], environment }, async (message): Promise<HandlerOutcome> => {
      handled += 1;
      return (message.body as { n: string }).n === 'dead' ? { action: 'dead', reason: 'for the purge' } : { action: 'ack' };
    });
    await waitFor(() => handled === count, `${count} handled`);
    await consumer.stop();
  };
  return { queue, settle, at: (offsetMs: number) => (now = new Date(Date.parse('2026-01-01T00:00:00Z') + offsetMs)) };
}

// Pins: the purge drops only acknowledged tombstones past their retention. Waiting work and dead letters (which an
// operator has yet to redrive or discard) are never purged, however old; a tombstone within its retention keeps its
// message id taken, so a relay republishing it after a crash does not run the job twice.
test('sqlite: the tombstone purge removes only acknowledged messages past their retention', async (t) => {
  const db = await opened(t);
  const { queue, settle, at } = await clocked(db, 100_000);
  t.teardown(() => queue.close());
  const acked = await queue.publish({ taskType: 'generation', environment: 'purge', body: { n: 'acked' } });
  const dead = await queue.publish({ taskType: 'generation', environment: 'purge', body: { n: 'dead' } });
  await settle('purge', 2);
  const waiting = await queue.publish({ taskType: 'generation', environment: 'idle', body: { n: 'waiting' } });

  at(120_000); // past the retention of the first tombstone, and past the once-a-minute interval
  const recent = await queue.publish({ taskType: 'generation', environment: 'recent', body: { n: 'recent' } });
  await waitFor(async () => (await rowsOf(db, acked.messageId)).length === 0, 'the old tombstone purged');
  await settle('recent', 1);

  at(190_000); // the next purge: the recent tombstone is 70 s old, within its 100 s retention
  await queue.publish({ taskType: 'generation', environment: 'other', body: { n: 'other' } });
  await sleep(300); // the purge runs after the publish returns
  t.deepEqual(await rowsOf(db, recent.messageId), ['done']);
  t.deepEqual(await rowsOf(db, dead.messageId), ['dead']);
  t.deepEqual(await rowsOf(db, waiting.messageId), ['ready']);
  t.deepEqual((await queue.deadLetters(10)).map((m) => m.id), [dead.messageId]);
});

// Pins: the purge is one DELETE at most once a minute per process, not one per published message; its tombstones
// are still dropped at the next run.
test('sqlite: the tombstone purge runs at most once a minute', async (t) => {
  const db = await opened(t);
  const { queue, settle, at } = await clocked(db, 1000);
  t.teardown(() => queue.close());
  const acked = await queue.publish({ taskType: 'generation', environment: 'often', body: { n: 'acked' } });
  await settle('often', 1);
  at(30_000); // past the 1 s retention, within the minute since the first publish's purge
  await queue.publish({ taskType: 'generation', environment: 'other', body: { n: 1 } });
  await sleep(300);
  t.deepEqual(await rowsOf(db, acked.messageId), ['done']);
  at(61_000);
  await queue.publish({ taskType: 'generation', environment: 'other', body: { n: 2 } });
  await waitFor(async () => (await rowsOf(db, acked.messageId)).length === 0, 'the tombstone purged at the next run');
  t.pass();
});

// Pins: the purge runs detached after a publish; when it fails (a locked or full disk), the operator gets a warning
// and the process goes on. Unhandled, the rejection would stop the whole service over a housekeeping DELETE.
test('sqlite: a failing tombstone purge is logged as a warning', async (t) => {
  const db = await opened(t);
  const warnings: string[] = [];
  const logger = { ...quietLogger, warn: (message: string, fields?: object) => void warnings.push(`${message} ${JSON.stringify(fields)}`) };
  const queue = new SequelizeMessageQueue(db, { ...FAST, logger });
  t.teardown(() => queue.close());
  // The purge is the one autocommit write a publish made in a transaction leads to.
  Object.assign(db.autocommit, { write: () => Promise.reject(new Error('disk I/O error')) });
  await db.transaction((scope) => queue.writerOn(scope).add({ id: 'in-a-transaction', message: { taskType: 'generation', environment: 'broken', body: { n: 1 } }, createdAt: new Date() }));
  await waitFor(() => warnings.length > 0, 'the purge warning').catch(() => undefined);
  t.deepEqual(warnings, ['queue tombstone purge failed {"error":"Error: disk I/O error"}']);
  t.is((await queue.peek(10)).length, 1);
});
