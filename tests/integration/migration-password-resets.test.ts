/**
 * Migration 026 on a database that already holds a user with a password, a job, a ledger row and a login: the user has
 * no reset link, a link set afterwards works once, and `down` drops the two columns with every row intact. (On SQLite,
 * Sequelize's removeColumn copies `users` and drops the old table, which would cascade to everything that references
 * a user: the migration uses SQLite's own DROP COLUMN, and this test holds it to that.)
 */
import test from 'ava';
import { QueryTypes } from 'sequelize';
import { SequelizeUserRepository } from '../../adapters/sequelize/sequelize-user-repository.ts';
import { DATABASES } from '../support/databases.ts';
import { accountRows, bareScope, databaseBefore, migrationAndBefore, withLaterMigrations } from '../support/migration-databases.ts';

const { before, migration: passwordResets, after } = migrationAndBefore('026-password-resets');

for (const name of DATABASES) {
  test(`[${name}] 026 gives existing users no reset link, makes links usable once, and down drops the columns with every row intact`, async (t) => {
    const { sequelize, dialect, userId, insert } = await databaseBefore(t, name, before);
    const qi = sequelize.getQueryInterface();
    const { counts } = await accountRows(sequelize, dialect, userId, insert);
    const rows = await counts();

    await passwordResets.up(qi, dialect);
    await withLaterMigrations(sequelize, dialect, after, async () => {
      const users = new SequelizeUserRepository(bareScope(sequelize, dialect));
      const user = (await users.findByEmail(`${userId}@example.com`))!;
      t.is(user.passwordHash, 'scrypt$old');
      const hash = 'a'.repeat(64);
      t.is(await users.findByPasswordReset(hash, new Date()), null);
      t.true(await users.setPasswordReset(userId, { tokenHash: hash, expiresAt: new Date(Date.now() + 60_000) }, new Date()));
      t.is((await users.findByPasswordReset(hash, new Date()))!.id, userId);
      t.true(await users.resetPassword(userId, hash, 'scrypt$new', new Date()));
      t.false(await users.resetPassword(userId, hash, 'scrypt$newer', new Date()));
      t.is((await users.findByEmail(user.email))!.passwordHash, 'scrypt$new');
    });

    await passwordResets.down(qi, dialect);
    const columns = Object.keys(await qi.describeTable('users'));
    t.false(columns.includes('password_reset_hash'));
    t.false(columns.includes('password_reset_expires_at'));
    t.deepEqual(await counts(), rows, 'no row lost');
    const [kept] = await sequelize.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = ?', { replacements: [userId], type: QueryTypes.SELECT });
    t.is(kept!.password_hash, 'scrypt$new');
    // And up again on the same data.
    await passwordResets.up(qi, dialect);
    t.true(Object.keys(await qi.describeTable('users')).includes('password_reset_hash'));
  });
}
