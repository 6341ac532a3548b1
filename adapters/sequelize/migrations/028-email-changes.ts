import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

/**
 * A pending change of email (ADR 065): the address the user asked for, the hash of the token mailed there, and when it
 * stops working. One per user, on the user's row like the reset link (026); using it makes the address the account's
 * and clears all three. The unique index finds the user from the token.
 */
export const emailChanges: Migration = {
  name: '028-email-changes',
  async up(qi) {
    await qi.addColumn('users', 'pending_email', { type: DataTypes.STRING(254), allowNull: true });
    await qi.addColumn('users', 'email_change_hash', { type: DataTypes.STRING(64), allowNull: true });
    await qi.addColumn('users', 'email_change_expires_at', { type: DataTypes.DATE(3), allowNull: true });
    await qi.addIndex('users', ['email_change_hash'], { unique: true, name: 'users_email_change_hash' });
  },
  async down(qi, dialect) {
    await qi.removeIndex('users', 'users_email_change_hash');
    for (const column of ['email_change_expires_at', 'email_change_hash', 'pending_email']) {
      // SQLite's own DROP COLUMN: Sequelize's removeColumn there copies the table and drops the old one, which
      // cascades to every row that references a user (see 026).
      if (dialect === 'sqlite') await qi.sequelize.query(`ALTER TABLE users DROP COLUMN ${column}`);
      else await qi.removeColumn('users', column);
    }
  },
};
