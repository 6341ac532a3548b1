import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

/**
 * A password reset link an administrator made for a user (ADR 062): the hash of its token and when it stops working.
 * One live link per user, so the columns sit on the user's row; a new link replaces the last, and using it clears both.
 * The unique index finds the user from the token; both dialects allow many NULLs under a unique index.
 */
export const passwordResets: Migration = {
  name: '026-password-resets',
  async up(qi) {
    await qi.addColumn('users', 'password_reset_hash', { type: DataTypes.STRING(64), allowNull: true });
    await qi.addColumn('users', 'password_reset_expires_at', { type: DataTypes.DATE(3), allowNull: true });
    await qi.addIndex('users', ['password_reset_hash'], { unique: true, name: 'users_password_reset_hash' });
  },
  async down(qi, dialect) {
    await qi.removeIndex('users', 'users_password_reset_hash');
    if (dialect === 'sqlite') {
      // SQLite's own DROP COLUMN: Sequelize's removeColumn there copies the table and drops the old one, and dropping
      // `users` cascades to every row that references a user (jobs, ledger, sessions).
      await qi.sequelize.query('ALTER TABLE users DROP COLUMN password_reset_expires_at');
      await qi.sequelize.query('ALTER TABLE users DROP COLUMN password_reset_hash');
    } else {
      await qi.removeColumn('users', 'password_reset_expires_at');
      await qi.removeColumn('users', 'password_reset_hash');
    }
  },
};
