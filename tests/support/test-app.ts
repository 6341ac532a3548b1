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

const addressInUse = (error: unknown): boolean => (error as { code?: string } | null)?.code === 'EADDRINUSE';

/**
 * Starts the real application (API and worker roles) on a free port against a fresh database. The port is free when
 * picked, but another test process may take it before the app listens: then the app is built again on another port.
 */
export async function startTestApp(db: TestDatabase, env: Record<string, string> = {}, options: StartTestAppOptions = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mgs-test-'));
  const maria = db === 'mariadb' ? await createMariaDatabase() : null;
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOn(db, dataDir, maria, env, options);
    } catch (error) {
      if (!addressInUse(error) || attempt >= 5 || env.PORT !== undefined) {
        await maria?.drop();
        throw error;
      }
    }
  }
}

async function startOn(db: TestDatabase, dataDir: string, maria: { url: string; drop(): Promise<void> } | null, env: Record<string, string>, options: StartTestAppOptions): Promise<TestApp> {
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
