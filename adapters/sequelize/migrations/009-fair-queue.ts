import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

/**
 * Round robin between users on the database queue (ADR 019): each message carries its owner (`fair_key`) and
 * its place among that owner's waiting messages (`fair_seq`); consumers take the lowest place first.
 */
export const fairQueue: Migration = {
  name: '009-fair-queue',
  async up(qi) {
    await qi.addColumn('queue_messages', 'fair_key', { type: DataTypes.STRING(64), allowNull: true });
    await qi.addColumn('queue_messages', 'fair_seq', { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 });
    await qi.addIndex('queue_messages', ['fair_key', 'status'], { name: 'queue_messages_fair_key' });
  },
  async down(qi) {
    await qi.removeIndex('queue_messages', 'queue_messages_fair_key');
    await qi.removeColumn('queue_messages', 'fair_seq');
    await qi.removeColumn('queue_messages', 'fair_key');
  },
};
