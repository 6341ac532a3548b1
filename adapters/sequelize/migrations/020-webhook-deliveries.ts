import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

const timestamp = (allowNull = false) => ({ type: DataTypes.DATE(3), allowNull });
// A function: Sequelize rewrites the attribute objects it is given (a shared one would carry one dialect's SQL into the next).
const job = () => ({ type: DataTypes.UUID, allowNull: false, references: { model: 'generation_jobs', key: 'id' }, onDelete: 'CASCADE' });

/**
 * A job's webhook and its deliveries (ADR 036). 020 because other branches take 017 to 019. A delivery row is
 * written in the transaction of the job's move and owns its retry schedule; `claimed_by`/`claim_until` mark the
 * worker sending it (an expired claim is taken again: at-least-once).
 */
export const webhookDeliveries: Migration = {
  name: '020-webhook-deliveries',
  async up(qi) {
    await qi.createTable('job_webhooks', {
      job_id: { ...job(), primaryKey: true },
      user_id: { type: DataTypes.UUID, allowNull: false },
      url: { type: DataTypes.STRING(2048), allowNull: false },
      events: { type: DataTypes.STRING(64), allowNull: false },
      created_at: timestamp(),
    });
    await qi.createTable('webhook_deliveries', {
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      job_id: job(),
      user_id: { type: DataTypes.UUID, allowNull: false },
      url: { type: DataTypes.STRING(2048), allowNull: false },
      event: { type: DataTypes.STRING(16), allowNull: false },
      // MEDIUMTEXT on MariaDB: a completed payload lists every output.
      payload: { type: qi.sequelize.getDialect() === 'sqlite' ? DataTypes.TEXT : DataTypes.TEXT('medium'), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      first_attempt_at: timestamp(true),
      next_attempt_at: timestamp(true),
      claimed_by: { type: DataTypes.STRING(64), allowNull: true },
      claim_until: timestamp(true),
      last_status_code: { type: DataTypes.INTEGER, allowNull: true },
      last_error: { type: DataTypes.STRING(512), allowNull: true },
      created_at: timestamp(),
      updated_at: timestamp(),
    });
    await qi.addIndex('webhook_deliveries', ['status', 'next_attempt_at'], { name: 'webhook_deliveries_due' });
    await qi.addIndex('webhook_deliveries', ['job_id', 'created_at'], { name: 'webhook_deliveries_job' });
  },
  async down(qi) {
    await qi.dropTable('webhook_deliveries');
    await qi.dropTable('job_webhooks');
  },
};
