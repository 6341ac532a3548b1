import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUserEventStore } from '../../adapters/memory/memory-user-event-store.ts';
import { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import { SequelizeUserEventStore } from '../../adapters/sequelize/sequelize-user-event-store.ts';
import { createMariaDatabase } from '../support/databases.ts';
import { userEventStoreContract } from './user-event-store.contract.ts';

userEventStoreContract('memory', async () => ({ store: new MemoryUserEventStore(new MemoryStore()), dispose: async () => undefined }));

userEventStoreContract('sqlite', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'user-events-'));
  const db = new SequelizeDatabase({ url: 'sqlite:', dialect: 'sqlite', storagePath: path.join(dir, 'app.db') });
  await db.migrate();
  return {
    store: new SequelizeUserEventStore(db),
    async dispose() {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

userEventStoreContract('mariadb', async () => {
  const maria = await createMariaDatabase();
  const db = new SequelizeDatabase({ url: maria.url, dialect: 'mysql' });
  await db.migrate();
  return {
    store: new SequelizeUserEventStore(db),
    async dispose() {
      await db.close();
      await maria.drop();
    },
  };
});
