/**
 * SequelizeDatabase's own rules, on SQLite and MariaDB: which errors make a unit of work run again (a deadlock, a lock
 * held past the busy timeout) and how often, which scopes are its transactions (an ack joins only those), and that
 * SQLite needs a file.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { QueryTypes } from 'sequelize';
import { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import type { SqlScope } from '../../adapters/sequelize/sql-scope.ts';
import { DATABASES } from '../support/databases.ts';
import { openMigratedDatabase } from '../support/migrated-database.ts';

/** The errors the drivers raise for a deadlock (Sequelize wraps mysql2's in `parent`) and for a busy SQLite file. */
const deadlock = () => Object.assign(new Error('Deadlock found when trying to get lock'), { parent: { code: 'ER_LOCK_DEADLOCK' } });
const deadlockByErrno = () => Object.assign(new Error('deadlock'), { parent: { errno: 1213 } });
const busy = () => Object.assign(new Error('SQLITE_BUSY: database is locked'), { code: 'SQLITE_BUSY' });
const other = () => Object.assign(new Error('Duplicate entry'), { parent: { code: 'ER_DUP_ENTRY', errno: 1062 } });

for (const kind of DATABASES) {
  test(`${kind}: a unit of work that hits a deadlock or a busy lock runs again and commits once; other errors and the 4th failure are final`, async (t) => {
    const { db, dispose } = await openMigratedDatabase(kind);
    t.teardown(dispose);
    await db.sequelize.query('CREATE TABLE retry_probe (id VARCHAR(36) PRIMARY KEY)');
    const count = async () => (await db.sequelize.query<{ n: number }>('SELECT COUNT(*) AS n FROM retry_probe', { type: QueryTypes.SELECT }))[0]!.n;

    for (const [label, fault] of [['deadlock', deadlock], ['errno 1213', deadlockByErrno], ['SQLITE_BUSY', busy]] as const) {
      let runs = 0;
      const result = await db.transaction(async (scope) => {
        runs += 1;
        await scope.run('INSERT INTO retry_probe (id) VALUES (?)', [`${label}-${runs}`]);
        if (runs < 3) throw fault();
        return 'done';
      });
      t.is(result, 'done', label);
      t.is(runs, 3, `${label}: ran again until it committed`);
    }
    t.is(Number(await count()), 3, 'only the attempts that committed left a row: one per fault kind');

    let plain = 0;
    await t.throwsAsync(() => db.transaction(async () => ((plain += 1), Promise.reject(other()))), { message: 'Duplicate entry' });
    t.is(plain, 1, 'an error that is no deadlock is not retried');
    let stubborn = 0;
    await t.throwsAsync(() => db.transaction(async () => ((stubborn += 1), Promise.reject(deadlock()))), { message: /Deadlock/ });
    t.is(stubborn, 4, 'a deadlock every time: given up after 4 attempts');
    t.is(Number(await count()), 3);
  });

  test(`${kind}: only a transaction of this database is one it owns`, async (t) => {
    const first = await openMigratedDatabase(kind);
    const second = await openMigratedDatabase(kind);
    t.teardown(async () => (await first.dispose(), await second.dispose()));
    t.false(first.db.owns(first.db.autocommit), 'the autocommit scope is no transaction');
    const seen = await first.db.transaction(async (scope: SqlScope) => ({ mine: first.db.owns(scope), theirs: second.db.owns(scope) }));
    t.deepEqual(seen, { mine: true, theirs: false });
  });
}

test('mariadb: an autocommit write that hits a deadlock runs again, at most 4 times', async (t) => {
  const { db, dispose } = await openMigratedDatabase('mariadb');
  t.teardown(dispose);
  let runs = 0;
  t.is(await db.autocommit.write(async () => ((runs += 1), runs < 2 ? Promise.reject(deadlock()) : 'written')), 'written');
  t.is(runs, 2);
  let stubborn = 0;
  await t.throwsAsync(() => db.autocommit.write(async () => ((stubborn += 1), Promise.reject(deadlock()))));
  t.is(stubborn, 4);
  let plain = 0;
  await t.throwsAsync(() => db.autocommit.write(async () => ((plain += 1), Promise.reject(other()))));
  t.is(plain, 1);
});

test('sqlite: an in-memory database or no file at all is refused (the reader and the writer must share a file)', (t) => {
  for (const storagePath of [':memory:', '']) {
    t.throws(() => new SequelizeDatabase({ url: 'sqlite:', dialect: 'sqlite', storagePath }), { message: /SQLite needs a database file/ }, JSON.stringify(storagePath));
  }
});

for (const kind of DATABASES) {
  // Pins: an afterCommit hook outside a transaction runs at once (there is nothing to wait for); one added inside a
  // unit of work through the autocommit scope may itself start a unit of work (it runs outside the transaction).
  test(`${kind}: afterCommit on the autocommit scope runs at once, outside any transaction`, async (t) => {
    const { db, dispose } = await openMigratedDatabase(kind);
    t.teardown(dispose);
    let ran = false;
    db.autocommit.afterCommit(() => void (ran = true));
    await new Promise((resolve) => setImmediate(resolve));
    t.true(ran);
    const nested = new Promise<string>((resolve, reject) => {
      void db.transaction(async () => {
        db.autocommit.afterCommit(() => db.transaction(async () => 'inner').then(resolve, reject));
      });
    });
    t.is(await nested, 'inner');
  });

  test(`${kind}: a closed database refuses reads instead of opening a new reader`, async (t) => {
    const { db, dispose } = await openMigratedDatabase(kind);
    await db.close();
    await t.throwsAsync(() => db.autocommit.read('SELECT 1 AS one', []), { message: 'the database is closed' });
    await dispose().catch(() => undefined);
  });
}

/** A SQLite database of its own (not migrated), with `options`, removed after the test. */
const sqliteFile = (t: { teardown(fn: () => unknown): void }) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mgs-sqlite-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'app.db');
};

/** A SQLite database on a file of its own, closed when the test ends. */
const sqliteDatabase = (t: { teardown(fn: () => unknown): void }): SequelizeDatabase => {
  const db = new SequelizeDatabase({ url: 'sqlite:', dialect: 'sqlite', storagePath: sqliteFile(t) });
  t.teardown(() => db.close());
  return db;
};

test('sqlite: a hook that throws is reported to onHookError, and the hooks after it run', async (t) => {
  const errors: unknown[] = [];
  const db = new SequelizeDatabase({ url: 'sqlite:', dialect: 'sqlite', storagePath: sqliteFile(t), onHookError: (error) => errors.push(error) });
  t.teardown(() => db.close());
  let after = false;
  await db.transaction(async (scope) => {
    scope.afterCommit(() => {
      throw new Error('hook failed');
    });
    scope.afterCommit(() => void (after = true));
  });
  t.deepEqual(errors.map((error) => (error as Error).message), ['hook failed']);
  t.true(after);
});

// Pins SQLite's settings: WAL (the plain reader reads beside the writer) and a busy timeout, so that a second
// process (here a second handle on the file) waits for the writer instead of failing with SQLITE_BUSY.
test('sqlite: WAL, and a writer on the same file waits for another handle\'s transaction to commit', async (t) => {
  const file = sqliteFile(t);
  const first = new SequelizeDatabase({ url: 'sqlite:', dialect: 'sqlite', storagePath: file });
  const second = new SequelizeDatabase({ url: 'sqlite:', dialect: 'sqlite', storagePath: file });
  t.teardown(async () => (await first.close(), await second.close()));
  await first.transaction(async (scope) => void (await scope.run('CREATE TABLE held (n INTEGER)', [])));
  t.deepEqual(await first.sequelize.query('PRAGMA journal_mode', { type: QueryTypes.SELECT }), [{ journal_mode: 'wal' }]);
  // 15 s, not the driver's default of 1 s: a writer of another process may hold the file for a whole group commit.
  t.deepEqual(await first.sequelize.query('PRAGMA busy_timeout', { type: QueryTypes.SELECT }), [{ timeout: 15000 }]);
  let release!: () => void;
  const holding = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const begun = new Promise<void>((resolve) => (started = resolve));
  const held = first.transaction(async (scope) => {
    await scope.run('INSERT INTO held (n) VALUES (1)', []);
    started();
    await holding;
  });
  await begun;
  const waiting = second.transaction(async (scope) => scope.run('INSERT INTO held (n) VALUES (2)', []));
  await new Promise((resolve) => setTimeout(resolve, 1500)); // past the retries' pauses: only the busy timeout waits this long
  release();
  await held;
  t.is(await waiting, 1);
  t.deepEqual(await second.sequelize.query('SELECT n FROM held ORDER BY n', { type: QueryTypes.SELECT }), [{ n: 1 }, { n: 2 }]);
});

// Pins SQLite's group commit (ADR 045): units that queue while the writer is busy run as one group with one COMMIT,
// whoever drains the queue. A drain started per unit would take them one at a time, a COMMIT (an fsync) each.
test('sqlite: ten units that queue behind a busy writer commit together', async (t) => {
  const db = sqliteDatabase(t);
  await db.transaction(async () => undefined);
  const statements = (db as unknown as { writerStatements: { run(sql: string, params?: readonly unknown[]): Promise<number> } }).writerStatements;
  const run = statements.run.bind(statements);
  let commits = 0;
  statements.run = (sql: string, params?: readonly unknown[]) => ((commits += sql === 'COMMIT' ? 1 : 0), run(sql, params));
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const first = db.transaction(() => held);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const queued = Array.from({ length: 10 }, (_, n) => db.transaction(async () => n));
  release();
  t.deepEqual(await Promise.all(queued), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  await first;
  t.is(commits, 2, 'the busy unit, then the ten together');
});

// Pins: on SQLite a plain write outside a transaction (`autocommit.run`) waits for the writer like any unit. Run at once
// on the writer's connection, it would land inside whatever transaction is open there and share its fate: here a
// rollback that would take it away.
test('sqlite: an autocommit write while a transaction is open is not part of it', async (t) => {
  const db = sqliteDatabase(t);
  await db.autocommit.run('CREATE TABLE marks (v INTEGER NOT NULL)', []);
  let inside!: () => void;
  const opened = new Promise<void>((resolve) => (inside = resolve));
  let fail!: () => void;
  const failing = new Promise<void>((resolve) => (fail = resolve));
  const doomed = db.transaction(async (scope) => {
    await scope.run('INSERT INTO marks (v) VALUES (1)', []);
    inside();
    await failing;
    throw new Error('rolled back');
  });
  await opened;
  const plain = db.autocommit.run('INSERT INTO marks (v) VALUES (2)', []);
  await new Promise((resolve) => setTimeout(resolve, 20));
  fail();
  await t.throwsAsync(doomed, { message: 'rolled back' });
  t.is(await plain, 1);
  t.deepEqual(await db.autocommit.read<{ v: number }>('SELECT v FROM marks', []), [{ v: 2 }]);
});
