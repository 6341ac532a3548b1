import { DataTypes } from 'sequelize';
import { longText, type Migration } from './migration.ts';

const timestamp = (allowNull = false) => ({ type: DataTypes.DATE(3), allowNull });
// SQLite's TEXT has no size variants (and Sequelize warns when asked for one).

/** Idempotency keys (per user, remembered 24 h) and the administrators' audit log. */
export const coins: Migration = {
  name: '002-coins',
  async up(qi, dialect) {
    await qi.createTable('idempotency_keys', {
      user_id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      // Binary: keys are case-sensitive, whatever the database's default collation.
      idem_key: { type: DataTypes.STRING(128).BINARY, primaryKey: true, allowNull: false },
      fingerprint: { type: DataTypes.STRING(64), allowNull: false },
      token: { type: DataTypes.UUID, allowNull: false },
      response_status: { type: DataTypes.INTEGER, allowNull: true },
      response_body: { type: longText(dialect), allowNull: true },
      claimed_at: timestamp(),
      completed_at: timestamp(true),
      expires_at: timestamp(),
    });
    await qi.addIndex('idempotency_keys', ['expires_at'], { name: 'idempotency_keys_expires' });

    await qi.createTable('audit_log', {
      // Insertion order breaks ties between entries of the same millisecond.
      seq: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
      id: { type: DataTypes.UUID, allowNull: false, unique: true },
      // No foreign keys: the audit trail outlives the accounts it mentions.
      actor_id: { type: DataTypes.UUID, allowNull: false },
      action: { type: DataTypes.STRING(64), allowNull: false },
      target_user_id: { type: DataTypes.UUID, allowNull: true },
      details: { type: longText(dialect), allowNull: false },
      created_at: timestamp(),
    });
    await qi.addIndex('audit_log', ['created_at'], { name: 'audit_log_created' });
    await qi.addIndex('audit_log', ['target_user_id'], { name: 'audit_log_target' });
  },
  async down(qi) {
    await qi.dropTable('audit_log');
    await qi.dropTable('idempotency_keys');
  },
};
