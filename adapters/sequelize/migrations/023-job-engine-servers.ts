import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

/**
 * Which engine server ran a succeeded job (1-based, as in COMFYUI_URLS; null before this migration, for the builtin
 * engine and for a single server), so run estimates learn per template and server (ADR 037). The index serves those
 * reads: a template's latest finishes first.
 */
export const jobEngineServers: Migration = {
  name: '023-job-engine-servers',
  async up(qi) {
    await qi.addColumn('generation_jobs', 'engine_server', { type: DataTypes.INTEGER, allowNull: true });
    await qi.addIndex('generation_jobs', ['template_id', 'finished_at'], { name: 'generation_jobs_template_finished' });
  },
  async down(qi) {
    await qi.removeIndex('generation_jobs', 'generation_jobs_template_finished');
    await qi.removeColumn('generation_jobs', 'engine_server');
  },
};
