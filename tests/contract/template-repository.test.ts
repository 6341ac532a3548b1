import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryTemplateRepository } from '../../adapters/memory/memory-template-repository.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import { SequelizeTemplateRepository } from '../../adapters/sequelize/sequelize-template-repository.ts';
import { createMariaDatabase } from '../support/databases.ts';
import { templateRepositoryContract } from './template-repository.contract.ts';

templateRepositoryContract('memory', async () => ({
  templates: new MemoryTemplateRepository(new MemoryStore()),
  uow: new MemoryUnitOfWork(),
  locks: false,
  dispose: async () => undefined,
}));

templateRepositoryContract('sqlite', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'templates-repo-'));
  const db = new SequelizeDatabase({ url: 'sqlite:', dialect: 'sqlite', storagePath: path.join(dir, 'app.db') });
  await db.migrate();
  return {
    templates: new SequelizeTemplateRepository(db),
    uow: db,
    locks: true,
    async dispose() {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

templateRepositoryContract('mariadb', async () => {
  const maria = await createMariaDatabase();
  const db = new SequelizeDatabase({ url: maria.url, dialect: 'mysql' });
  await db.migrate();
  return {
    templates: new SequelizeTemplateRepository(db),
    uow: db,
    locks: true,
    async dispose() {
      await db.close();
      await maria.drop();
    },
  };
});
