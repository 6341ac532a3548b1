import mysql from 'mysql2';
import sqlite3 from 'sqlite3';
import { sqlParams } from './sql-scope.ts';

/**
 * Point reads on the plain driver, for statements run on every request (authentication, the profile).
 * Sequelize's query path costs several times the statement itself there: on SQLite it formats a stack trace
 * (through the source maps tsx installs) and serializes the call on its connection for every SELECT, on both
 * dialects it builds a query object, logs and post-processes. Rows come back as stored, like `selectRows`:
 * dates as text on SQLite, Dates on MariaDB.
 *
 * Only for autocommit reads: a transaction's reads stay on its own connection (see `SqlScope.read`).
 */
export interface PlainReader {
  all<T>(sql: string, params: readonly unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

const MAX_KEPT_STATEMENTS = 256;

/**
 * Statements on one plain sqlite3 connection. A statement runs one call at a time (node-sqlite3 queues the next).
 * Parameters bind as `sqlParams` has them.
 */
export class SqliteStatements {
  private readonly statements = new Map<string, Promise<sqlite3.Statement>>();

  constructor(readonly db: sqlite3.Database) {}

  /** Rows of a SELECT, or of a write with RETURNING. */
  async all<T>(sql: string, params: readonly unknown[]): Promise<T[]> {
    const statement = await this.prepared(sql);
    return new Promise((resolve, reject) => {
      statement.all<T>(sqlParams(params, 'sqlite'), (error, rows) => (error ? reject(error) : resolve(rows)));
    });
  }

  /** A write: the number of rows it changed. */
  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    const statement = await this.prepared(sql);
    return new Promise((resolve, reject) => {
      statement.run(sqlParams(params, 'sqlite'), function (this: sqlite3.RunResult, error: Error | null) {
        if (error) reject(error);
        else resolve(this.changes);
      });
    });
  }

  /** Finalizes every kept statement (before the connection closes). */
  async finalize(): Promise<void> {
    const kept = [...this.statements.values()];
    this.statements.clear();
    for (const statement of kept) await statement.then((made) => new Promise<void>((resolve) => made.finalize(() => resolve())), () => undefined);
  }

  /**
   * Each statement is prepared once and kept; the calls on it wait for that. One that does not prepare (a table or
   * column missing) fails its calls with the error and is not kept, so a later call prepares it again. Kept
   * statements are few (the hot statements, a handful of shapes each); past the cap the oldest is let go.
   */
  private prepared(sql: string): Promise<sqlite3.Statement> {
    let statement = this.statements.get(sql);
    if (!statement) {
      if (this.statements.size >= MAX_KEPT_STATEMENTS) {
        const [oldest, kept] = this.statements.entries().next().value!;
        this.statements.delete(oldest);
        // node-sqlite3 runs the finalize after the calls already queued on the statement.
        void kept.then((made) => made.finalize(), () => undefined);
      }
      const preparing = new Promise<sqlite3.Statement>((resolve, reject) => {
        const made = this.db.prepare(sql, (error: Error | null) => (error ? reject(error) : resolve(made)));
      });
      preparing.catch(() => {
        if (this.statements.get(sql) === preparing) this.statements.delete(sql);
      });
      statement = preparing;
      this.statements.set(sql, statement);
    }
    return statement;
  }
}

/**
 * A read-only handle of its own on the database file: under WAL it reads beside the writer, and each
 * statement is prepared once.
 *
 * Not Node's built-in `node:sqlite`, although its synchronous point read costs a tenth of this one: it is a
 * second copy of SQLite in the process, and two copies on one file do not see each other's POSIX locks
 * (sqlite.org/howtocorrupt.html, 2.2.1), so its reads could overlap the writer's commits unguarded.
 */
export class SqlitePlainReader implements PlainReader {
  private readonly statements: SqliteStatements;

  constructor(storagePath: string) {
    const db = new sqlite3.Database(storagePath, sqlite3.OPEN_READONLY);
    // A reader waits for a writer only while a WAL checkpoint or recovery holds the file; as long as the writers do.
    db.configure('busyTimeout', 15_000);
    this.statements = new SqliteStatements(db);
  }

  all<T>(sql: string, params: readonly unknown[]): Promise<T[]> {
    return this.statements.all<T>(sql, params);
  }

  async close(): Promise<void> {
    await this.statements.finalize();
    return new Promise((resolve, reject) => this.statements.db.close((error) => (error ? reject(error) : resolve())));
  }
}

/** A small mysql2 pool of its own (the same settings as Sequelize's: UTC, big numbers as numbers), prepared statements. */
export class MysqlPlainReader implements PlainReader {
  private readonly pool: mysql.Pool;

  constructor(url: string, connections: number) {
    this.pool = mysql.createPool({
      uri: url,
      connectionLimit: connections,
      maxIdle: connections,
      idleTimeout: 60_000,
      timezone: '+00:00',
      supportBigNumbers: true,
      bigNumberStrings: false,
      dateStrings: false,
    });
  }

  all<T>(sql: string, params: readonly unknown[]): Promise<T[]> {
    return new Promise((resolve, reject) => {
      this.pool.execute(sql, params as mysql.ExecuteValues[], (error, rows) => (error ? reject(error) : resolve(rows as T[])));
    });
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) => this.pool.end((error) => (error ? reject(error) : resolve())));
  }
}
