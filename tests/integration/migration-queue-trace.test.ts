/**
 * Migration 013 (the database queue's `trace` column) with messages in flight: a message waiting since before the
 * upgrade is delivered afterwards, without a trace context; `down` drops the column and keeps the messages.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { queueTraceContext } from '../../adapters/sequelize/migrations/013-queue-trace-context.ts';
import { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import { SequelizeMessageQueue } from '../../adapters/sequelize/sequelize-message-queue.ts';
import { createMariaDatabase, DATABASES } from '../support/databases.ts';

const columnsOf = async (db: SequelizeDatabase) => Object.keys(await db.sequelize.getQueryInterface().describeTable('queue_messages'));

for (const name of DATABASES) {
  test(`[${name}] 013 adds the trace column under waiting messages, which are then delivered without a trace; down removes it`, async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mgs-migration-013-'));
    const maria = name === 'mariadb' ? await createMariaDatabase() : null;
    const db = new SequelizeDatabase(maria ? { url: maria.url, dialect: 'mysql' } : { url: 'sqlite:', dialect: 'sqlite', storagePath: path.join(dir, 'app.db') });
    t.teardown(async () => {
      await db.close();
      await maria?.drop();
      rmSync(dir, { recursive: true, force: true });
    });
    await db.migrate();
    const qi = db.sequelize.getQueryInterface();
    await queueTraceContext.down(qi, db.dialect);
    t.false((await columnsOf(db)).includes('trace'));
    // A message of the version before 013, written without the column.
    await db.sequelize.query(
      `INSERT INTO queue_messages (id, message_id, task_type, environment, body, status, attempts, visible_at, fair_key, fair_seq, created_at, updated_at)
       VALUES ('00000000-0000-4000-8000-000000000013', 'before-013', 'generation', 'upgrade', '{"jobId":"j"}', 'ready', 0, :at, NULL, 0, :at, :at)`,
      { replacements: { at: new Date(Date.now() - 1000) } },
    );

    await queueTraceContext.up(qi, db.dialect);
    t.true((await columnsOf(db)).includes('trace'));
    const queue = new SequelizeMessageQueue(db, { pollIntervalMs: 20 });
    const seen: { id: string; body: unknown; trace: unknown; hasTrace: boolean }[] = [];
    const consumer = await queue.consume({ taskTypes: ['generation'], environment: 'upgrade', concurrency: 1, maxAttempts: 3, visibilitySeconds: 5 }, async (message) => {
      seen.push({ id: message.id, body: message.body, trace: message.trace, hasTrace: 'trace' in message });
      return { action: 'ack' };
    });
    const deadline = Date.now() + 10_000;
    while (seen.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await consumer.stop();
    t.deepEqual(seen, [{ id: 'before-013', body: { jobId: 'j' }, trace: undefined, hasTrace: false }]);

    await queueTraceContext.down(qi, db.dialect);
    t.false((await columnsOf(db)).includes('trace'));
    const [rows] = await db.sequelize.query(`SELECT message_id, status FROM queue_messages WHERE environment = 'upgrade'`);
    t.deepEqual(rows, [{ message_id: 'before-013', status: 'done' }]);
  });
}
