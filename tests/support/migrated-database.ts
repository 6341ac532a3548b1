import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import { createMariaDatabase, type TestDatabase } from './databases.ts';

/** A fresh application database with every migration run (a SQLite file in a temporary directory, or a new MariaDB database); `dispose` closes and removes it. */
export async function openMigratedDatabase(kind: TestDatabase): Promise<{ db: SequelizeDatabase; dispose(): Promise<void> }> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'mgs-db-'));
    const db = new SequelizeDatabase({ url: 'sqlite:', dialect: 'sqlite', storagePath: path.join(dir, 'app.db') });
    await db.migrate();
    return { db, dispose: async () => (await db.close(), rmSync(dir, { recursive: true, force: true })) };
  }
  const maria = await createMariaDatabase();
  const db = new SequelizeDatabase({ url: maria.url, dialect: 'mysql' });
  await db.migrate();
  return { db, dispose: async () => (await db.close(), await maria.drop()) };
}
