import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

const timestamp = (allowNull = false) => ({ type: DataTypes.DATE(3), allowNull });

/**
 * API keys (ADR 035). Numbered 015: 013 and 014 are taken by other branches of the same release. Only the
 * SHA-256 of a key is kept, found by its unique non-secret prefix; a user's keys go with the user.
 */
export const apiKeys: Migration = {
  name: '015-api-keys',
  async up(qi) {
    await qi.createTable('api_keys', {
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      user_id: { type: DataTypes.UUID, allowNull: false, references: { model: 'users', key: 'id' }, onDelete: 'CASCADE' },
      name: { type: DataTypes.STRING(64), allowNull: false },
      scopes: { type: DataTypes.STRING(128), allowNull: false },
      prefix: { type: DataTypes.STRING(32), allowNull: false },
      secret_hash: { type: DataTypes.STRING(64), allowNull: false },
      created_at: timestamp(),
      expires_at: timestamp(true),
      last_used_at: timestamp(true),
      revoked_at: timestamp(true),
    });
    await qi.addIndex('api_keys', ['prefix'], { name: 'api_keys_prefix', unique: true });
    await qi.addIndex('api_keys', ['user_id', 'created_at'], { name: 'api_keys_user' });
  },
  async down(qi) {
    await qi.dropTable('api_keys');
  },
};
