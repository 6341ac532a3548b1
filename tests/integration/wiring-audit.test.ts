import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { buildApplication, type Application } from '../../bootstrap/app.ts';
import { loadConfig } from '../../bootstrap/config.ts';
import { resolve, resolveAll, TOKENS } from '../../bootstrap/tokens.ts';
import { socialPlatformsOf } from '../../bootstrap/modules/social.module.ts';
import { InProcessEventBus } from '../../adapters/memory/in-process-event-bus.ts';
import { RabbitEventBus } from '../../adapters/rabbitmq/rabbit-event-bus.ts';
import { LocalObjectStorage } from '../../adapters/local-storage/local-object-storage.ts';
import { S3ObjectStorage } from '../../adapters/s3/s3-object-storage.ts';
import { ThreadedBuiltinEngine } from '../../adapters/builtin-engine/threaded-builtin-engine.ts';
import { BuiltinEngine } from '../../adapters/builtin-engine/builtin-engine.ts';
import { ComfyEngine } from '../../adapters/comfyui/comfy-engine.ts';
import { silentLogger } from '../support/test-app.ts';
import { startS3StandIn } from '../support/s3-stand-in.ts';

// Which adapter the bootstrap modules bind for which configuration (events, storage, social, generation), and the
// start-up failures a configuration that cannot work gets.

const AMQP_URL = process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

/** The application on SQLite in a temporary folder, built (not started); `teardown` stops it. */
function build(t: ExecutionContext, env: Record<string, string>): Application {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mgs-wiring-audit-'));
  const loaded = loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', SEED_TEMPLATES: 'false', JWT_SECRET: 'wiring-audit-secret-long-enough-for-hs256-00', ...env });
  if (!loaded.ok) throw new Error(loaded.problems.join('; '));
  const app = buildApplication(loaded.config, { logger: silentLogger });
  t.teardown(async () => {
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return app;
}

const healthNames = (app: Application) => resolveAll(app.container, TOKENS.HealthCheck).map((check) => check.name);

// Pins: the default (memory) bus is the in-process one, with no "events" health check.
test.serial('EVENT_BUS_DRIVER=memory binds the in-process bus and no events check', (t) => {
  const app = build(t, { ROLES: 'api,worker', EVENT_BUS_DRIVER: 'memory' });
  t.true(resolve(app.container, TOKENS.EventBus) instanceof InProcessEventBus);
  t.false(healthNames(app).includes('events'));
});

// Pins: EVENT_BUS_DRIVER=rabbitmq binds the RabbitMQ bus, opened at start and checked in /health as "events".
test.serial('EVENT_BUS_DRIVER=rabbitmq binds the RabbitMQ bus and checks it in /health as "events"', async (t) => {
  const app = build(t, { ROLES: 'api', EVENT_BUS_DRIVER: 'rabbitmq', AMQP_URL });
  t.true(resolve(app.container, TOKENS.EventBus) instanceof RabbitEventBus);
  const { port } = await app.start();
  const health = await fetch(`http://127.0.0.1:${port}/api/v1/health`);
  t.is(health.status, 200);
  t.is(((await health.json()) as { checks: Record<string, string> }).checks.events, 'ok');
});

// Pins: an unreachable broker for the bus fails start-up with a message naming the variable.
test.serial('EVENT_BUS_DRIVER=rabbitmq with an unreachable broker fails start-up with a clear message', async (t) => {
  const app = build(t, { ROLES: 'worker', EVENT_BUS_DRIVER: 'rabbitmq', AMQP_URL: 'amqp://guest:guest@127.0.0.1:1' });
  await t.throwsAsync(() => app.start(), { message: /^EVENT_BUS_DRIVER=rabbitmq: RabbitMQ \(AMQP_URL\) is not reachable/ });
});

// Pins: local storage is bound with its signed files route; S3 binds the S3 store (its endpoint and keys
// passed on) and serves no files route.
test.serial('STORAGE_DRIVER=local serves /files; STORAGE_DRIVER=s3 binds the S3 store and has no /files route', async (t) => {
  const local = build(t, { ROLES: 'api', STORAGE_DRIVER: 'local' });
  t.true(resolve(local.container, TOKENS.ObjectStorage) instanceof LocalObjectStorage);
  const { port: localPort } = await local.start();
  // A bad signature is refused by the route (403), not unknown (404).
  t.is((await fetch(`http://127.0.0.1:${localPort}/api/v1/files/outputs/x.png?exp=1&sig=bad`)).status, 403);

  const s3 = await startS3StandIn();
  t.teardown(() => s3.stop());
  const remote = build(t, { ROLES: 'api', ...s3.env });
  t.true(resolve(remote.container, TOKENS.ObjectStorage) instanceof S3ObjectStorage);
  const { port } = await remote.start();
  t.is((await fetch(`http://127.0.0.1:${port}/api/v1/files/outputs/x.png?exp=1&sig=bad`)).status, 404);
  // The store is reached at S3_ENDPOINT with the configured keys: the storage probe passes.
  const health = await fetch(`http://127.0.0.1:${port}/api/v1/health`);
  const checks = ((await health.json()) as { checks: Record<string, string> }).checks;
  t.is(checks.storage, 'ok', JSON.stringify(checks));
});

// Pins: the builtin engine runs in threads and the catalogue is its own in-process registry; the comfyui driver binds
// one ComfyEngine as both; the engine's health check exists only where jobs run (the worker role).
test.serial('ENGINE_DRIVER picks the engine and catalogue; the engine health check is bound for the worker role only', (t) => {
  const builtinWorker = build(t, { ROLES: 'worker', ENGINE_DRIVER: 'builtin' });
  t.true(resolve(builtinWorker.container, TOKENS.Engine) instanceof ThreadedBuiltinEngine);
  t.true(resolve(builtinWorker.container, TOKENS.NodeCatalog) instanceof BuiltinEngine);
  t.true(healthNames(builtinWorker).includes('engine'));

  const comfyApi = build(t, { ROLES: 'api', ENGINE_DRIVER: 'comfyui', COMFYUI_URLS: 'http://127.0.0.1:1' });
  const engine = resolve(comfyApi.container, TOKENS.Engine);
  t.true(engine instanceof ComfyEngine);
  t.is(resolve(comfyApi.container, TOKENS.NodeCatalog) as unknown, engine as unknown);
  t.false(healthNames(comfyApi).includes('engine'));
});

// Pins: a platform is a client only when its credentials are configured; the others are unknown (null).
test('socialPlatformsOf makes a client of each configured platform only', (t) => {
  const base = { timeoutMs: 1000, tiktokPollIntervalMs: 10, tiktokPollTimeoutMs: 1000, tokenEncryptionKey: '' };
  const none = socialPlatformsOf({ social: { ...base, youtube: null, tiktok: null } } as never);
  t.deepEqual(none.configured(), []);
  t.is(none.get('YOUTUBE'), null);
  const youtube = socialPlatformsOf({ social: { ...base, youtube: { clientId: 'id', clientSecret: 'secret' }, tiktok: null } } as never);
  t.deepEqual(youtube.configured(), ['YOUTUBE']);
  t.truthy(youtube.get('YOUTUBE'));
  t.is(youtube.get('TIKTOK'), null);
  const tiktok = socialPlatformsOf({ social: { ...base, youtube: null, tiktok: { clientKey: 'key', clientSecret: 'secret' } } } as never);
  t.deepEqual(tiktok.configured(), ['TIKTOK']);
  t.is(tiktok.get('YOUTUBE'), null);
});
