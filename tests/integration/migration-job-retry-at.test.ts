/**
 * Migration 024 on a database that already holds a running job: it is not waiting out a retry (null), a retry time
 * written afterwards reads back and reaches the running work of the estimates, and `down` drops the column with the
 * jobs intact.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { QueryTypes } from 'sequelize';
import { SequelizeJobRepository } from '../../adapters/sequelize/sequelize-job-repository.ts';
import { DATABASES } from '../support/databases.ts';
import { bareScope, databaseBefore, migrationAndBefore, withLaterMigrations } from '../support/migration-databases.ts';

const { before, migration: jobRetryAt, after } = migrationAndBefore('024-job-retry-at');

for (const name of DATABASES) {
  test(`[${name}] 024 leaves running jobs not waiting, keeps a retry time written later, and down drops the column with the jobs intact`, async (t) => {
    const { sequelize, dialect, userId, insert } = await databaseBefore(t, name, before);
    const qi = sequelize.getQueryInterface();
    const at = '2026-01-01 10:00:00.000';
    const [old, later] = [randomUUID(), randomUUID()];
    const insertRunning = (id: string, runId: string) =>
      insert(
        `INSERT INTO generation_jobs (id, user_id, status, workflow, used_parameters, image_refs, output_type, paid_coins, text_outputs, run_id, created_at, updated_at, started_at)
         VALUES (?, ?, 'running', '{}', '{}', '[]', 'image', 3, '[]', ?, ?, ?, ?)`,
        [id, userId, runId, at, at, at],
      );
    await insertRunning(old, 'run-old');

    await jobRetryAt.up(qi, dialect);
    await insertRunning(later, 'run-later');
    await withLaterMigrations(sequelize, dialect, after, async () => {
      const jobs = new SequelizeJobRepository(bareScope(sequelize, dialect));
      t.is((await jobs.findById(old))!.retryAt, null);
      const due = new Date('2026-01-01T10:00:30.000Z');
      t.true(await jobs.updateRunning(later, 'run-later', { retryAt: due }, new Date('2026-01-01T10:00:05.000Z')));
      t.deepEqual((await jobs.findById(later))!.retryAt, due);
      t.deepEqual((await jobs.runningWork(10)).map((work) => work.retryAt).sort(), [due, null].sort());
      t.is((await jobs.findById(old))!.paidCoins, 3);
    });

    await jobRetryAt.down(qi, dialect);
    t.false(Object.keys(await qi.describeTable('generation_jobs')).includes('retry_at'));
    const kept = await sequelize.query<{ id: string }>('SELECT id FROM generation_jobs', { type: QueryTypes.SELECT });
    t.deepEqual(kept.map((row) => row.id).sort(), [old, later].sort());
  });
}
