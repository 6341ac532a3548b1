import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

/**
 * Social connections (tokens sealed by the application, never in the clear) and publications of outputs,
 * one row per (output, platform). Both go with their user; publications go with their output.
 */
export const social: Migration = {
  name: '011-social',
  async up(qi) {
    await qi.createTable('social_connections', {
      user_id: { type: DataTypes.UUID, primaryKey: true, allowNull: false, references: { model: 'users', key: 'id' }, onDelete: 'CASCADE' },
      platform: { type: DataTypes.STRING(16), primaryKey: true, allowNull: false },
      access_token: { type: DataTypes.TEXT, allowNull: false },
      refresh_token: { type: DataTypes.TEXT, allowNull: true },
      expires_at: { type: DataTypes.DATE(3), allowNull: true },
      account_id: { type: DataTypes.STRING(255), allowNull: true },
      scope: { type: DataTypes.STRING(1024), allowNull: true },
      version: { type: DataTypes.INTEGER, allowNull: false },
      created_at: { type: DataTypes.DATE(3), allowNull: false },
      updated_at: { type: DataTypes.DATE(3), allowNull: false },
    });
    await qi.createTable('publications', {
      output_id: { type: DataTypes.UUID, primaryKey: true, allowNull: false, references: { model: 'history_items', key: 'id' }, onDelete: 'CASCADE' },
      platform: { type: DataTypes.STRING(16), primaryKey: true, allowNull: false },
      user_id: { type: DataTypes.UUID, allowNull: false, references: { model: 'users', key: 'id' }, onDelete: 'CASCADE' },
      status: { type: DataTypes.STRING(16), allowNull: false },
      attempt_id: { type: DataTypes.UUID, allowNull: false },
      title: { type: DataTypes.STRING(100), allowNull: false },
      description: { type: DataTypes.TEXT, allowNull: false },
      privacy: { type: DataTypes.STRING(16), allowNull: false },
      url: { type: DataTypes.STRING(2048), allowNull: true },
      error: { type: DataTypes.TEXT, allowNull: true },
      remote_ref: { type: DataTypes.TEXT, allowNull: true },
      created_at: { type: DataTypes.DATE(3), allowNull: false },
      updated_at: { type: DataTypes.DATE(3), allowNull: false },
    });
    await qi.addIndex('publications', ['user_id'], { name: 'publications_user' });
  },
  async down(qi) {
    await qi.dropTable('publications');
    await qi.dropTable('social_connections');
  },
};
