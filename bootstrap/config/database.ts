import path from 'node:path';
import type { Reader } from './reader.ts';

export interface DatabaseConfig {
  url: string;
  dialect: 'sqlite' | 'mysql';
  storagePath?: string;
}

/** DATABASE_URL: sqlite:<file> (default sqlite:<DATA_DIR>/app.db), mysql:// or mariadb://. */
export function readDatabase(read: Reader, ctx: { dataDir: string }): DatabaseConfig {
  const databaseUrl = read.string('DATABASE_URL', `sqlite:${path.join(ctx.dataDir, 'app.db')}`);
  let database: DatabaseConfig;
  if (databaseUrl.startsWith('sqlite:')) {
    // sqlite:<path>, or the URL form sqlite://<path> (sqlite:///var/lib/app.db, sqlite://data/app.db, sqlite://:memory:).
    const rest = databaseUrl.slice('sqlite:'.length);
    const target = rest.startsWith('//') ? rest.slice(2) : rest;
    // The service keeps jobs, coins and its queue in the database: an in-memory one would lose them all on restart.
    if (target === ':memory:' || target === '') read.problems.push('DATABASE_URL=sqlite: needs a file path (sqlite:/path/to/app.db); an in-memory database is not supported');
    database = { url: databaseUrl, dialect: 'sqlite', storagePath: path.resolve(target || '.') };
  } else if (databaseUrl.startsWith('mysql://') || databaseUrl.startsWith('mariadb://')) {
    // mysql2 serves both; a mariadb:// URL would make Sequelize look for the `mariadb` package.
    database = { url: databaseUrl.replace(/^mariadb:/, 'mysql:'), dialect: 'mysql' };
    read.url('DATABASE_URL', database.url, ['mysql:']);
  } else {
    read.problems.push('DATABASE_URL must start with sqlite: or mysql://');
    database = { url: databaseUrl, dialect: 'sqlite' };
  }
  return database;
}
