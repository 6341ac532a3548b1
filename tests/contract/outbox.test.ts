import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MemoryOutbox } from '../../adapters/memory/memory-outbox.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import { SequelizeOutbox } from '../../adapters/sequelize/sequelize-outbox.ts';
import { createMariaDatabase } from '../support/databases.ts';
import { outboxContract, type OutboxBackend } from './outbox.contract.ts';

outboxContract('memory', async () => ({
  outbox: new MemoryOutbox(new MemoryStore()),
  uow: new MemoryUnitOfWork(),
  transactional: false,
  dispose: async () => {},
}));

const onDatabase = async (db: SequelizeDatabase, cleanup: () => Promise<void>): Promise<OutboxBackend> => {
  await db.migrate();
  return {
    outbox: new SequelizeOutbox(db),
    uow: db,
    transactional: true,
    dispose: async () => {
      await db.close();
      await cleanup();
    },
  };
};

outboxContract('sqlite', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mgs-outbox-'));
  const db = new SequelizeDatabase({ url: 'sqlite:', dialect: 'sqlite', storagePath: path.join(dir, 'app.db') });
  return onDatabase(db, async () => rmSync(dir, { recursive: true, force: true }));
});

outboxContract('mariadb', async () => {
  const maria = await createMariaDatabase();
  return onDatabase(new SequelizeDatabase({ url: maria.url, dialect: 'mysql' }), () => maria.drop());
});
