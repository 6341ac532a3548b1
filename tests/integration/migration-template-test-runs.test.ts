/**
 * Migration 021 on a database that already holds jobs: they are ordinary jobs (not test runs), still listed for their
 * owner; a test run inserted afterwards is left out of the list and found among its template's test runs; `down`
 * drops the column with the jobs intact.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { QueryTypes } from 'sequelize';
import { SequelizeJobRepository } from '../../adapters/sequelize/sequelize-job-repository.ts';
import { DATABASES } from '../support/databases.ts';
import { bareScope, databaseBefore, migrationAndBefore, withLaterMigrations } from '../support/migration-databases.ts';

const { before, migration: testRuns, after } = migrationAndBefore('021-template-test-runs');

for (const name of DATABASES) {
  test(`[${name}] 021 keeps existing jobs ordinary and listed, flags new test runs, and down drops the column with the jobs intact`, async (t) => {
    const { sequelize, dialect, userId, insert } = await databaseBefore(t, name, before, 'admin');
    const qi = sequelize.getQueryInterface();
    const templateId = randomUUID();
    const insertJob = (id: string, at: string, extra: string, values: unknown[]) =>
      insert(`INSERT INTO generation_jobs (id, user_id, template_id, status, workflow, used_parameters, image_refs, output_type, paid_coins, text_outputs, created_at, updated_at${extra}) VALUES (?, ?, ?, 'succeeded', '{}', '{}', '[]', 'image', 3, '[]', ?, ?${values.map(() => ', ?').join('')})`, [id, userId, templateId, at, at, ...values]);
    const old = randomUUID();
    await insertJob(old, '2026-01-01 10:00:00.000', '', []);

    await testRuns.up(qi, dialect);
    const run = randomUUID();
    await insertJob(run, '2026-01-01 10:01:00.000', ', test_run', [true]);
    // Reads only: the repository's read path on this bare connection (no transactions, no writes).
    await withLaterMigrations(sequelize, dialect, after, async () => {
      const jobs = new SequelizeJobRepository(bareScope(sequelize, dialect));
      t.false((await jobs.findById(old))!.testRun);
      t.true((await jobs.findById(run))!.testRun);
      t.deepEqual((await jobs.listForUser(userId, { page: 1, limit: 10 })).items.map((job) => job.id), [old]);
      t.deepEqual((await jobs.listTestRuns(templateId, 10)).map((job) => job.id), [run]);
    });

    await testRuns.down(qi, dialect);
    t.false(Object.keys(await qi.describeTable('generation_jobs')).includes('test_run'));
    const kept = await sequelize.query<{ id: string }>('SELECT id FROM generation_jobs', { type: QueryTypes.SELECT });
    t.deepEqual(kept.map((row) => row.id).sort(), [old, run].sort());
  });
}
