import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

/**
 * When a running job that is waiting out a retry delay runs again (null otherwise, and for jobs before this migration),
 * so its ETA and the slot it will take count the wait (ADR 037).
 */
export const jobRetryAt: Migration = {
  name: '024-job-retry-at',
  async up(qi) {
    await qi.addColumn('generation_jobs', 'retry_at', { type: DataTypes.DATE(3), allowNull: true });
  },
  async down(qi) {
    await qi.removeColumn('generation_jobs', 'retry_at');
  },
};
