/**
 * How the database queue's consumer picks and takes. The take is a conditional update: the message must still be ready, still have the attempts
 * count the consumer read, and be visible. A consumer may hold a stale picture of a message (a hint from its own
 * publish, a candidate from a poll) while another process settles it; the take must then match nothing. Here the
 * stale picture is a hint: the consumer is busy when the message is published, and before it is free again the
 * message is dead-lettered elsewhere with its attempts untouched and already visible.
 */
import 'reflect-metadata';
import test from 'ava';
import { QueryTypes } from 'sequelize';
import { SequelizeMessageQueue } from '../../adapters/sequelize/sequelize-message-queue.ts';
import { claimMessage } from '../../adapters/sequelize/sequelize-queue-consumer.ts';
import { sqlTime } from '../../adapters/sequelize/sql-scope.ts';
import { DATABASES } from '../support/databases.ts';
import { openMigratedDatabase } from '../support/migrated-database.ts';
import { quietLogger } from '../support/generation-harness.ts';

const open = openMigratedDatabase;

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A consumer of `environment` with one slot: it records each message's body field `key`, and holds the message whose
 * field is `holdOn` until `release()` (so the one slot stays busy meanwhile).
 */
async function heldConsumer(queue: SequelizeMessageQueue, environment: string, key: string, holdOn: unknown) {
  let release!: () => void;
  const blocker = new Promise<void>((resolve) => (release = resolve));
  const handled: unknown[] = [];
  const consumer = await queue.consume({ taskTypes: ['generation'], environment, concurrency: 1, maxAttempts: 5, visibilitySeconds: 60 }, async (message) => {
    const value = (message.body as Record<string, unknown>)[key];
    handled.push(value);
    if (value === holdOn) await blocker;
    return { action: 'ack' as const };
  });
  return { consumer, handled, release };
}

for (const kind of DATABASES) {
  test(`${kind}: a message settled elsewhere while a consumer held its hint is not taken from that hint`, async (t) => {
    const { db, dispose } = await open(kind);
    // Polls far apart: only the hint can bring the second message to this consumer.
    const queue = new SequelizeMessageQueue(db, { logger: quietLogger, pollIntervalMs: 60_000 });
    const { consumer, handled, release } = await heldConsumer(queue, 'take', 'n', 1);
    try {
      await queue.publish({ taskType: 'generation', environment: 'take', body: { n: 1 } });
      await until(() => handled.length === 1);
      const { messageId } = await queue.publish({ taskType: 'generation', environment: 'take', body: { n: 2 } });
      // Dead-lettered by another process: still 0 attempts as far as this consumer's hint knows, and visible.
      await db.sequelize.query("UPDATE queue_messages SET status = 'dead', last_error = 'elsewhere' WHERE message_id = ?", { replacements: [messageId] });
      release();
      // The first message is acknowledged once the handler returns; by then the consumer has tried its hint.
      await until(() => handled.length > 1, 1_000).catch(() => undefined);
      const [row] = await db.sequelize.query<{ status: string; attempts: number; claim_token: string | null }>(
        'SELECT status, attempts, claim_token FROM queue_messages WHERE message_id = ?',
        { replacements: [messageId], type: QueryTypes.SELECT },
      );
      t.deepEqual(handled, [1]);
      t.deepEqual({ ...row, attempts: Number(row!.attempts) }, { status: 'dead', attempts: 0, claim_token: null });
    } finally {
      release();
      await consumer.stop();
      await queue.close();
      await dispose();
    }
  });
}

for (const kind of DATABASES) {
  test(`${kind}: a message published while every slot is busy does not overtake work waiting in an earlier turn`, async (t) => {
    const { db, dispose } = await open(kind);
    // This process's queue (its consumer hears of its own publishes) and another process's on the same database.
    const queue = new SequelizeMessageQueue(db, { logger: quietLogger, pollIntervalMs: 60_000 });
    const elsewhere = new SequelizeMessageQueue(db, { logger: quietLogger, pollIntervalMs: 60_000 });
    const { consumer, handled, release } = await heldConsumer(queue, 'turns', 'name', 'a1');
    const publish = (on: SequelizeMessageQueue, name: string, owner: string, turn: number) =>
      on.publish({ taskType: 'generation', environment: 'turns', body: { name }, fairnessKey: owner, fairnessTurn: turn });
    try {
      await publish(queue, 'a1', 'A', 1);
      await until(() => handled.length === 1);
      await publish(elsewhere, 'b1', 'B', 1); // waits: no hint reaches this consumer
      await publish(queue, 'a2', 'A', 2); // a hint, while the one slot is busy
      release();
      await until(() => handled.length === 3);
      t.deepEqual(handled, ['a1', 'b1', 'a2'], "B's first turn goes before A's second, whichever was published last");
    } finally {
      release();
      await consumer.stop();
      await queue.close();
      await elsewhere.close();
      await dispose();
    }
  });
}

for (const kind of DATABASES) {
  test(`${kind}: a message published while a poll is still taking does not overtake what that poll left waiting`, async (t) => {
    const { db, dispose } = await open(kind);
    const queue = new SequelizeMessageQueue(db, { logger: quietLogger, pollIntervalMs: 60_000 });
    const publish = (name: string, owner: string, turn: number) =>
      queue.publish({ taskType: 'generation', environment: 'left', body: { name }, fairnessKey: owner, fairnessTurn: turn });
    // Published before anyone consumes: no hint, only a poll finds them (a1 first, then b1).
    await publish('a1', 'A', 1);
    await publish('b1', 'B', 1);
    // While the consumer's first poll claims a1 (its one slot still free), a2 is published here: its hint arrives with
    // no slot busy. The poll leaves b1 behind, so the next take must poll again rather than run the hint.
    const scope = db.autocommit;
    const run = scope.run.bind(scope);
    let published = false;
    scope.run = async (sql: string, params: readonly unknown[]) => {
      if (!published && sql.startsWith('UPDATE queue_messages SET visible_at = ?, attempts = ?, claim_token = ?')) {
        published = true;
        await publish('a2', 'A', 2);
      }
      return run(sql, params);
    };
    const { consumer, handled, release } = await heldConsumer(queue, 'left', 'name', 'a1');
    try {
      await until(() => handled.length === 1);
      t.true(published);
      release();
      await until(() => handled.length === 3);
      t.deepEqual(handled, ['a1', 'b1', 'a2'], "B's first turn, left by the poll, goes before A's second");
    } finally {
      scope.run = run;
      release();
      await consumer.stop();
      await queue.close();
      await dispose();
    }
  });
}

for (const kind of DATABASES) {
  test(`${kind}: the take claims a message only as the candidate showed it: not after a rival's take, not once it is settled`, async (t) => {
    const { db, dispose } = await open(kind);
    const queue = new SequelizeMessageQueue(db, { logger: quietLogger, pollIntervalMs: 60_000 });
    try {
      const rowOf = async (messageId: string) =>
        (await db.sequelize.query<{ id: string; attempts: number; status: string; claim_token: string | null }>('SELECT id, attempts, status, claim_token FROM queue_messages WHERE message_id = ?', {
          replacements: [messageId],
          type: QueryTypes.SELECT,
        }))[0]!;
      const now = new Date(Date.now() + 1_000);
      const claim = (token: string, attempts: number) => ({ token, takenAt: now, visibleUntil: new Date(now.getTime() + 60_000), attempts });
      const expire = (id: string) => db.sequelize.query('UPDATE queue_messages SET visible_at = ? WHERE id = ?', { replacements: [sqlTime(new Date(0), db.dialect), id] });

      // A rival took it (attempts 0 -> 1) and its visibility ran out: a candidate read before that cannot claim it.
      const taken = (await queue.publish({ taskType: 'generation', environment: 'claim', body: { n: 1 } })).messageId;
      const row = await rowOf(taken);
      t.true(await claimMessage(db, { id: row.id, attempts: 0 }, claim('rival', 1), now));
      await expire(row.id);
      t.false(await claimMessage(db, { id: row.id, attempts: 0 }, claim('stale', 1), now), 'the stale candidate');
      t.like(await rowOf(taken), { claim_token: 'rival' });
      t.true(await claimMessage(db, { id: row.id, attempts: 1 }, claim('next', 2), now), 'read again, it is delivered again');
      t.like(await rowOf(taken), { claim_token: 'next' });
      t.is(Number((await rowOf(taken)).attempts), 2);

      // Dead-lettered elsewhere with its attempts as they were and visible: not claimed.
      const dead = (await queue.publish({ taskType: 'generation', environment: 'claim', body: { n: 2 } })).messageId;
      const deadRow = await rowOf(dead);
      await db.sequelize.query("UPDATE queue_messages SET status = 'dead' WHERE id = ?", { replacements: [deadRow.id] });
      t.false(await claimMessage(db, { id: deadRow.id, attempts: 0 }, claim('late', 1), now));
      t.like(await rowOf(dead), { status: 'dead', claim_token: null });
    } finally {
      await queue.close();
      await dispose();
    }
  });
}
