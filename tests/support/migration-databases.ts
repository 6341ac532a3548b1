import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Sequelize } from 'sequelize';
import { createMariaDatabase } from './databases.ts';

/** The model defaults SequelizeDatabase sets, so a repository can read the migrated tables. */
const MODEL_DEFAULTS = { underscored: true, timestamps: false };

/** An empty database of either dialect for a test that runs migrations one by one (no migration applied yet). */
export async function openMigrationDatabase(name: 'sqlite' | 'mariadb'): Promise<{ sequelize: Sequelize; dialect: 'sqlite' | 'mysql'; dispose(): Promise<void> }> {
  if (name === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'mgs-migration-'));
    const sequelize = new Sequelize({ dialect: 'sqlite', storage: path.join(dir, 'app.db'), logging: false, define: MODEL_DEFAULTS });
    return { sequelize, dialect: 'sqlite', dispose: async () => (await sequelize.close(), rmSync(dir, { recursive: true, force: true })) };
  }
  const maria = await createMariaDatabase();
  const sequelize = new Sequelize(maria.url, { dialect: 'mysql', logging: false, timezone: '+00:00', define: MODEL_DEFAULTS });
  return { sequelize, dialect: 'mysql', dispose: async () => (await sequelize.close(), await maria.drop()) };
}
