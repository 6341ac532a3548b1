import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import path from 'node:path';
import { buildApplication, type Application } from '../../bootstrap/app.ts';
import { loadConfig } from '../../bootstrap/config.ts';
import type { Logger } from '../../core/ports/logger.port.ts';
import { createMariaDatabase, type TestDatabase } from './databases.ts';
import { TestClient } from './test-client.ts';

export interface TestApp {
  app: Application;
  baseUrl: string;
  port: number;
  dataDir: string;
  db: TestDatabase;
  client(): TestClient;
  close(): Promise<void>;
}

export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error(message, fields) {
    if (process.env.TEST_LOGS) console.error(message, fields);
  },
  child() {
    return silentLogger;
  },
};

export interface StartTestAppOptions {
  /** Runs after the application is built and before it starts: bind or replace what a test needs in `app.container`. */
  beforeStart?(app: Application): void | Promise<void>;
  /** Instead of the silent logger: to read what the application logs. */
  logger?: Logger;
}

/** A port that was free a moment ago: the app needs its real port up front for PUBLIC_URL (signed links). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts the real application (API and worker roles) on port 0 against a fresh database. */
export async function startTestApp(db: TestDatabase, env: Record<string, string> = {}, options: StartTestAppOptions = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mgs-test-'));
  const maria = db === 'mariadb' ? await createMariaDatabase() : null;
  const loaded = loadConfig({
    APP_ENV: 'local',
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    HOST: '127.0.0.1',
    JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-000',
    // Every test client comes from 127.0.0.1: the per-address limits are tested with their own values.
    REGISTER_MAX_PER_ADDRESS: '100000',
    LOGIN_MAX_FAILURES_PER_ADDRESS: '100000',
    ...(maria ? { DATABASE_URL: maria.url } : {}),
    ...env,
  });
  if (!loaded.ok) throw new Error(`test config invalid: ${loaded.problems.join('; ')}`);
  const app = buildApplication(loaded.config, { logger: options.logger ?? silentLogger });
  let port: number;
  try {
    await options.beforeStart?.(app);
    port = (await app.start()).port ?? 0;
  } catch (error) {
    await app.stop().catch(() => undefined);
    await maria?.drop();
    throw error;
  }
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    app,
    baseUrl,
    port,
    dataDir,
    db,
    client: () => new TestClient(baseUrl),
    async close() {
      await app.stop();
      await maria?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
