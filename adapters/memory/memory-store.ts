import { AsyncLocalStorage } from 'node:async_hooks';
import type { CoinTransaction } from '../../core/domain/coin.ts';
import type { User } from '../../core/domain/user.ts';
import type { RefreshTokenRecord } from '../../core/ports/session-repository.port.ts';

/** A user as the memory adapters keep it: the public record, its password hash and its live reset link. */
export type StoredUser = User & {
  passwordHash: string | null;
  passwordReset?: { tokenHash: string; expiresAt: Date } | null;
  /** A pending change of email (ADR 065). */
  emailChange?: { email: string; tokenHash: string; expiresAt: Date } | null;
  deletedAt?: Date | null;
};

interface Snapshot {
  users: Map<string, StoredUser>;
  sessions: Map<string, RefreshTokenRecord>;
  coinTransactions: CoinTransaction[];
  tables: Map<string, Map<string, unknown>>;
}

/** Marks the async context of a memory transaction (which store), to refuse a nested one instead of deadlocking. */
const inside = new AsyncLocalStorage<MemoryStore>();

export class MemoryNestedTransactionError extends Error {
  constructor() {
    super('a unit of work was started inside another one (or an autocommit call was made inside a transaction); pass the transaction to the code that must join it');
    this.name = 'MemoryNestedTransactionError';
  }
}

/**
 * The shared state of the in-memory adapters (a user's balance is read by users and ledger alike), with
 * real transactions: one at a time (a lock, like SQLite's single writer), each starting from a snapshot
 * that is put back when it rolls back. Calls outside a transaction take the lock too, so a rollback can
 * never undo someone else's change.
 */
export class MemoryStore {
  readonly users = new Map<string, StoredUser>();
  readonly sessions = new Map<string, RefreshTokenRecord>();
  readonly coinTransactions: CoinTransaction[] = [];
  /** Free-form tables for adapters added later, keyed by table name. */
  readonly tables = new Map<string, Map<string, unknown>>();
  /** Tables a rollback leaves alone (the queue's: a broker is not part of the database transaction). */
  private readonly outsideTransactions = new Set<string>();
  private tail: Promise<void> = Promise.resolve();

  table<T>(name: string, options: { transactional?: boolean } = {}): Map<string, T> {
    let table = this.tables.get(name);
    if (!table) {
      table = new Map();
      this.tables.set(name, table);
    }
    if (options.transactional === false) this.outsideTransactions.add(name);
    return table as Map<string, T>;
  }

  /** True while the calling code runs inside a transaction of this store. */
  get inTransaction(): boolean {
    return inside.getStore() === this;
  }

  /** Runs `work` alone (no other transaction or autocommit call meanwhile). */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.inTransaction) throw new MemoryNestedTransactionError();
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** Runs `work` as a transaction: alone, and undone completely when it throws. */
  transaction<T>(work: () => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      const before = this.snapshot();
      try {
        return await inside.run(this, work);
      } catch (error) {
        this.restore(before);
        throw error;
      }
    });
  }

  /**
   * Deletes a user and, as the database's cascading foreign keys do, every row that names it: its logins, its ledger,
   * and the rows of every transactional table whose `userId` is this user's.
   */
  deleteUser(id: string): void {
    this.users.delete(id);
    for (const [key, session] of this.sessions) if (session.userId === id) this.sessions.delete(key);
    const kept = this.coinTransactions.filter((entry) => entry.userId !== id);
    this.coinTransactions.length = 0;
    this.coinTransactions.push(...kept);
    for (const [name, table] of this.tables) {
      if (this.outsideTransactions.has(name)) continue; // the queue's rows name no user
      for (const [key, row] of table) if ((row as { userId?: unknown } | null)?.userId === id) table.delete(key);
    }
  }

  /** Outside the transaction's async context, so after-commit hooks may start transactions of their own. */
  outside<T>(work: () => T): T {
    return inside.exit(work);
  }

  private snapshot(): Snapshot {
    const tables = new Map<string, Map<string, unknown>>();
    for (const [name, table] of this.tables) if (!this.outsideTransactions.has(name)) tables.set(name, structuredClone(table));
    return {
      users: structuredClone(this.users),
      sessions: structuredClone(this.sessions),
      coinTransactions: structuredClone(this.coinTransactions),
      tables,
    };
  }

  /** In place: adapters hold references to these maps. */
  private restore(snapshot: Snapshot): void {
    refill(this.users, snapshot.users);
    refill(this.sessions, snapshot.sessions);
    this.coinTransactions.length = 0;
    this.coinTransactions.push(...snapshot.coinTransactions);
    for (const [name, table] of this.tables) {
      if (this.outsideTransactions.has(name)) continue;
      refill(table, snapshot.tables.get(name) ?? new Map());
    }
  }
}

function refill<K, V>(target: Map<K, V>, source: Map<K, V>): void {
  target.clear();
  for (const [key, value] of source) target.set(key, value);
}
