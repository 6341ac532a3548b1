import { AsyncLocalStorage } from 'node:async_hooks';
import { Sequelize, Transaction, type Options } from 'sequelize';
import { Umzug } from 'umzug';
import type { UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import { MIGRATIONS } from './migrations/index.ts';

/**
 * Sequelize looks up the current transaction through a CLS namespace. This one is backed by
 * AsyncLocalStorage, so every query made inside `transaction()` joins it without passing it around.
 */
const als = new AsyncLocalStorage<Map<string, unknown>>();
const namespace = {
  get: (key: string) => als.getStore()?.get(key),
  set: (key: string, value: unknown) => {
    als.getStore()?.set(key, value);
  },
  run: (fn: (context: Map<string, unknown>) => unknown) => {
    const context = new Map<string, unknown>();
    return als.run(context, () => fn(context));
  },
  bind: <F extends (...args: unknown[]) => unknown>(fn: F) => fn,
};
Sequelize.useCLS(namespace);

export type Dialect = 'sqlite' | 'mysql';

export interface DatabaseOptions {
  url: string;
  dialect: Dialect;
  storagePath?: string;
  logging?: (sql: string) => void;
  poolMax?: number;
}

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

export class SequelizeDatabase implements UnitOfWork {
  readonly sequelize: Sequelize;
  readonly dialect: Dialect;
  private readonly writeLock = new Mutex();

  constructor(options: DatabaseOptions) {
    this.dialect = options.dialect;
    const common: Options = {
      logging: options.logging ?? false,
      define: { underscored: true, timestamps: false },
    };
    if (options.dialect === 'sqlite') {
      this.sequelize = new Sequelize({
        ...common,
        dialect: 'sqlite',
        storage: options.storagePath ?? ':memory:',
        transactionType: Transaction.TYPES.IMMEDIATE,
      });
      this.configureSqliteConnections();
    } else {
      this.sequelize = new Sequelize(options.url, {
        ...common,
        dialect: 'mysql',
        timezone: '+00:00',
        pool: { max: options.poolMax ?? 20, min: 0, idle: 10_000, acquire: 30_000 },
        dialectOptions: { dateStrings: false, supportBigNumbers: true },
      });
    }
  }

  /** Runs migrations that have not run yet. Safe to call from several processes on MariaDB (umzug
   * records each migration; a concurrent runner fails on the duplicate and the caller retries). */
  async migrate(): Promise<string[]> {
    if (this.dialect === 'sqlite') {
      await this.sequelize.query('PRAGMA journal_mode = WAL');
    }
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

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (namespace.get('transaction')) return work();
    if (this.dialect === 'sqlite') return this.writeLock.lock(() => this.sequelize.transaction(() => work()));
    return this.sequelize.transaction(() => work());
  }

  inTransaction(): boolean {
    return Boolean(namespace.get('transaction'));
  }

  async ping(): Promise<void> {
    await this.sequelize.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.sequelize.close();
  }

  /**
   * Sequelize's SQLite dialect opens a new database handle for every transaction and closes it after
   * (about 3 ms of the 3.5 ms a small transaction costs). Transactions here are already serialized by
   * the write lock, so one long-lived handle serves them all. Every handle waits up to 15 s for a lock
   * held by another process, and runs with synchronous=NORMAL under WAL: a commit survives a process
   * crash; only a power cut can drop the last few.
   */
  private configureSqliteConnections(): void {
    type Handle = { configure?(option: string, value: number): void; run?(sql: string): void; close(): void; uuid?: string; __ready?: boolean };
    const manager = this.sequelize.connectionManager as unknown as {
      getConnection(options?: { uuid?: string }): Promise<Handle>;
      releaseConnection(connection: Handle, force?: boolean): void;
    };
    const original = manager.getConnection.bind(manager);
    const originalRelease = manager.releaseConnection.bind(manager);
    let transactionHandle: Promise<Handle> | null = null;
    const prepare = (connection: Handle): Handle => {
      if (!connection.__ready) {
        connection.configure?.('busyTimeout', 15_000);
        connection.run?.('PRAGMA synchronous = NORMAL');
        connection.__ready = true;
      }
      return connection;
    };
    manager.getConnection = async (options?: { uuid?: string }) => {
      if (!options?.uuid || options.uuid === 'default') return prepare(await original(options));
      transactionHandle ??= original({ uuid: 'transactions' }).then(prepare);
      return transactionHandle;
    };
    manager.releaseConnection = (connection: Handle, force?: boolean) => {
      if (transactionHandle && connection.uuid !== undefined && connection.uuid !== 'default') {
        // Kept open for the next transaction; closed with the pool.
        return;
      }
      originalRelease(connection, force);
    };
  }
}

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
