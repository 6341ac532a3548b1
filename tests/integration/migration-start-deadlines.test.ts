/**
 * Migration 017 on a database that already holds jobs: the jobs keep every field and get no start deadline (so
 * none of them expires), a new job can carry one, the sweep's query finds an overdue one, and `down` drops the
 * column again with the jobs intact.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { QueryTypes } from 'sequelize';
import { SequelizeJobRepository } from '../../adapters/sequelize/sequelize-job-repository.ts';
import { DATABASES } from '../support/databases.ts';
import { bareScope, migrationAndBefore, openEmptyDatabase, withLaterMigrations } from '../support/migration-databases.ts';

const MIGRATION = '017-start-deadlines';
const { before, migration: startDeadlines, after } = migrationAndBefore(MIGRATION);

for (const name of DATABASES) {
  test(`[${name}] 017 gives existing jobs no start deadline, stores new ones, and down drops the column with the jobs intact`, async (t) => {
    const { sequelize, dialect, dispose } = await openEmptyDatabase(name);
    t.teardown(dispose);
    const qi = sequelize.getQueryInterface();
    for (const migration of before) await migration.up(qi, dialect);

    const userId = randomUUID();
    const at = '2026-01-01 10:00:00.000';
    const insert = (sql: string, replacements: unknown[]) => sequelize.query(sql, { replacements, type: QueryTypes.INSERT });
    await insert('INSERT INTO users (id, email, display_name, role, coin_balance, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [userId, `${userId}@example.com`, 'U', 'user', 100, null, at, at]);
    const insertJob = (id: string, extra: string, values: unknown[]) =>
      insert(`INSERT INTO generation_jobs (id, user_id, status, workflow, used_parameters, image_refs, output_type, paid_coins, text_outputs, created_at, updated_at${extra}) VALUES (?, ?, 'queued', '{}', '{}', '[]', 'image', 7, '[]', ?, ?${values.map(() => ', ?').join('')})`, [id, userId, at, at, ...values]);
    const old = randomUUID();
    await insertJob(old, '', []);

    await startDeadlines.up(qi, dialect);
    t.true(Object.keys(await qi.describeTable('generation_jobs')).includes('announced_position'));
    const overdue = randomUUID();
    await insertJob(overdue, ', start_deadline', ['2026-01-01 10:00:30.000']);
    // Reads only: the repository's read path on this bare connection (no transactions, no writes).
    await withLaterMigrations(sequelize, dialect, after, async () => {
      const jobs = new SequelizeJobRepository(bareScope(sequelize, dialect));
      t.is((await jobs.findById(old))!.startDeadline, null);
      t.is((await jobs.findById(old))!.paidCoins, 7);
      t.deepEqual((await jobs.findById(overdue))!.startDeadline, new Date('2026-01-01T10:00:30.000Z'));
      t.deepEqual((await jobs.listPastStartDeadline(new Date('2026-01-01T10:00:30.000Z'), 10)).map((job) => job.id), [overdue]);
      t.deepEqual(await jobs.listPastStartDeadline(new Date('2026-01-01T10:00:29.999Z'), 10), []);
    });

    await startDeadlines.down(qi, dialect);
    const columns = Object.keys(await qi.describeTable('generation_jobs'));
    t.false(columns.includes('start_deadline'));
    t.false(columns.includes('announced_position'));
    const kept = await sequelize.query<{ id: string }>('SELECT id FROM generation_jobs ORDER BY created_at, id', { type: QueryTypes.SELECT });
    t.deepEqual(kept.map((row) => row.id).sort(), [old, overdue].sort());
  });
}
