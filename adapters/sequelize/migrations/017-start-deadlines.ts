import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

/**
 * A job may carry a time-to-start deadline (ADR 037): a queued job not taken by then ends `expired`. The index
 * serves the sweep, which looks for queued jobs whose deadline has passed. Existing jobs have none.
 */
export const startDeadlines: Migration = {
  name: '017-start-deadlines',
  async up(qi) {
    await qi.addColumn('generation_jobs', 'start_deadline', { type: DataTypes.DATE(3), allowNull: true });
    await qi.addIndex('generation_jobs', ['status', 'start_deadline'], { name: 'generation_jobs_start_deadline' });
  },
  async down(qi) {
    await qi.removeIndex('generation_jobs', 'generation_jobs_start_deadline');
    await qi.removeColumn('generation_jobs', 'start_deadline');
  },
};
