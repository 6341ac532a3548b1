import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

/**
 * A job may be an administrator's test run of a template (ADR 043): charged to nobody, and left out of its owner's
 * job list and output history. The index serves the list of a template's test runs, newest first, and the
 * history's lookup of the (few) test-run jobs it leaves out. Existing jobs are ordinary ones.
 */
export const templateTestRuns: Migration = {
  name: '021-template-test-runs',
  async up(qi) {
    await qi.addColumn('generation_jobs', 'test_run', { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false });
    await qi.addIndex('generation_jobs', ['test_run', 'template_id', 'created_at'], { name: 'generation_jobs_test_runs' });
  },
  async down(qi) {
    await qi.removeIndex('generation_jobs', 'generation_jobs_test_runs');
    await qi.removeColumn('generation_jobs', 'test_run');
  },
};
