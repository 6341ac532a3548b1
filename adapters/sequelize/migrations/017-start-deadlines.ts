import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

/**
 * A job may carry a time-to-start deadline (ADR 037): a queued job not taken by then ends `expired`. The index
 * serves the sweep, which looks for queued jobs whose deadline has passed. Existing jobs have none.
 * `announced_position` is the queue position last sent to the owner (`job.queue`), so it is sent only when it changes.
 */
export const startDeadlines: Migration = {
  name: '017-start-deadlines',
  async up(qi) {
    await qi.addColumn('generation_jobs', 'start_deadline', { type: DataTypes.DATE(3), allowNull: true });
    await qi.addIndex('generation_jobs', ['status', 'start_deadline'], { name: 'generation_jobs_start_deadline' });
    await qi.addColumn('generation_jobs', 'announced_position', { type: DataTypes.INTEGER, allowNull: true });
  },
  async down(qi) {
    await qi.removeColumn('generation_jobs', 'announced_position');
    await qi.removeIndex('generation_jobs', 'generation_jobs_start_deadline');
    await qi.removeColumn('generation_jobs', 'start_deadline');
  },
};
