/**
 * The database queue's `ackWith` (ADR 045): a delivery acknowledged inside the handler's own transaction is done
 * exactly when that transaction commits. A rollback leaves the message to be settled as usual (here: retried at
 * once), a commit settles it even if the handler fails afterwards, and a delivery that lost its claim to another
 * consumer cannot acknowledge the other consumer's message.
 */
import 'reflect-metadata';
import test from 'ava';
import { QueryTypes } from 'sequelize';
import type { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import { SequelizeMessageQueue } from '../../adapters/sequelize/sequelize-message-queue.ts';
import { SequelizeUnitOfWork } from '../../adapters/sequelize/sequelize-unit-of-work.ts';
import type { DeliveredMessage, HandlerOutcome } from '../../core/ports/queue.port.ts';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { openMigratedDatabase } from '../support/migrated-database.ts';
import { quietLogger } from '../support/generation-harness.ts';

const open = openMigratedDatabase;

const statusOf = async (db: SequelizeDatabase, messageId: string) =>
  (await db.sequelize.query<{ status: string; claim_token: string | null }>('SELECT status, claim_token FROM queue_messages WHERE message_id = ?', { replacements: [messageId], type: QueryTypes.SELECT }))[0];

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Consumes one environment's generation messages with `handler`; a visibility far longer than the test, so only a settle brings a message back. */
async function consume(kind: TestDatabase, handler: (message: DeliveredMessage, uow: SequelizeUnitOfWork, db: SequelizeDatabase) => Promise<HandlerOutcome>) {
  const { db, dispose } = await open(kind);
  const uow = new SequelizeUnitOfWork(db);
  const queue = new SequelizeMessageQueue(db, { logger: quietLogger, pollIntervalMs: 20 });
  const { messageId } = await queue.publish({ taskType: 'generation', environment: 'ack', body: { jobId: 'j1' } });
  const seen: number[] = [];
  const consumer = await queue.consume({ taskTypes: ['generation'], environment: 'ack', concurrency: 1, maxAttempts: 5, visibilitySeconds: 60 }, async (message) => {
    seen.push(message.attempt);
    return handler(message, uow, db);
  });
  return {
    db,
    messageId,
    seen,
    async stop() {
      await consumer.stop();
      await queue.close();
      await dispose();
    },
  };
}

for (const kind of DATABASES) {
  test.serial(`${kind}: an ack made in a transaction that rolls back is undone, and the handler's retry brings the message back`, async (t) => {
    const run = await consume(kind, async (message, uow) => {
      if (message.attempt === 1) {
        await t.throwsAsync(
          uow.run(async (tx) => {
            await message.ackWith!(tx);
            throw new Error('the work after the ack failed');
          }),
        );
        return { action: 'retry', delaySeconds: 0 };
      }
      await uow.run((tx) => message.ackWith!(tx));
      return { action: 'ack' };
    });
    try {
      await until(() => run.seen.length >= 2);
      await until(async () => (await statusOf(run.db, run.messageId))?.status === 'done');
      await new Promise((resolve) => setTimeout(resolve, 200));
      t.deepEqual(run.seen, [1, 2], 'delivered again after the rollback, then once acknowledged never again');
      t.like(await statusOf(run.db, run.messageId), { status: 'done', claim_token: null });
    } finally {
      await run.stop();
    }
  });

  test.serial(`${kind}: an ack committed with the handler's transaction settles the message even when the handler throws afterwards`, async (t) => {
    const run = await consume(kind, async (message, uow) => {
      await uow.run((tx) => message.ackWith!(tx));
      throw new Error('the handler failed after its transaction committed');
    });
    try {
      await until(async () => (await statusOf(run.db, run.messageId))?.status === 'done');
      await new Promise((resolve) => setTimeout(resolve, 300));
      t.deepEqual(run.seen, [1], 'not retried: its ack committed');
      t.like(await statusOf(run.db, run.messageId), { status: 'done', claim_token: null });
    } finally {
      await run.stop();
    }
  });

  test.serial(`${kind}: a delivery that lost its claim cannot acknowledge the message another delivery now holds`, async (t) => {
    const run = await consume(kind, async (message, uow, db) => {
      // Another consumer took the message over (this delivery's visibility ran out): the row carries its token.
      await db.sequelize.query("UPDATE queue_messages SET claim_token = 'someone-else' WHERE message_id = ?", { replacements: [message.id] });
      await uow.run((tx) => message.ackWith!(tx));
      return { action: 'ack' };
    });
    try {
      await until(() => run.seen.length === 1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      t.like(await statusOf(run.db, run.messageId), { status: 'ready', claim_token: 'someone-else' }, 'still the other delivery\'s');
    } finally {
      await run.stop();
    }
  });
}
