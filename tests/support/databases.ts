import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';

export type TestDatabase = 'sqlite' | 'mariadb';

export const MARIADB_URL = process.env.TEST_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306';

/** Integration suites run once per database. TEST_DATABASES=sqlite narrows a local run (MariaDB is then never
 * contacted); CI runs both. An unknown name is an error, not a silent narrowing. */
export const DATABASES: TestDatabase[] = parseDatabases(process.env.TEST_DATABASES ?? 'sqlite,mariadb');

function parseDatabases(value: string): TestDatabase[] {
  const names = value.split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = names.filter((name) => name !== 'sqlite' && name !== 'mariadb');
  if (unknown.length > 0 || names.length === 0) {
    throw new Error(`TEST_DATABASES=${JSON.stringify(value)}: name one or both of sqlite, mariadb (comma-separated)`);
  }
  return names as TestDatabase[];
}

const START_MARIADB = [
  'Start it, e.g. `start-stop-daemon --start --oknodo --background --exec "$(command -v mariadbd || echo /usr/sbin/mariadbd)"`',
  '(install it with `apt-get install -y mariadb-server`; `.ci/run` does both), or point TEST_MARIADB_URL at a server',
  'where that user may create databases, or run without MariaDB: TEST_DATABASES=sqlite npm test',
].join(' ');

/** A fresh, empty MariaDB database; dropped by the returned function. Fails (never skips) when the server is missing. */
export async function createMariaDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!DATABASES.includes('mariadb')) {
    throw new Error(`a test asked for a MariaDB database although TEST_DATABASES=${process.env.TEST_DATABASES} leaves MariaDB out: register it only for the databases in DATABASES`);
  }
  const name = `mgs_test_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  let connection: mysql.Connection;
  try {
    connection = await mysql.createConnection(MARIADB_URL);
  } catch (error) {
    throw new Error(`MariaDB is not reachable at ${MARIADB_URL} (${(error as Error).message}). ${START_MARIADB}`);
  }
  await connection.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await connection.end();
  return {
    url: `${MARIADB_URL}/${name}`,
    async drop() {
      const c = await mysql.createConnection(MARIADB_URL);
      await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await c.end();
    },
  };
}
