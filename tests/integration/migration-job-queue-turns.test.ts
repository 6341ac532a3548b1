/**
 * Migration 022 on a database that already holds jobs: a queued job whose database-queue message waits gets that
 * message's place (`fair_seq`) as its turn, so it keeps its place in line; every other job gets turn 1; the position
 * then counts by the stored turn; and `down` drops the column with the jobs intact.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { QueryTypes } from 'sequelize';
import { SequelizeJobRepository } from '../../adapters/sequelize/sequelize-job-repository.ts';
import { DATABASES } from '../support/databases.ts';
import { bareScope, migrationAndBefore, openEmptyDatabase, withLaterMigrations } from '../support/migration-databases.ts';

const { before, migration: jobQueueTurns, after } = migrationAndBefore('022-job-queue-turns');

for (const name of DATABASES) {
  test(`[${name}] 022 gives a waiting job its message's place as its turn and every other job turn 1; down drops the column with the jobs intact`, async (t) => {
    const { sequelize, dialect, dispose } = await openEmptyDatabase(name);
    t.teardown(dispose);
    const qi = sequelize.getQueryInterface();
    for (const migration of before) await migration.up(qi, dialect);

    const userId = randomUUID();
    // As the application writes times (SQLite: with the offset, which text comparisons rely on).
    const at = (s: number) => `2026-01-01 10:00:0${s}.000${dialect === 'sqlite' ? ' +00:00' : ''}`;
    const insert = (sql: string, replacements: unknown[]) => sequelize.query(sql, { replacements, type: QueryTypes.INSERT });
    await insert('INSERT INTO users (id, email, display_name, role, coin_balance, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [userId, `${userId}@example.com`, 'U', 'user', 100, null, at(0), at(0)]);
    const insertJob = (id: string, status: string, s: number) =>
      insert(`INSERT INTO generation_jobs (id, user_id, status, workflow, used_parameters, image_refs, output_type, paid_coins, text_outputs, created_at, updated_at) VALUES (?, ?, ?, '{}', '{}', '[]', 'image', 7, '[]', ?, ?)`, [id, userId, status, at(s), at(s)]);
    const insertMessage = (jobId: string, status: string, fairSeq: number) =>
      insert(
        `INSERT INTO queue_messages (id, message_id, task_type, environment, body, status, attempts, visible_at, claim_token, last_error, fair_key, fair_seq, created_at, updated_at)
         VALUES (?, ?, 'generation', 'local', ?, ?, 0, ?, NULL, NULL, ?, ?, ?, ?)`,
        [randomUUID(), randomUUID(), JSON.stringify({ jobId, userId, workflow: {}, outputType: 'image' }), status, at(1), userId, fairSeq, at(1), at(1)],
      );
    const [waiting, unlisted, done] = [randomUUID(), randomUUID(), randomUUID()];
    await insertJob(waiting, 'queued', 1);
    await insertMessage(waiting, 'ready', 3); // the owner had two jobs in line when it was sent
    await insertJob(unlisted, 'queued', 2); // its message is on another queue
    await insertJob(done, 'succeeded', 3);
    await insertMessage(done, 'done', 2);

    await jobQueueTurns.up(qi, dialect);
    const turns = await sequelize.query<{ id: string; queue_turn: number }>('SELECT id, queue_turn FROM generation_jobs', { type: QueryTypes.SELECT });
    t.deepEqual(Object.fromEntries(turns.map((row) => [row.id, Number(row.queue_turn)])), { [waiting]: 3, [unlisted]: 1, [done]: 1 });
    await withLaterMigrations(sequelize, dialect, after, async () => {
      const jobs = new SequelizeJobRepository(bareScope(sequelize, dialect));
      const first = (await jobs.findById(waiting))!;
      const second = (await jobs.findById(unlisted))!;
      t.deepEqual([first.queueTurn, second.queueTurn, first.paidCoins], [3, 1, 7]);
      t.deepEqual(await jobs.queuedAhead([second], 'owner-turns'), [[]], 'turn 1 goes first');
      t.deepEqual(await jobs.queuedAhead([first], 'owner-turns'), [[{ templateId: null, fitChoices: '', count: 1 }]]);
    });

    await jobQueueTurns.down(qi, dialect);
    t.false(Object.keys(await qi.describeTable('generation_jobs')).includes('queue_turn'));
    const kept = await sequelize.query<{ id: string }>('SELECT id FROM generation_jobs', { type: QueryTypes.SELECT });
    t.deepEqual(kept.map((row) => row.id).sort(), [waiting, unlisted, done].sort());
  });
}
