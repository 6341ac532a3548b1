import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { buildApplication } from '../../bootstrap/app.ts';
import { loadConfig } from '../../bootstrap/config.ts';
import { TOKENS } from '../../bootstrap/tokens.ts';
import { RedisEventBus } from '../../adapters/redis/redis-event-bus.ts';
import type { Logger, LogFields } from '../../core/ports/logger.port.ts';
import type { EventBus } from '../../core/ports/user-events.port.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function recordingLogger(): { logger: Logger; lines: { level: string; message: string; fields?: LogFields }[] } {
  const lines: { level: string; message: string; fields?: LogFields }[] = [];
  const logger: Logger = {
    debug: (message, fields) => void lines.push({ level: 'debug', message, fields }),
    info: (message, fields) => void lines.push({ level: 'info', message, fields }),
    warn: (message, fields) => void lines.push({ level: 'warn', message, fields }),
    error: (message, fields) => void lines.push({ level: 'error', message, fields }),
    child: () => logger,
  };
  return { logger, lines };
}

/** The real application on SQLite in a temporary directory, with a logger the test reads. */
async function startApp(t: { teardown(fn: () => Promise<void>): void }, env: Record<string, string>) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mgs-bus-startup-'));
  const loaded = loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', SEED_TEMPLATES: 'false', JWT_SECRET: 'bus-startup-secret-long-enough-for-hs256-000', ...env });
  if (!loaded.ok) throw new Error(loaded.problems.join('; '));
  const { logger, lines } = recordingLogger();
  const app = buildApplication(loaded.config, { logger });
  t.teardown(async () => {
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const { port } = await app.start();
  const warnings = () => lines.filter((line) => line.level === 'warn' && /EVENT_BUS_DRIVER=memory/.test(line.message));
  return { app, port, warnings };
}

for (const roles of ['worker', 'api']) {
  test.serial(`ROLES=${roles} with the in-process bus starts, with one warning that events are not live across processes`, async (t) => {
    const { warnings } = await startApp(t, { ROLES: roles });
    t.is(warnings().length, 1);
    t.regex(warnings()[0]!.message, new RegExp(`^ROLES=${roles} with EVENT_BUS_DRIVER=memory: .*Set EVENT_BUS_DRIVER=redis and REDIS_URL`));
  });
}

test.serial('ROLES=api,worker with the in-process bus does not warn', async (t) => {
  const { warnings } = await startApp(t, { ROLES: 'api,worker' });
  t.deepEqual(warnings(), []);
});

test.serial('EVENT_BUS_DRIVER=redis binds the Redis bus, checks it in /health as "events" and does not warn', async (t) => {
  const { app, port, warnings } = await startApp(t, { ROLES: 'api', EVENT_BUS_DRIVER: 'redis', REDIS_URL });
  t.true(app.container.get<EventBus>(TOKENS.EventBus) instanceof RedisEventBus);
  t.deepEqual(warnings(), []);
  const health = await fetch(`http://127.0.0.1:${port}/api/v1/health`);
  t.is(health.status, 200);
  t.is(((await health.json()) as { checks: Record<string, string> }).checks.events, 'ok');
});

test.serial('EVENT_BUS_DRIVER=redis with an unreachable Redis fails start-up with a clear message', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mgs-bus-startup-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const loaded = loadConfig({ DATA_DIR: dataDir, PORT: '0', ROLES: 'worker', SEED_TEMPLATES: 'false', EVENT_BUS_DRIVER: 'redis', REDIS_URL: 'redis://127.0.0.1:1' });
  if (!loaded.ok) throw new Error(loaded.problems.join('; '));
  const app = buildApplication(loaded.config, { logger: recordingLogger().logger });
  await t.throwsAsync(() => app.start(), { message: /^EVENT_BUS_DRIVER=redis: Redis \(REDIS_URL\) is not reachable/ });
  await app.stop();
});
