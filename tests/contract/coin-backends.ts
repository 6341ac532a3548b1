import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MemoryCoinLedger } from '../../adapters/memory/memory-coin-ledger.ts';
import { MemoryIdempotencyStore } from '../../adapters/memory/memory-idempotency-store.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import { MemoryUserRepository } from '../../adapters/memory/memory-user-repository.ts';
import { SequelizeCoinLedger } from '../../adapters/sequelize/sequelize-coin-ledger.ts';
import { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import { SequelizeIdempotencyStore } from '../../adapters/sequelize/sequelize-idempotency-store.ts';
import { SequelizeUserRepository } from '../../adapters/sequelize/sequelize-user-repository.ts';
import type { CoinLedger } from '../../core/ports/coin-ledger.port.ts';
import type { IdempotencyStore } from '../../core/ports/idempotency-store.port.ts';
import type { UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import type { UserRepository } from '../../core/ports/user-repository.port.ts';
import { createMariaDatabase } from '../support/databases.ts';

/** The coin ports of one backend, fresh and empty. */
export interface CoinBackend {
  users: UserRepository;
  ledger: CoinLedger;
  idempotency: IdempotencyStore;
  uow: UnitOfWork;
  /** False for memory: its unit of work cannot roll back (a real difference, so suites check it only where it holds). */
  rollsBack: boolean;
  dispose(): Promise<void>;
}

export type BackendName = 'memory' | 'sqlite' | 'mariadb';
export const BACKENDS: BackendName[] = ['memory', 'sqlite', 'mariadb'];

const onDatabase = (db: SequelizeDatabase, dispose: () => Promise<void>): CoinBackend => ({
  users: new SequelizeUserRepository(db),
  ledger: new SequelizeCoinLedger(db),
  idempotency: new SequelizeIdempotencyStore(db),
  uow: db,
  rollsBack: true,
  dispose,
});

export async function openCoinBackend(name: BackendName): Promise<CoinBackend> {
  if (name === 'memory') {
    const store = new MemoryStore();
    return {
      users: new MemoryUserRepository(store),
      ledger: new MemoryCoinLedger(store),
      idempotency: new MemoryIdempotencyStore(store),
      uow: new MemoryUnitOfWork(),
      rollsBack: false,
      dispose: async () => undefined,
    };
  }
  if (name === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'coin-contract-'));
    const db = new SequelizeDatabase({ url: 'sqlite:', dialect: 'sqlite', storagePath: path.join(dir, 'app.db') });
    await db.migrate();
    return onDatabase(db, async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    });
  }
  const maria = await createMariaDatabase();
  const db = new SequelizeDatabase({ url: maria.url, dialect: 'mysql' });
  try {
    await db.migrate();
  } catch (error) {
    await db.close();
    await maria.drop();
    throw error;
  }
  return onDatabase(db, async () => {
    await db.close();
    await maria.drop();
  });
}
