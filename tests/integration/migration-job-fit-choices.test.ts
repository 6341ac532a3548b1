/**
 * Migration 025 on a database that already holds queued jobs: they have no choices ('', so their template alone places
 * them), a job written afterwards keeps its choices (case and all) and is counted apart in the queue ahead, and `down`
 * drops the column with the jobs intact.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { QueryTypes } from 'sequelize';
import { SequelizeJobRepository } from '../../adapters/sequelize/sequelize-job-repository.ts';
import { sqlTime } from '../../adapters/sequelize/sql-scope.ts';
import { DATABASES } from '../support/databases.ts';
import { bareScope, databaseBefore, migrationAndBefore, withLaterMigrations } from '../support/migration-databases.ts';

const { before, migration: jobFitChoices, after } = migrationAndBefore('025-job-fit-choices');

for (const name of DATABASES) {
  test(`[${name}] 025 gives queued jobs no choices, keeps the choices of a job written later, and down drops the column with the jobs intact`, async (t) => {
    const { sequelize, dialect, userId, insert } = await databaseBefore(t, name, before);
    const qi = sequelize.getQueryInterface();
    const [old, later, last] = [randomUUID(), randomUUID(), randomUUID()];
    // Times as the application writes them, so the queue's comparisons see the same text.
    const insertQueued = (id: string, second: number, at = sqlTime(new Date(Date.UTC(2026, 0, 1, 10, 0, second)), dialect)) =>
      insert(
        `INSERT INTO generation_jobs (id, user_id, status, workflow, used_parameters, image_refs, output_type, paid_coins, text_outputs, queue_turn, created_at, updated_at)
         VALUES (?, ?, 'queued', '{}', '{}', '[]', 'image', 3, '[]', 1, ?, ?)`,
        [id, userId, at, at],
      );
    await insertQueued(old, 0);

    await jobFitChoices.up(qi, dialect);
    await insertQueued(later, 1);
    await insertQueued(last, 2);
    const chosen = JSON.stringify({ ckpt: 'Flux.safetensors' });
    await sequelize.query('UPDATE generation_jobs SET fit_choices = ? WHERE id = ?', { replacements: [chosen, later] });
    await withLaterMigrations(sequelize, dialect, after, async () => {
      const jobs = new SequelizeJobRepository(bareScope(sequelize, dialect));
      t.is((await jobs.findById(old))!.fitChoices, '');
      t.is((await jobs.findById(later))!.fitChoices, chosen);
      const [ahead] = await jobs.queuedAhead([(await jobs.findById(last))!], 'arrival');
      t.deepEqual([...ahead].sort((a, b) => (a.fitChoices < b.fitChoices ? -1 : 1)), [
        { templateId: null, fitChoices: '', count: 1 },
        { templateId: null, fitChoices: chosen, count: 1 },
      ]);
      t.is((await jobs.findById(old))!.paidCoins, 3);
    });

    await jobFitChoices.down(qi, dialect);
    t.false(Object.keys(await qi.describeTable('generation_jobs')).includes('fit_choices'));
    const kept = await sequelize.query<{ id: string }>('SELECT id FROM generation_jobs', { type: QueryTypes.SELECT });
    t.deepEqual(kept.map((row) => row.id).sort(), [old, later, last].sort());
  });
}
