import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUploadRepository } from '../../adapters/memory/memory-upload-repository.ts';
import { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import { SequelizeUploadRepository } from '../../adapters/sequelize/sequelize-upload-repository.ts';
import { SequelizeUserRepository } from '../../adapters/sequelize/sequelize-user-repository.ts';
import { createMariaDatabase } from '../support/databases.ts';
import { uploadRepositoryContract } from './upload-repository.contract.ts';

uploadRepositoryContract('memory', async () => ({
  uploads: new MemoryUploadRepository(new MemoryStore()),
  addUser: async () => randomUUID(),
  dispose: async () => undefined,
}));

const sequelizeFixture = (db: SequelizeDatabase, cleanup: () => Promise<void>) => {
  const users = new SequelizeUserRepository(db);
  return {
    uploads: new SequelizeUploadRepository(db),
    async addUser() {
      const id = randomUUID();
      await users.create({ id, email: `${id}@example.com`, displayName: 'U', role: 'user', passwordHash: null, createdAt: new Date() });
      return id;
    },
    async dispose() {
      await db.close();
      await cleanup();
    },
  };
};

uploadRepositoryContract('sqlite', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'uploads-repo-'));
  const db = new SequelizeDatabase({ url: 'sqlite:', dialect: 'sqlite', storagePath: path.join(dir, 'app.db') });
  await db.migrate();
  return sequelizeFixture(db, async () => rmSync(dir, { recursive: true, force: true }));
});

uploadRepositoryContract('mariadb', async () => {
  const maria = await createMariaDatabase();
  const db = new SequelizeDatabase({ url: maria.url, dialect: 'mysql' });
  await db.migrate();
  return sequelizeFixture(db, () => maria.drop());
});
