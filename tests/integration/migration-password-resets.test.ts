/**
 * Migration 026 on a database that already holds a user with a password, a job, a ledger row and a login: the user has
 * no reset link, a link set afterwards works once, and `down` drops the two columns with every row intact. (On SQLite,
 * Sequelize's removeColumn copies `users` and drops the old table, which would cascade to everything that references
 * a user: the migration uses SQLite's own DROP COLUMN, and this test holds it to that.)
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { QueryTypes } from 'sequelize';
import { SequelizeUserRepository } from '../../adapters/sequelize/sequelize-user-repository.ts';
import { sqlTime } from '../../adapters/sequelize/sql-scope.ts';
import { DATABASES } from '../support/databases.ts';
import { bareScope, databaseBefore, migrationAndBefore, withLaterMigrations } from '../support/migration-databases.ts';

const { before, migration: passwordResets, after } = migrationAndBefore('026-password-resets');

for (const name of DATABASES) {
  test(`[${name}] 026 gives existing users no reset link, makes links usable once, and down drops the columns with every row intact`, async (t) => {
    const { sequelize, dialect, userId, insert } = await databaseBefore(t, name, before);
    const qi = sequelize.getQueryInterface();
    const at = sqlTime(new Date(Date.UTC(2026, 0, 1, 10, 0, 0)), dialect);
    const jobId = randomUUID();
    await sequelize.query('UPDATE users SET password_hash = ? WHERE id = ?', { replacements: ['scrypt$old', userId] });
    await insert(
      `INSERT INTO generation_jobs (id, user_id, status, workflow, used_parameters, image_refs, output_type, paid_coins, text_outputs, queue_turn, created_at, updated_at)
       VALUES (?, ?, 'succeeded', '{}', '{}', '[]', 'image', 3, '[]', 1, ?, ?)`,
      [jobId, userId, at, at],
    );
    await insert('INSERT INTO coin_transactions (id, user_id, amount, reason, related_entity_id, balance_after, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [randomUUID(), userId, 100, 'signup_bonus', null, 100, at]);
    await insert('INSERT INTO refresh_sessions (id, user_id, family_id, token_hash, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?)', [randomUUID(), userId, randomUUID(), 'f'.repeat(64), at, at]);
    const counts = async () =>
      Object.fromEntries(
        await Promise.all(
          ['users', 'generation_jobs', 'coin_transactions', 'refresh_sessions'].map(async (table) => [table, Number((await sequelize.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`, { type: QueryTypes.SELECT }))[0]!.n)]),
        ),
      );
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
