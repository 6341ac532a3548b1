/**
 * Migration 028 on a database that already holds a user with a password, a job, a ledger row and a login: the user has
 * no pending change of email, a change set afterwards applies once, and `down` drops the three columns with every row
 * intact (SQLite's own DROP COLUMN, as in 026: Sequelize's would copy `users` and cascade).
 */
import test from 'ava';
import { QueryTypes } from 'sequelize';
import { SequelizeUserRepository } from '../../adapters/sequelize/sequelize-user-repository.ts';
import { DATABASES } from '../support/databases.ts';
import { accountRows, bareScope, databaseBefore, migrationAndBefore, withLaterMigrations } from '../support/migration-databases.ts';

const { before, migration: emailChanges, after } = migrationAndBefore('028-email-changes');

for (const name of DATABASES) {
  test(`[${name}] 028 gives existing users no pending change, applies a change once, and down drops the columns with every row intact`, async (t) => {
    const { sequelize, dialect, userId, insert } = await databaseBefore(t, name, before);
    const qi = sequelize.getQueryInterface();
    const { counts } = await accountRows(sequelize, dialect, userId, insert);
    const rows = await counts();
    const newEmail = `moved-${userId}@example.com`;

    await emailChanges.up(qi, dialect);
    await withLaterMigrations(sequelize, dialect, after, async () => {
      const users = new SequelizeUserRepository(bareScope(sequelize, dialect));
      const hash = 'c'.repeat(64);
      t.is(await users.findByEmailChange(hash, new Date()), null);
      t.true(await users.setEmailChange(userId, { email: newEmail, tokenHash: hash, expiresAt: new Date(Date.now() + 60_000) }, new Date()));
      t.is((await users.findByEmailChange(hash, new Date()))!.newEmail, newEmail);
      t.is(await users.applyEmailChange(userId, { tokenHash: hash, newEmail }, new Date()), 'changed');
      t.is(await users.applyEmailChange(userId, { tokenHash: hash, newEmail }, new Date()), 'dead');
      t.is((await users.findByEmail(newEmail))!.passwordHash, 'scrypt$old');
    });

    await emailChanges.down(qi, dialect);
    const columns = Object.keys(await qi.describeTable('users'));
    for (const column of ['pending_email', 'email_change_hash', 'email_change_expires_at']) t.false(columns.includes(column), column);
    t.deepEqual(await counts(), rows, 'no row lost');
    const [kept] = await sequelize.query<{ email: string; password_hash: string }>('SELECT email, password_hash FROM users WHERE id = ?', { replacements: [userId], type: QueryTypes.SELECT });
    t.deepEqual(kept, { email: newEmail, password_hash: 'scrypt$old' });
    // And up again on the same data.
    await emailChanges.up(qi, dialect);
    t.true(Object.keys(await qi.describeTable('users')).includes('email_change_hash'));
  });
}
