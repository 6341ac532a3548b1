import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import { SequelizeUnitOfWork } from '../../adapters/sequelize/sequelize-unit-of-work.ts';
import type { Outbox } from '../../core/ports/outbox.port.ts';
import type { Transaction, UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import { createMariaDatabase, DATABASES } from './databases.ts';

export type BackendName = 'memory' | 'sqlite' | 'mariadb';

/** Every persistence backend a contract suite runs against: memory always, the databases TEST_DATABASES names. */
export const BACKENDS: BackendName[] = ['memory', ...DATABASES];

export type Repositories = Omit<Transaction, 'afterCommit'>;

/** One fresh, empty, migrated backend: its unit of work and its autocommit repositories. */
export interface Backend {
  name: BackendName;
  uow: UnitOfWork;
  /** The repositories outside any transaction. */
  repos: Repositories;
  /** The outbox table as relays see it (lease, mark, purge). */
  outbox: Outbox;
  /** The database of the SQL backends (to read rows directly); null for memory. */
  db: SequelizeDatabase | null;
  /** The store of the memory backend; null for SQL. */
  store: MemoryStore | null;
  dispose(): Promise<void>;
}

export async function openBackend(name: BackendName): Promise<Backend> {
  if (name === 'memory') {
    const store = new MemoryStore();
    const uow = new MemoryUnitOfWork(store);
    return { name, uow, repos: uow.autocommit, outbox: uow.outbox, db: null, store, dispose: async () => undefined };
  }
  if (name === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'mgs-backend-'));
    const db = new SequelizeDatabase({ url: 'sqlite:', dialect: 'sqlite', storagePath: path.join(dir, 'app.db') });
    return onDatabase(name, db, async () => rmSync(dir, { recursive: true, force: true }));
  }
  const maria = await createMariaDatabase();
  return onDatabase(name, new SequelizeDatabase({ url: maria.url, dialect: 'mysql' }), () => maria.drop());
}

/** A migrated SQL backend; `cleanup` removes what held the database once it is closed. */
async function onDatabase(name: BackendName, db: SequelizeDatabase, cleanup: () => Promise<void>): Promise<Backend> {
  try {
    await db.migrate();
  } catch (error) {
    await db.close();
    await cleanup();
    throw error;
  }
  const uow = new SequelizeUnitOfWork(db);
  return {
    name,
    uow,
    repos: uow.autocommit,
    outbox: uow.outbox,
    db,
    store: null,
    async dispose() {
      await db.close();
      await cleanup();
    },
  };
}
