import { DataTypes } from 'sequelize';
import { longText, type Migration } from './migration.ts';

/**
 * Per-user event log for WebSocket replay. The counter row hands out each user's seq; it is kept
 * when events are purged so a user's seq never restarts. No foreign key to users: rows live 24 h.
 */
export const userEvents: Migration = {
  name: '006-user-events',
  async up(qi, dialect) {
    await qi.createTable('user_event_counters', {
      user_id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      seq: { type: DataTypes.INTEGER, allowNull: false },
    });
    await qi.createTable('user_events', {
      user_id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      seq: { type: DataTypes.INTEGER, primaryKey: true, allowNull: false },
      // LONGTEXT on MariaDB; SQLite's TEXT has no size (and Sequelize warns about the option there).
      payload: { type: longText(dialect), allowNull: false },
      created_at: { type: DataTypes.DATE(3), allowNull: false },
    });
    await qi.addIndex('user_events', ['created_at'], { name: 'user_events_created_at' });
  },
  async down(qi) {
    await qi.dropTable('user_events');
    await qi.dropTable('user_event_counters');
  },
};
