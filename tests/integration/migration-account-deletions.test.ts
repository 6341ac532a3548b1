/**
 * Migration 027 on a database that already holds a user with a job, a ledger row and a login: the user stays live
 * (found, listed), can be deleted and purged afterwards, and `down` drops the column with every row intact (on SQLite
 * through its own DROP COLUMN: Sequelize's removeColumn would copy `users` and cascade the drop of the old table).
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { QueryTypes } from 'sequelize';
import { SequelizeUserRepository } from '../../adapters/sequelize/sequelize-user-repository.ts';
import { sqlTime } from '../../adapters/sequelize/sql-scope.ts';
import { DATABASES } from '../support/databases.ts';
import { bareScope, databaseBefore, migrationAndBefore, withLaterMigrations } from '../support/migration-databases.ts';

const { before, migration: accountDeletions, after } = migrationAndBefore('027-account-deletions');

for (const name of DATABASES) {
  test(`[${name}] 027 keeps existing users live, lets them be deleted and purged, and down drops the column with every row intact`, async (t) => {
    const { sequelize, dialect, userId, insert } = await databaseBefore(t, name, before);
    const qi = sequelize.getQueryInterface();
    const at = sqlTime(new Date(Date.UTC(2026, 0, 1, 10, 0, 0)), dialect);
    const other = randomUUID();
    await insert('INSERT INTO users (id, email, display_name, role, coin_balance, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [other, `${other}@example.com`, 'Other', 'user', 0, at, at]);
    for (const owner of [userId, other]) {
      await insert(
        `INSERT INTO generation_jobs (id, user_id, status, workflow, used_parameters, image_refs, output_type, paid_coins, text_outputs, queue_turn, created_at, updated_at)
         VALUES (?, ?, 'succeeded', '{}', '{}', '[]', 'image', 3, '[]', 1, ?, ?)`,
        [randomUUID(), owner, at, at],
      );
      await insert('INSERT INTO coin_transactions (id, user_id, amount, reason, related_entity_id, balance_after, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [randomUUID(), owner, 100, 'signup_bonus', null, 100, at]);
      await insert('INSERT INTO refresh_sessions (id, user_id, family_id, token_hash, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?)', [randomUUID(), owner, randomUUID(), randomUUID(), at, at]);
    }
    const counts = async () =>
      Object.fromEntries(
        await Promise.all(
          ['users', 'generation_jobs', 'coin_transactions', 'refresh_sessions'].map(async (table) => [table, Number((await sequelize.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`, { type: QueryTypes.SELECT }))[0]!.n)]),
        ),
      );
    const rows = await counts();

    await accountDeletions.up(qi, dialect);
    t.deepEqual(await counts(), rows);
    await accountDeletions.down(qi, dialect);
    t.false(Object.keys(await qi.describeTable('users')).includes('deleted_at'));
    t.deepEqual(await counts(), rows, 'no row lost');

    await accountDeletions.up(qi, dialect);
    await withLaterMigrations(sequelize, dialect, after, async () => {
      const users = new SequelizeUserRepository(bareScope(sequelize, dialect));
      t.is((await users.findById(userId))?.id, userId, 'an existing user is live');
      t.is((await users.list({ page: 1, limit: 10 })).total, 2);
      t.deepEqual(await users.listDeleted(10), []);
      t.true(await users.markDeleted(userId, new Date()));
      t.true(await users.purge(userId), 'no output, upload or unfinished job: the row goes');
    });
    t.deepEqual(await counts(), { users: 1, generation_jobs: 1, coin_transactions: 1, refresh_sessions: 1 }, "the purged user's rows went with it, the other's stay");
  });
}
