import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

/**
 * A job's choices among its template's enum parameters (ADR 050), kept at submit so the queue position counts only the
 * jobs that compete for the servers this job can run on. Jobs before this migration have '' (their template decides),
 * and so do rows written by a process that predates it (the default). On MariaDB the column is compared in binary:
 * model file names are case-sensitive, so two choices that differ in case are two groups. (Written as SQL there:
 * Sequelize leaves the default out of a binary column's definition.)
 */
export const jobFitChoices: Migration = {
  name: '025-job-fit-choices',
  async up(qi, dialect) {
    if (dialect === 'mysql') {
      await qi.sequelize.query("ALTER TABLE generation_jobs ADD COLUMN fit_choices VARCHAR(1000) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT ''");
    } else {
      await qi.addColumn('generation_jobs', 'fit_choices', { type: DataTypes.STRING(1000), allowNull: false, defaultValue: '' });
    }
  },
  async down(qi) {
    await qi.removeColumn('generation_jobs', 'fit_choices');
  },
};
