import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QueryTypes, Sequelize } from 'sequelize';
import { sqlTime, type SqlScope } from '../../adapters/sequelize/sql-scope.ts';
import { MIGRATIONS } from '../../adapters/sequelize/migrations/index.ts';
import type { Migration } from '../../adapters/sequelize/migrations/migration.ts';
import { createMariaDatabase } from './databases.ts';

/** The model defaults SequelizeDatabase sets, so a repository can read the migrated tables. */
const MODEL_DEFAULTS = { underscored: true, timestamps: false };

/** An empty database of that kind, for running migrations one by one; dispose removes it. */
export async function openEmptyDatabase(name: 'sqlite' | 'mariadb'): Promise<{ sequelize: Sequelize; dialect: 'sqlite' | 'mysql'; dispose(): Promise<void> }> {
  if (name === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'mgs-migration-'));
    const sequelize = new Sequelize({ dialect: 'sqlite', storage: path.join(dir, 'app.db'), logging: false, define: MODEL_DEFAULTS });
    return { sequelize, dialect: 'sqlite', dispose: async () => (await sequelize.close(), rmSync(dir, { recursive: true, force: true })) };
  }
  const maria = await createMariaDatabase();
  const sequelize = new Sequelize(maria.url, { dialect: 'mysql', logging: false, timezone: '+00:00', define: MODEL_DEFAULTS });
  return { sequelize, dialect: 'mysql', dispose: async () => (await sequelize.close(), await maria.drop()) };
}

/** The named migration and every one before it, in order. */
export function migrationAndBefore(name: string): { before: Migration[]; migration: Migration; after: Migration[] } {
  const index = MIGRATIONS.findIndex((migration) => migration.name === name);
  if (index < 0) throw new Error(`no migration ${name}`);
  return { before: MIGRATIONS.slice(0, index), migration: MIGRATIONS[index]!, after: MIGRATIONS.slice(index + 1) };
}

/**
 * Runs `read` with the later migrations applied (today's repositories read today's schema), then takes them down
 * again, newest first, so the test can go on to check the migration's own `down`.
 */
export async function withLaterMigrations(sequelize: Sequelize, dialect: 'sqlite' | 'mysql', after: Migration[], read: () => Promise<void>): Promise<void> {
  const qi = sequelize.getQueryInterface();
  for (const migration of after) await migration.up(qi, dialect);
  await read();
  for (const migration of [...after].reverse()) await migration.down(qi, dialect);
}

/** A scope on the bare connection (no transactions): what a repository needs to read and write a migrated table in a test. */
export function bareScope(sequelize: Sequelize, dialect: 'sqlite' | 'mysql'): SqlScope {
  const scope: SqlScope = {
    sequelize,
    dialect,
    options: {},
    inTransaction: false,
    atomic: (work) => work(scope),
    write: (work) => work(scope),
    read: (sql, params) => sequelize.query(sql, { replacements: [...params], type: QueryTypes.SELECT }),
    run: (sql, params) => sequelize.query(sql, { replacements: [...params], type: QueryTypes.BULKUPDATE }),
    afterCommit: () => undefined,
  };
  return scope;
}

/**
 * An empty database of that kind with `before` applied (removed when the test ends), an INSERT helper, and a user
 * inserted as the schema before the migration has it: the start of a test of one migration on existing rows.
 */
export async function databaseBefore(
  t: { teardown(fn: () => Promise<void>): void },
  name: 'sqlite' | 'mariadb',
  before: Migration[],
  role = 'user',
): Promise<{ sequelize: Sequelize; dialect: 'sqlite' | 'mysql'; userId: string; insert(sql: string, replacements: unknown[]): Promise<unknown> }> {
  const { sequelize, dialect, dispose } = await openEmptyDatabase(name);
  t.teardown(dispose);
  const qi = sequelize.getQueryInterface();
  for (const migration of before) await migration.up(qi, dialect);
  const userId = randomUUID();
  const insert = (sql: string, replacements: unknown[]) => sequelize.query(sql, { replacements, type: QueryTypes.INSERT });
  const at = '2026-01-01 10:00:00.000';
  await insert('INSERT INTO users (id, email, display_name, role, coin_balance, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [userId, `${userId}@example.com`, 'U', role, 100, null, at, at]);
  return { sequelize, dialect, userId, insert };
}

/**
 * Gives the user of `databaseBefore` a password hash and the rows that reference a user (a finished job, a ledger row, a
 * login), and returns a count of each table: a migration of `users` must keep them all, on SQLite too, where copying
 * the table would cascade to every one of them.
 */
export async function accountRows(
  sequelize: Sequelize,
  dialect: 'sqlite' | 'mysql',
  userId: string,
  insert: (sql: string, replacements: unknown[]) => Promise<unknown>,
): Promise<{ jobId: string; counts(): Promise<Record<string, number>> }> {
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
  return { jobId, counts };
}
