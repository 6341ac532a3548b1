import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

const timestamp = () => ({ type: DataTypes.DATE(3), allowNull: false });

export const usersAndSessions: Migration = {
  name: '001-users-and-sessions',
  async up(qi) {
    await qi.createTable('users', {
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      email: { type: DataTypes.STRING(254), allowNull: false, unique: true },
      display_name: { type: DataTypes.STRING(64), allowNull: false },
      role: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'user' },
      coin_balance: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      password_hash: { type: DataTypes.STRING(255), allowNull: true },
      created_at: timestamp(),
      updated_at: timestamp(),
    });
    await qi.addIndex('users', ['created_at'], { name: 'users_created_at' });

    await qi.createTable('refresh_sessions', {
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      user_id: { type: DataTypes.UUID, allowNull: false, references: { model: 'users', key: 'id' }, onDelete: 'CASCADE' },
      family_id: { type: DataTypes.UUID, allowNull: false },
      token_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      expires_at: timestamp(),
      rotated_at: { type: DataTypes.DATE(3), allowNull: true },
      revoked_at: { type: DataTypes.DATE(3), allowNull: true },
      created_at: timestamp(),
    });
    await qi.addIndex('refresh_sessions', ['family_id'], { name: 'refresh_sessions_family' });

    await qi.createTable('coin_transactions', {
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      user_id: { type: DataTypes.UUID, allowNull: false, references: { model: 'users', key: 'id' }, onDelete: 'CASCADE' },
      amount: { type: DataTypes.INTEGER, allowNull: false },
      reason: { type: DataTypes.STRING(32), allowNull: false },
      related_entity_id: { type: DataTypes.STRING(128), allowNull: true },
      balance_after: { type: DataTypes.INTEGER, allowNull: false },
      actor_id: { type: DataTypes.UUID, allowNull: true },
      created_at: timestamp(),
    });
    await qi.addIndex('coin_transactions', ['user_id', 'created_at'], { name: 'coin_transactions_user_created' });
    await qi.addIndex('coin_transactions', ['related_entity_id'], { name: 'coin_transactions_related' });
  },
  async down(qi) {
    await qi.dropTable('coin_transactions');
    await qi.dropTable('refresh_sessions');
    await qi.dropTable('users');
  },
};
