import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

const timestamp = (allowNull = false) => ({ type: DataTypes.DATE(3), allowNull });

/**
 * Each user's webhook signing secret (ADR 036). 016 because other branches take 013 to 015. The secret is kept
 * readable (the user reads it back to verify signatures); after a rotation the previous one signs too until
 * `previous_until`, so receivers can switch without losing a delivery.
 */
export const webhookSecrets: Migration = {
  name: '016-webhook-secrets',
  async up(qi) {
    await qi.createTable('webhook_secrets', {
      user_id: { type: DataTypes.UUID, primaryKey: true, allowNull: false, references: { model: 'users', key: 'id' }, onDelete: 'CASCADE' },
      secret: { type: DataTypes.STRING(64), allowNull: false },
      previous_secret: { type: DataTypes.STRING(64), allowNull: true },
      previous_until: timestamp(true),
      created_at: timestamp(),
      rotated_at: timestamp(true),
    });
  },
  async down(qi) {
    await qi.dropTable('webhook_secrets');
  },
};
