import { DataTypes } from 'sequelize';
import { longText, type Migration } from './migration.ts';

const timestamp = () => ({ type: DataTypes.DATE(3), allowNull: false });

/** The embedded queue (QUEUE_DRIVER=db) and the transactional outbox that feeds every queue driver. */
export const queueAndOutbox: Migration = {
  name: '004-queue-and-outbox',
  async up(qi, dialect) {
    await qi.createTable('queue_messages', {
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      message_id: { type: DataTypes.STRING(128), allowNull: false, unique: true },
      task_type: { type: DataTypes.STRING(32), allowNull: false },
      environment: { type: DataTypes.STRING(32), allowNull: false },
      body: { type: longText(dialect), allowNull: false },
      // ready (waiting or taken; taken = claim_token set and visible_at in the future) or dead.
      status: { type: DataTypes.STRING(8), allowNull: false, defaultValue: 'ready' },
      attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      visible_at: timestamp(),
      claim_token: { type: DataTypes.STRING(36), allowNull: true },
      last_error: { type: DataTypes.TEXT, allowNull: true },
      created_at: timestamp(),
      updated_at: timestamp(),
    });
    await qi.addIndex('queue_messages', ['status', 'environment', 'task_type', 'visible_at'], { name: 'queue_messages_ready' });

    await qi.createTable('outbox', {
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      message: { type: longText(dialect), allowNull: false },
      created_at: timestamp(),
      published_at: { type: DataTypes.DATE(3), allowNull: true },
    });
    await qi.addIndex('outbox', ['published_at', 'created_at'], { name: 'outbox_published' });
  },
  async down(qi) {
    await qi.dropTable('outbox');
    await qi.dropTable('queue_messages');
  },
};
