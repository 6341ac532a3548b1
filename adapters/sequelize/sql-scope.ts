import { QueryTypes, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../core/domain/pagination.ts';

export type Dialect = 'sqlite' | 'mysql';

/**
 * Where a repository's statements go. Every Sequelize repository is built on a scope and passes
 * `scope.options` to each call, so the statements of a transaction travel on its connection explicitly
 * (no ambient transaction, no CLS).
 *
 * - The autocommit scope (`db.autocommit`): each statement commits on its own.
 * - A transaction scope (`db.transaction(work)`): on MariaDB, `options.transaction` is a Sequelize
 *   transaction; on SQLite, `sequelize` is the writer instance whose one connection holds `BEGIN IMMEDIATE`
 *   (writes are serialized in process), and `options` is empty.
 */
export interface SqlScope {
  readonly sequelize: Sequelize;
  readonly dialect: Dialect;
  readonly options: { transaction?: Transaction };
  readonly inTransaction: boolean;
  /** Runs `work` atomically: in this scope's transaction, or in a new one from the autocommit scope. */
  atomic<T>(work: (scope: SqlScope) => Promise<T>): Promise<T>;
  /**
   * One write statement. In a transaction, or on MariaDB, as is; from SQLite's autocommit scope through the
   * writer (a tiny transaction), so concurrent writers queue in process instead of busy-waiting on the file lock.
   */
  write<T>(work: (scope: SqlScope) => Promise<T>): Promise<T>;
  /**
   * A plain SELECT with positional `?` parameters, rows as stored (like `selectRows`). From the autocommit
   * scope it runs on the plain driver (see `PlainReader`): for reads made on every request. In a transaction,
   * on the transaction's connection; on SQLite that is the writer's own sqlite3 connection, without Sequelize,
   * so a write with `RETURNING` may go here too and hand back its rows.
   */
  read<T extends object>(sql: string, params: readonly unknown[]): Promise<T[]>;
  /**
   * One plain write statement with positional `?` parameters: the number of rows it changed. For statements
   * made on every request or job: in a SQLite transaction it runs on the writer's connection without Sequelize
   * (prepared once; Sequelize's query path costs several times the statement there). From the autocommit scope
   * it goes through `write`. Parameters bind like Sequelize's replacements (a Date as UTC text, see `sqlTime`).
   */
  run(sql: string, params: readonly unknown[]): Promise<number>;
  /** After the transaction commits (at once in the autocommit scope, whose statements have committed already). */
  afterCommit(hook: () => void | Promise<void>): void;
}

/** DATE(3) text as the model layer writes it (UTC, milliseconds kept), for raw statements. Sequelize's own
 * escaping of a Date in a raw MariaDB statement would drop the milliseconds, and with them the order of a busy ledger. */
export const sqlTime = (date: Date, dialect: Dialect): string => {
  const iso = date.toISOString();
  const text = `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
  return dialect === 'sqlite' ? `${text} +00:00` : text;
};

/**
 * A unique key refused the write. The driver's error says so (mysql2's ER_DUP_ENTRY, SQLite's "UNIQUE constraint
 * failed"), whether it comes bare (`run`) or under Sequelize's error (model calls) as its `parent`. Not Sequelize's
 * class itself: its SQLite dialect reports every constraint as a UniqueConstraintError, NOT NULL and CHECK included,
 * and only a unique key is a duplicate; the rest stays an error (as on MariaDB) rather than being taken for a row that
 * is already there (ADR 060).
 */
export const isUniqueViolation = (error: unknown): boolean => {
  const driver = (error instanceof UniqueConstraintError ? error.parent : error) as { code?: string; message?: string } | null | undefined;
  return driver?.code === 'ER_DUP_ENTRY' || (driver?.code === 'SQLITE_CONSTRAINT' && /UNIQUE constraint failed/.test(String(driver.message)));
};

/**
 * `IN (?, ?, ...)` for a plain statement and its parameters, for a non-empty list. The list is padded to the next power
 * of two by repeating its last value (which matches nothing more), so a statement comes in a handful of shapes rather
 * than one per length: each shape is a statement the drivers prepare and keep (at most 256 per SQLite handle).
 */
export function sqlIn(values: readonly unknown[]): { sql: string; params: unknown[] } {
  if (values.length === 0) throw new Error('sqlIn needs at least one value');
  const params = paddedToPowerOfTwo(values, values[values.length - 1]);
  return { sql: `IN (${params.map(() => '?').join(', ')})`, params };
}

/** `values` and as many `filler`s as take its length to the next power of two: a statement built per value comes in a handful of shapes. */
export function paddedToPowerOfTwo<T>(values: readonly T[], filler: T): T[] {
  let size = 1;
  while (size < values.length) size *= 2;
  return [...values, ...new Array<T>(size - values.length).fill(filler)];
}

/**
 * One page of a plain read and the count of all its rows, side by side: `SELECT <columns> <from> ORDER BY <orderBy>
 * LIMIT .. OFFSET ..` and `SELECT COUNT(*) <from>`, both with `params`. `from` is the FROM and WHERE clause; limit and
 * offset are written into the statement as whole numbers from the page request.
 */
export async function readPage<T extends object>(scope: SqlScope, query: { columns: string; from: string; orderBy: string; params: readonly unknown[] }, request: PageRequest): Promise<Page<T>> {
  const { columns, from, orderBy, params } = query;
  const [rows, [counted]] = await Promise.all([
    scope.read<T>(`SELECT ${columns} ${from} ORDER BY ${orderBy} LIMIT ${Math.max(0, Math.floor(request.limit))} OFFSET ${Math.max(0, Math.floor(offsetOf(request)))}`, params),
    scope.read<{ n: number | string }>(`SELECT COUNT(*) AS n ${from}`, params),
  ]);
  return pageOf(rows, request, Number(counted?.n ?? 0));
}

/** Positional parameters of a plain statement: a Date as `sqlTime` text (milliseconds kept on both dialects), `undefined` as NULL. */
export const sqlParams = (params: readonly unknown[], dialect: Dialect): unknown[] =>
  params.map((param) => (param instanceof Date ? sqlTime(param, dialect) : param === undefined ? null : param));

/**
 * A plain SELECT with named replacements, rows as stored. For hot paths: on SQLite, Sequelize looks a table's
 * column types up (PRAGMA table_info) before every model SELECT that names the table in backticks, which
 * doubles the cost of a small read; a plain statement skips that. Dates then come back as text (SQLite) or
 * Dates (MariaDB), and the row mappers parse both.
 */
export const selectRows = <T extends object>(scope: SqlScope, sql: string, replacements: Record<string, unknown> = {}): Promise<T[]> =>
  scope.sequelize.query<T>(sql, { replacements, type: QueryTypes.SELECT, ...scope.options });
