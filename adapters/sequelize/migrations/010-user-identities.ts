import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

/**
 * OpenID Connect identities linked to users: one row per (provider, subject), at most one per user and
 * provider. Removed with their user.
 */
export const userIdentities: Migration = {
  name: '010-user-identities',
  async up(qi) {
    await qi.createTable('user_identities', {
      provider: { type: DataTypes.STRING(64), primaryKey: true, allowNull: false },
      subject: { type: DataTypes.STRING(255), primaryKey: true, allowNull: false },
      user_id: { type: DataTypes.UUID, allowNull: false, references: { model: 'users', key: 'id' }, onDelete: 'CASCADE' },
      email: { type: DataTypes.STRING(254), allowNull: true },
      created_at: { type: DataTypes.DATE(3), allowNull: false },
    });
    await qi.addIndex('user_identities', ['user_id', 'provider'], { name: 'user_identities_user_provider', unique: true });
  },
  async down(qi) {
    await qi.dropTable('user_identities');
  },
};
