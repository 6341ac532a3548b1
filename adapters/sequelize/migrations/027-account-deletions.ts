import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

/**
 * Deleted accounts (ADR 063). Deleting an account makes its row a husk at once (no email, password, identities,
 * logins or keys) and stamps `deleted_at`; the purge then deletes its stored files and finally the row, which
 * cascades to the rest. The index finds the husks the purge has still to finish.
 */
export const accountDeletions: Migration = {
  name: '027-account-deletions',
  async up(qi) {
    await qi.addColumn('users', 'deleted_at', { type: DataTypes.DATE(3), allowNull: true });
    await qi.addIndex('users', ['deleted_at'], { name: 'users_deleted_at' });
  },
  async down(qi, dialect) {
    await qi.removeIndex('users', 'users_deleted_at');
    // SQLite's own DROP COLUMN: Sequelize's removeColumn there copies the table and drops the old one, which
    // cascades to every row that references a user (see 026).
    if (dialect === 'sqlite') await qi.sequelize.query('ALTER TABLE users DROP COLUMN deleted_at');
    else await qi.removeColumn('users', 'deleted_at');
  },
};
