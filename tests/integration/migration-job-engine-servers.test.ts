/**
 * Migration 023 on a database that already holds succeeded jobs: they get no engine server (so they count only in the
 * run estimates' fallbacks), a job that names its server is found by it, and `down` drops the column and the index
 * with the jobs intact.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { QueryTypes } from 'sequelize';
import { SequelizeJobRepository } from '../../adapters/sequelize/sequelize-job-repository.ts';
import { DATABASES } from '../support/databases.ts';
import { bareScope, databaseBefore, migrationAndBefore, withLaterMigrations } from '../support/migration-databases.ts';

const { before, migration: jobEngineServers, after } = migrationAndBefore('023-job-engine-servers');

for (const name of DATABASES) {
  test(`[${name}] 023 leaves existing successes without a server, finds a success by its server, and down drops the column with the jobs intact`, async (t) => {
    const { sequelize, dialect, userId, insert } = await databaseBefore(t, name, before);
    const qi = sequelize.getQueryInterface();
    const templateId = randomUUID();
    const at = '2026-01-01 10:00:00.000';
    /** A job of the template that ran from 10:00:00 to `finished`. */
    const insertJob = (id: string, finished: string, extra: string, values: unknown[]) =>
      insert(
        `INSERT INTO generation_jobs (id, user_id, template_id, status, workflow, used_parameters, image_refs, output_type, paid_coins, text_outputs, created_at, updated_at, started_at, finished_at${extra})
         VALUES (?, ?, ?, 'succeeded', '{}', '{}', '[]', 'image', 7, '[]', ?, ?, ?, ?${values.map(() => ', ?').join('')})`,
        [id, userId, templateId, at, at, at, finished, ...values],
      );
    const old = randomUUID();
    await insertJob(old, '2026-01-01 10:00:04.000', '', []);

    await jobEngineServers.up(qi, dialect);
    const onServer = randomUUID();
    await insertJob(onServer, '2026-01-01 10:00:09.000', ', engine_server', [2]);
    await withLaterMigrations(sequelize, dialect, after, async () => {
      const jobs = new SequelizeJobRepository(bareScope(sequelize, dialect));
      t.deepEqual(await jobs.recentRunTimes(templateId, 10, [2]), [9_000]);
      t.deepEqual(await jobs.recentRunTimes(templateId, 10, [1]), [], 'the old success names no server');
      t.deepEqual(await jobs.recentRunTimes(templateId, 10), [9_000, 4_000]);
      t.is((await jobs.findById(old))!.paidCoins, 7);
    });

    await jobEngineServers.down(qi, dialect);
    t.false(Object.keys(await qi.describeTable('generation_jobs')).includes('engine_server'));
    const kept = await sequelize.query<{ id: string }>('SELECT id FROM generation_jobs', { type: QueryTypes.SELECT });
    t.deepEqual(kept.map((row) => row.id).sort(), [old, onServer].sort());
  });
}
