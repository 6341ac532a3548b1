import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';

export type TestDatabase = 'sqlite' | 'mariadb';

export const MARIADB_URL = process.env.TEST_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306';

/** Integration suites run once per database. TEST_DATABASES=sqlite narrows a local run; CI runs both. */
export const DATABASES: TestDatabase[] = (process.env.TEST_DATABASES ?? 'sqlite,mariadb')
  .split(',')
  .map((name) => name.trim())
  .filter((name): name is TestDatabase => name === 'sqlite' || name === 'mariadb');

/** A fresh, empty MariaDB database; dropped by the returned function. Fails (never skips) when the server is missing. */
export async function createMariaDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `mgs_test_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  let connection: mysql.Connection;
  try {
    connection = await mysql.createConnection(MARIADB_URL);
  } catch (error) {
    throw new Error(`MariaDB is not reachable at ${MARIADB_URL} (start it: see TOOLCHAIN); ${(error as Error).message}`);
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
