import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

/**
 * The engine server a job was handed to (1-based, as in COMFYUI_URLS; null before it starts, before this migration
 * and for the builtin engine), so run estimates learn per template and server (ADR 037) and an operator sees which GPU
 * ran a job. The index serves those reads: a template's latest finishes first.
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
