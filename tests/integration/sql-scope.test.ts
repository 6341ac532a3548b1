/**
 * `SqlScope.run` and `SqlScope.read` inside a transaction (ADR 046): on SQLite they go to the writer's own sqlite3
 * connection without Sequelize, so they must behave as part of the transaction (see its other writes, commit and roll
 * back with it) and bind parameters as Sequelize's replacements did. The same checks run on MariaDB.
 */
import 'reflect-metadata';
import test from 'ava';
import { QueryTypes } from 'sequelize';
import type { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { openMigratedDatabase } from '../support/migrated-database.ts';

async function open(kind: TestDatabase): Promise<{ db: SequelizeDatabase; dispose(): Promise<void> }> {
  const opened = await openMigratedDatabase(kind);
  await opened.db.sequelize.query('CREATE TABLE probe (id VARCHAR(36) PRIMARY KEY, n INTEGER NOT NULL, at DATETIME(3) NULL)');
  return opened;
}

const rows = (db: SequelizeDatabase) => db.sequelize.query<{ id: string; n: number }>('SELECT id, n FROM probe ORDER BY id', { type: QueryTypes.SELECT });

for (const kind of DATABASES) {
  test(`${kind}: run in a transaction answers the rows it changed, and its writes commit with the transaction`, async (t) => {
    const { db, dispose } = await open(kind);
    try {
      const changed = await db.transaction(async (scope) => {
        const inserted = await scope.run('INSERT INTO probe (id, n) VALUES (?, ?), (?, ?)', ['a', 1, 'b', 2]);
        const guarded = await scope.run('UPDATE probe SET n = n + 10 WHERE n >= ?', [2]);
        const none = await scope.run('UPDATE probe SET n = 0 WHERE id = ?', ['nobody']);
        return { inserted, guarded, none };
      });
      t.deepEqual(changed, { inserted: 2, guarded: 1, none: 0 });
      t.deepEqual(await rows(db), [{ id: 'a', n: 1 }, { id: 'b', n: 12 }]);
    } finally {
      await dispose();
    }
  });

  test(`${kind}: an UPDATE counts the rows its WHERE matched, also when it leaves their values as they were (every path)`, async (t) => {
    // The guards (a claim token, a fence) count matched rows: a same-millisecond extension writes the value already
    // there. MariaDB counts only changed rows unless the connection has FOUND_ROWS, which Sequelize turns off.
    const { db, dispose } = await open(kind);
    try {
      await db.transaction((scope) => scope.run('INSERT INTO probe (id, n) VALUES (?, ?)', ['a', 1]));
      const same = 'UPDATE probe SET n = 1 WHERE id = ?';
      const inTransaction = await db.transaction((scope) => scope.run(same, ['a']));
      const autocommit = await db.autocommit.run(same, ['a']);
      const [, model] = await db.sequelize.query(same, { replacements: ['a'], type: QueryTypes.UPDATE });
      t.deepEqual({ inTransaction, autocommit, model }, { inTransaction: 1, autocommit: 1, model: 1 });
    } finally {
      await dispose();
    }
  });

  test(`${kind}: what run wrote in a transaction that throws is rolled back, and read inside it saw that write and the model layer's`, async (t) => {
    const { db, dispose } = await open(kind);
    try {
      let seen: { id: string; n: number }[] = [];
      await t.throwsAsync(
        db.transaction(async (scope) => {
          await scope.run('INSERT INTO probe (id, n) VALUES (?, ?)', ['a', 1]);
          await scope.sequelize.query("INSERT INTO probe (id, n) VALUES ('b', 2)", { ...scope.options });
          seen = await scope.read<{ id: string; n: number }>('SELECT id, n FROM probe ORDER BY id', []);
          throw new Error('the work after the writes failed');
        }),
        { message: 'the work after the writes failed' },
      );
      t.deepEqual(seen, [{ id: 'a', n: 1 }, { id: 'b', n: 2 }]);
      t.deepEqual(await rows(db), []);
      // The writer is free again and the next transaction commits.
      await db.transaction((scope) => scope.run('INSERT INTO probe (id, n) VALUES (?, ?)', ['c', 3]));
      t.deepEqual(await rows(db), [{ id: 'c', n: 3 }]);
    } finally {
      await dispose();
    }
  });

  test(`${kind}: a Date parameter is stored as the model layer stores it (UTC, milliseconds kept), from the autocommit scope and in a transaction`, async (t) => {
    const { db, dispose } = await open(kind);
    try {
      const at = new Date('2026-11-26T17:45:12.345Z');
      t.is(await db.autocommit.run('INSERT INTO probe (id, n, at) VALUES (?, ?, ?)', ['a', 1, at]), 1);
      t.is(await db.transaction((scope) => scope.run('INSERT INTO probe (id, n, at) VALUES (?, ?, ?)', ['b', 2, at])), 1);
      const stored = await db.sequelize.query<{ at: string | Date }>('SELECT at FROM probe ORDER BY id', { type: QueryTypes.SELECT });
      // What the model layer writes: on SQLite text that sorts as time (`sqlTime`), on MariaDB a DATETIME(3).
      const expected = kind === 'sqlite' ? '2026-11-26 17:45:12.345 +00:00' : at;
      t.deepEqual(stored.map((row) => row.at), [expected, expected]);
    } finally {
      await dispose();
    }
  });
}

test('sqlite: a write with RETURNING through read hands back its rows, in the transaction', async (t) => {
  if (!DATABASES.includes('sqlite')) return t.pass();
  const { db, dispose } = await open('sqlite');
  try {
    await db.autocommit.run('INSERT INTO probe (id, n) VALUES (?, ?)', ['a', 5]);
    const returned = await db.transaction((scope) => scope.read<{ n: number }>('UPDATE probe SET n = n - ? WHERE id = ? AND n >= ? RETURNING n', [2, 'a', 2]));
    const refused = await db.transaction((scope) => scope.read<{ n: number }>('UPDATE probe SET n = n - ? WHERE id = ? AND n >= ? RETURNING n', [9, 'a', 9]));
    t.deepEqual(returned, [{ n: 3 }]);
    t.deepEqual(refused, []);
    t.deepEqual(await rows(db), [{ id: 'a', n: 3 }]);
  } finally {
    await dispose();
  }
});

test('sqlite: past the kept-statement cap the oldest statements are let go, and calls already queued on them still answer', async (t) => {
  if (!DATABASES.includes('sqlite')) return t.pass();
  const { db, dispose } = await open('sqlite');
  try {
    // 300 shapes, all in flight at once: the first ones are finalized while their calls wait in line.
    const answers = await db.transaction((scope) => Promise.all(Array.from({ length: 300 }, (_, i) => scope.read<{ n: number }>(`SELECT ? + ${i} AS n`, [1000]))));
    t.deepEqual(
      answers.map((rows) => rows[0]!.n),
      Array.from({ length: 300 }, (_, i) => 1000 + i),
    );
    // The first shape again: prepared anew.
    t.deepEqual(await db.transaction((scope) => scope.read<{ n: number }>('SELECT ? + 0 AS n', [7])), [{ n: 7 }]);
  } finally {
    await dispose();
  }
});

for (const kind of DATABASES) {
  test(`${kind}: a statement that cannot be prepared fails its caller (the process goes on), and the next transaction runs`, async (t) => {
    const { db, dispose } = await open(kind);
    try {
      await t.throwsAsync(db.transaction((scope) => scope.run('UPDATE no_such_table SET n = 1', [])), { message: /no_such_table/ });
      await t.throwsAsync(db.transaction((scope) => scope.read('SELECT no_such_column FROM probe', [])), { message: /no_such_column/ });
      await t.throwsAsync(db.autocommit.read('SELECT no_such_column FROM probe', []), { message: /no_such_column/ });
      t.is(await db.transaction((scope) => scope.run('INSERT INTO probe (id, n) VALUES (?, ?)', ['a', 1])), 1);
      t.deepEqual(await rows(db), [{ id: 'a', n: 1 }]);
    } finally {
      await dispose();
    }
  });
}
