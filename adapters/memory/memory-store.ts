import type { CoinTransaction } from '../../core/domain/coin.ts';
import type { User } from '../../core/domain/user.ts';
import type { RefreshTokenRecord } from '../../core/ports/session-repository.port.ts';

/** The shared state of the in-memory adapters (a user's balance is read by users and ledger alike). */
export class MemoryStore {
  readonly users = new Map<string, User & { passwordHash: string | null }>();
  readonly sessions = new Map<string, RefreshTokenRecord>();
  readonly coinTransactions: CoinTransaction[] = [];
  /** Free-form tables for adapters added later, keyed by table name. */
  readonly tables = new Map<string, Map<string, unknown>>();

  table<T>(name: string): Map<string, T> {
    let table = this.tables.get(name);
    if (!table) {
      table = new Map();
      this.tables.set(name, table);
    }
    return table as Map<string, T>;
  }
}
