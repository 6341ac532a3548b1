import { AsyncLocalStorage } from 'node:async_hooks';
import { QueryTypes, Sequelize, type Options, type Transaction } from 'sequelize';
import { Umzug } from 'umzug';
import { MIGRATIONS } from './migrations/index.ts';
import type sqlite3 from 'sqlite3';
import { MysqlPlainReader, SqlitePlainReader, SqliteStatements, type PlainReader } from './plain-reader.ts';
import { sqlParams, type Dialect, type SqlScope } from './sql-scope.ts';

export type { Dialect };

export interface DatabaseOptions {
  url: string;
  dialect: Dialect;
  /** SQLite: the database file. */
  storagePath?: string;
  logging?: (sql: string) => void;
  poolMax?: number;
  /** MariaDB: connections of the plain-driver pool for autocommit reads (`SqlScope.read`). */
  readPoolMax?: number;
  /** An after-commit hook threw (the commit stands). */
  onHookError?(error: unknown): void;
}

type Hook = () => void | Promise<void>;

/** Marks the async context of a running transaction: a trip-wire for `transaction()` called from inside one
 * (which would wait for itself on SQLite's write lock), never a way to find the transaction. */
const insideTransaction = new AsyncLocalStorage<true>();

export class NestedTransactionError extends Error {
  constructor() {
    super('a unit of work was started inside another one (or an autocommit write was made inside a transaction); pass the transaction to the code that must join it');
    this.name = 'NestedTransactionError';
  }
}

/** True while the calling code runs inside a transaction of any SequelizeDatabase. */
export const isInsideTransaction = (): boolean => insideTransaction.getStore() === true;

const RETRIES = 4;

/** The most units of work one SQLite commit carries: the writer is held for the whole group. */
const MAX_GROUP = 32;

interface QueuedWrite {
  work: (scope: SqlScope) => Promise<unknown>;
  hooks: Hook[];
  context: <R>(fn: () => R) => R;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** A deadlock (MariaDB) or a lock still held by another process after the busy timeout (SQLite): the database asks for a retry. */
const retryable = (error: unknown): boolean => {
  const parent = (error as { parent?: { code?: string; errno?: number } } | null)?.parent ?? (error as { code?: string; errno?: number } | null);
  return parent?.code === 'ER_LOCK_DEADLOCK' || parent?.errno === 1213 || parent?.code === 'SQLITE_BUSY';
};

const pause = (attempt: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 10 * attempt));

/** A small async mutex: SQLite has one writer, so transactions queue here instead of busy-waiting. */
class Mutex {
  private tail: Promise<void> = Promise.resolve();
  async lock<T>(fn: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    try {
      return await fn();
    } finally {
      release();
    }
  }
}

/**
 * One application database (SQLite or MariaDB through Sequelize) and its explicit transactions.
 *
 * SQLite: reads use the main instance's connection (WAL lets them run beside a writer); transactions run
 * on a second instance whose one connection holds `BEGIN IMMEDIATE ... COMMIT`, serialized in process by
 * a mutex. Both are public Sequelize API: no patched connection manager, no CLS.
 * MariaDB: each transaction is a Sequelize transaction whose object travels in the scope's options.
 */
export class SequelizeDatabase {
  readonly sequelize: Sequelize;
  readonly dialect: Dialect;
  readonly autocommit: SqlScope;
  private readonly writer: Sequelize | null;
  /** SQLite: the writer instance's one connection, for BEGIN/COMMIT and the plain statements of its transactions. */
  private writerStatements: SqliteStatements | null = null;
  private readonly writeLock = new Mutex();
  /** SQLite: units of work waiting for the writer (see runGroup). */
  private readonly writeQueue: QueuedWrite[] = [];
  private draining = false;
  private prepared: Promise<void> | null = null;
  private plainReader: PlainReader | null = null;
  private openingReader: Promise<PlainReader> | null = null;
  private closed = false;

  constructor(private readonly options: DatabaseOptions) {
    this.dialect = options.dialect;
    const common: Options = {
      logging: options.logging ?? false,
      define: { underscored: true, timestamps: false },
    };
    if (options.dialect === 'sqlite') {
      if (!options.storagePath || options.storagePath === ':memory:') throw new Error('SQLite needs a database file (an in-memory database is not supported)');
      const sqlite: Options = { ...common, dialect: 'sqlite', storage: options.storagePath };
      this.sequelize = new Sequelize(sqlite);
      this.writer = new Sequelize(sqlite);
    } else {
      this.sequelize = new Sequelize(options.url, {
        ...common,
        dialect: 'mysql',
        timezone: '+00:00',
        pool: { max: options.poolMax ?? 20, min: 0, idle: 10_000, acquire: 30_000 },
        // FOUND_ROWS: an UPDATE answers the rows its WHERE matched, as SQLite's `changes` does, not only the rows whose
        // values changed (Sequelize turns it off). Every guard counts matched rows: without it, extending a message's
        // visibility within the millisecond it was taken (the same visible_at) looked like a lost claim on MariaDB.
        dialectOptions: { dateStrings: false, supportBigNumbers: true, flags: 'FOUND_ROWS' },
      });
      this.writer = null;
    }
    this.autocommit = this.scope(this.sequelize, {}, null);
  }

  /** Runs migrations that have not run yet. Safe to call from several processes on MariaDB (umzug
   * records each migration; a concurrent runner fails on the duplicate and the caller retries). */
  async migrate(): Promise<string[]> {
    await this.prepare();
    const umzug = new Umzug({
      migrations: MIGRATIONS.map((migration) => ({
        name: migration.name,
        up: () => migration.up(this.sequelize.getQueryInterface(), this.dialect),
        down: () => migration.down(this.sequelize.getQueryInterface(), this.dialect),
      })),
      storage: new SequelizeMetaStorage(this.sequelize),
      logger: undefined,
    });
    const done = await umzug.up();
    return done.map((migration) => migration.name);
  }

  /**
   * Runs `work` in one transaction on a scope of its own and returns its result; rolls back when it throws.
   * Retried (work runs again) when the database reports a deadlock or a lock held too long. After-commit hooks
   * run once the commit is done and the write lock released, in registration order.
   */
  async transaction<T>(work: (scope: SqlScope) => Promise<T>): Promise<T> {
    if (isInsideTransaction()) throw new NestedTransactionError();
    await this.prepare();
    for (let attempt = 1; ; attempt++) {
      const hooks: Hook[] = [];
      try {
        const result =
          this.dialect === 'sqlite' ? await this.sqliteWrite(work, hooks) : await this.mysqlTransaction(work, hooks);
        await this.runHooks(hooks);
        return result;
      } catch (error) {
        if (!retryable(error) || attempt >= RETRIES) throw error;
        await pause(attempt);
      }
    }
  }

  /** Whether `scope` is one of this database's transactions (a statement run on it commits with that transaction). */
  owns(scope: SqlScope): boolean {
    return scope.inTransaction && scope.sequelize === (this.writer ?? this.sequelize);
  }

  async ping(): Promise<void> {
    await this.sequelize.query('SELECT 1');
  }

  async close(): Promise<void> {
    this.closed = true;
    const reader = this.plainReader;
    this.plainReader = null;
    await reader?.close();
    await this.writerStatements?.finalize();
    this.writerStatements = null;
    await this.writer?.close();
    await this.sequelize.close();
  }

  /** Queues a unit of work for SQLite's one writer; units queued while a batch runs go together in the next one. */
  private sqliteWrite<T>(work: (scope: SqlScope) => Promise<T>, hooks: Hook[]): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // Each unit runs in its caller's async context (trace, log fields), whichever caller's drain runs it.
      this.writeQueue.push({ work, hooks, context: AsyncLocalStorage.snapshot(), resolve: resolve as (value: unknown) => void, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.writeQueue.length > 0) {
        const batch = this.writeQueue.splice(0, MAX_GROUP);
        await this.writeLock.lock(() => (batch.length === 1 ? this.runAlone(batch[0]!) : this.runGroup(batch)));
      }
    } finally {
      this.draining = false;
    }
  }

  /**
   * Group commit: the queued units one after another in one transaction, as if each had committed before the next
   * began (one connection, one writer), and one COMMIT for all. Each caller hears of its result only after that
   * commit. If any unit throws (or the commit fails), everything is rolled back and each unit runs again alone,
   * exactly as it would have without grouping; running a unit again is what the unit-of-work contract allows.
   */
  private async runGroup(group: QueuedWrite[]): Promise<void> {
    const writer = this.writer!;
    const results: unknown[] = [];
    try {
      await this.begin();
      for (const unit of group) {
        results.push(await unit.context(() => insideTransaction.run(true, () => unit.work(this.scope(writer, {}, unit.hooks)))));
      }
      await this.writerStatements!.run('COMMIT');
    } catch {
      await this.writerStatements!.run('ROLLBACK').catch(() => undefined);
      for (const unit of group) await this.runAlone(unit);
      return;
    }
    group.forEach((unit, i) => unit.resolve(results[i]));
  }

  private async runAlone(unit: QueuedWrite): Promise<void> {
    unit.hooks.length = 0;
    try {
      unit.resolve(await unit.context(() => this.sqliteTransaction(unit.work, unit.hooks)));
    } catch (error) {
      unit.reject(error);
    }
  }

  private async sqliteTransaction<T>(work: (scope: SqlScope) => Promise<T>, hooks: Hook[]): Promise<T> {
    const writer = this.writer!;
    await this.begin();
    let result: T;
    try {
      result = await insideTransaction.run(true, () => work(this.scope(writer, {}, hooks)));
      await this.writerStatements!.run('COMMIT');
    } catch (error) {
      await this.writerStatements!.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
    return result;
  }

  /** SQLite: takes the write lock (waiting up to the busy timeout for another process that holds it). */
  private begin(): Promise<number> {
    return this.writerStatements!.run('BEGIN IMMEDIATE');
  }

  private async mysqlTransaction<T>(work: (scope: SqlScope) => Promise<T>, hooks: Hook[]): Promise<T> {
    const transaction: Transaction = await this.sequelize.transaction();
    try {
      const result = await insideTransaction.run(true, () => work(this.scope(this.sequelize, { transaction }, hooks)));
      await transaction.commit();
      return result;
    } catch (error) {
      await transaction.rollback().catch(() => undefined); // refused when the commit itself failed: nothing to undo
      throw error;
    }
  }

  private scope(sequelize: Sequelize, options: SqlScope['options'], hooks: Hook[] | null): SqlScope {
    const inTransaction = hooks !== null;
    const scope: SqlScope = {
      sequelize,
      dialect: this.dialect,
      options,
      inTransaction,
      read: <T extends object>(sql: string, params: readonly unknown[]) =>
        !inTransaction
          ? this.plainRead<T>(sql, params)
          : this.dialect === 'sqlite'
            ? this.writerStatements!.all<T>(sql, params)
            : mysqlQuery<T[]>(options.transaction!, sql, params),
      run: (sql: string, params: readonly unknown[]) => {
        if (this.dialect === 'sqlite') return inTransaction ? this.writerStatements!.run(sql, params) : this.transaction((inside) => inside.run(sql, params));
        if (inTransaction) return mysqlQuery<{ affectedRows: number }>(options.transaction!, sql, params).then((result) => result.affectedRows);
        return this.retried(() => sequelize.query(sql, { replacements: sqlParams(params, 'mysql'), type: QueryTypes.BULKUPDATE, ...options }));
      },
      atomic: (work) => (inTransaction ? work(scope) : this.transaction(work)),
      write: (work) => (inTransaction ? work(scope) : this.dialect === 'mysql' ? this.retried(() => work(scope)) : this.transaction(work)),
      afterCommit: (hook) => {
        if (hooks) hooks.push(hook);
        else void this.runHooks([hook]);
      },
    };
    return scope;
  }

  /** Opened on first use: on SQLite the read handle needs the file in WAL mode, which `prepare` makes sure of. */
  private async plainRead<T>(sql: string, params: readonly unknown[]): Promise<T[]> {
    const reader = this.plainReader ?? (await (this.openingReader ??= this.openPlainReader()));
    return reader.all<T>(sql, params);
  }

  private async openPlainReader(): Promise<PlainReader> {
    await this.prepare();
    const reader =
      this.dialect === 'sqlite' ? new SqlitePlainReader(this.options.storagePath!) : new MysqlPlainReader(this.options.url, this.options.readPoolMax ?? 10);
    if (this.closed) {
      await reader.close();
      throw new Error('the database is closed');
    }
    this.plainReader = reader;
    return reader;
  }

  /** One autocommit statement on MariaDB: a deadlock rolled it back whole, so it runs again (like a transaction). */
  private async retried<T>(statement: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await statement();
      } catch (error) {
        if (!retryable(error) || attempt >= RETRIES) throw error;
        await pause(attempt);
      }
    }
  }

  /** Outside the transaction's async context, so a hook may start units of work of its own. */
  private runHooks(hooks: Hook[]): Promise<void> {
    if (hooks.length === 0) return Promise.resolve();
    return insideTransaction.exit(async () => {
      for (const hook of hooks) {
        try {
          await hook();
        } catch (error) {
          this.options.onHookError?.(error);
        }
      }
    });
  }

  /**
   * SQLite connection settings, once per connection (both are long-lived): wait up to 15 s for a lock held by
   * another process, and synchronous=NORMAL under WAL (a commit survives a process crash; only a power cut can
   * drop the last few).
   */
  private prepare(): Promise<void> {
    if (this.dialect !== 'sqlite') return Promise.resolve();
    this.prepared ??= (async () => {
      await this.sequelize.query('PRAGMA journal_mode = WAL');
      for (const instance of [this.sequelize, this.writer!]) {
        await instance.query('PRAGMA busy_timeout = 15000');
        await instance.query('PRAGMA synchronous = NORMAL');
      }
      // The connection the writer's Sequelize queries use (its default one): statements on it directly join them.
      this.writerStatements = new SqliteStatements((await this.writer!.connectionManager.getConnection({ type: 'write' })) as unknown as sqlite3.Database);
    })();
    return this.prepared;
  }
}

/**
 * One statement on a MariaDB transaction's own mysql2 connection (Sequelize's `Transaction.connection`), without
 * Sequelize's query pipeline: the connection keeps Sequelize's settings (UTC, its type casts, big numbers as
 * numbers, affected rows counting changed rows), so rows and counts come back as `sequelize.query` gave them.
 */
function mysqlQuery<R>(transaction: Transaction, sql: string, params: readonly unknown[]): Promise<R> {
  const connection = (transaction as unknown as { connection: MysqlConnection }).connection;
  return new Promise<R>((resolve, reject) => {
    connection.query(sql, sqlParams(params, 'mysql'), (error, result) => (error ? reject(error) : resolve(result as R)));
  });
}

type MysqlConnection = { query(sql: string, values: unknown[], callback: (error: Error | null, result: unknown) => void): void };

/** umzug's own SequelizeStorage pulls in its model helpers; this keeps the table under our name. */
class SequelizeMetaStorage {
  constructor(private readonly sequelize: Sequelize) {}

  private async ensure(): Promise<void> {
    // createTable is CREATE TABLE IF NOT EXISTS on both dialects.
    await this.sequelize.getQueryInterface().createTable('schema_migrations', {
      name: { type: 'VARCHAR(255)', primaryKey: true, allowNull: false },
      run_at: { type: 'VARCHAR(32)', allowNull: false },
    });
  }

  async logMigration({ name }: { name: string }): Promise<void> {
    await this.ensure();
    await this.sequelize.getQueryInterface().bulkInsert('schema_migrations', [{ name, run_at: new Date().toISOString() }]);
  }

  async unlogMigration({ name }: { name: string }): Promise<void> {
    await this.ensure();
    await this.sequelize.getQueryInterface().bulkDelete('schema_migrations', { name });
  }

  async executed(): Promise<string[]> {
    await this.ensure();
    const [rows] = await this.sequelize.query('SELECT name FROM schema_migrations ORDER BY name');
    return (rows as { name: string }[]).map((row) => row.name);
  }
}
