import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

/**
 * The W3C trace context a message was published with (ADR 031), as JSON: the database queue hands it back on
 * delivery so the worker's spans continue the request's trace. Null when tracing is off.
 */
export const queueTraceContext: Migration = {
  name: '013-queue-trace-context',
  async up(qi) {
    await qi.addColumn('queue_messages', 'trace', { type: DataTypes.STRING(1024), allowNull: true });
  },
  async down(qi) {
    await qi.removeColumn('queue_messages', 'trace');
  },
};
