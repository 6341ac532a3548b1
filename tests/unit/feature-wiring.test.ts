/**
 * ADR 028 through the real bindings: the scheduler gets every feature's tasks, and a process builds only what
 * its roles use (a worker no API-only part, an API process no engine).
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { Container } from 'inversify';
import { MemoryCache } from '../../adapters/memory/memory-cache.ts';
import { loadConfig } from '../../bootstrap/config.ts';
import { bindFeatures } from '../../bootstrap/modules/features.ts';
import { bindInfrastructure } from '../../bootstrap/modules/infrastructure.module.ts';
import type { Scheduler } from '../../bootstrap/scheduler.ts';
import { resolve, resolveAll, TOKENS } from '../../bootstrap/tokens.ts';
import { silentLogger } from '../support/test-app.ts';

/** The container of a process with these roles, as app.ts builds it, and the ports it has built so far. */
function wired(t: import('ava').ExecutionContext, roles: string, env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mgs-wiring-'));
  const loaded = loadConfig({ APP_ENV: 'local', DATA_DIR: dataDir, HOST: '127.0.0.1', ROLES: roles, JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-000', ...env });
  if (!loaded.ok) throw new Error(loaded.problems.join('; '));
  const container = new Container({ defaultScope: 'Singleton' });
  bindInfrastructure(container, loaded.config, silentLogger);
  bindFeatures(container, loaded.config);
  const built = new Set<string>();
  for (const [name, key] of [['cache', TOKENS.Cache], ['engine', TOKENS.Engine]] as const) {
    container.onActivation(key, (_context, value) => {
      built.add(name);
      return value;
    });
  }
  t.teardown(async () => {
    if (built.has('engine')) await resolve(container, TOKENS.Engine).close();
    if (built.has('cache')) await resolve(container, TOKENS.Cache).close();
    await resolve(container, TOKENS.Database).close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { container, built };
}

/** What app.ts resolves for these roles, at build and at start. */
function resolveLikeTheApp(container: Container, roles: string[]) {
  if (roles.includes('api')) {
    resolveAll(container, TOKENS.HealthCheck);
    resolveAll(container, TOKENS.RouteModule);
  }
  const lifecycles = resolveAll(container, TOKENS.Lifecycle);
  const handlers = roles.includes('worker') ? resolveAll(container, TOKENS.TaskHandlers).flat() : [];
  return { lifecycles, handlers };
}

test('the scheduler gets every feature task when it is resolved, and only then', async (t) => {
  const { container } = wired(t, 'api,worker');
  const scheduler = resolve(container, TOKENS.Scheduler);
  await t.throwsAsync(scheduler.runNow('job-reconciler'), { message: /no task named job-reconciler/ });
  const { lifecycles } = resolveLikeTheApp(container, ['api', 'worker']);
  t.is(lifecycles.at(-1), scheduler as unknown as (typeof lifecycles)[number], 'the scheduler starts last');
  const names = ['idempotency-key-purge', 'unclaimed-deduction-sweep', 'user-events-purge', 'upload-sweeper', 'output-retention-sweep', 'job-reconciler'];
  // Not started: runNow finds the task (or throws) and runs nothing.
  for (const name of names) await t.notThrowsAsync((scheduler as Scheduler).runNow(name), name);
});

test('a worker-only process builds its handlers and tasks without the API-only parts (no cache)', (t) => {
  const { container, built } = wired(t, 'worker');
  const { handlers } = resolveLikeTheApp(container, ['worker']);
  t.deepEqual(handlers.map((handler) => handler.taskType).sort(), ['generation', 'publish']);
  t.true(built.has('engine'), 'the worker has its engine');
  t.false(built.has('cache'), 'no route (chat, logins, social connections) built the cache');
});

test('an api-only process builds its routes without the worker parts (no engine)', (t) => {
  const { container, built } = wired(t, 'api');
  resolveLikeTheApp(container, ['api']);
  t.false(built.has('engine'));
});

// Pins: a listener of its own only when its port is configured. Unset, no port is opened: the probes and the metrics
// are then served on the API's own port, or not at all in a worker-only process.
test('the health-probe and metrics listeners are bound only when HEALTH_PORT and METRICS_PORT are set', (t) => {
  const listeners = (roles: string, env: Record<string, string> = {}) =>
    resolveLikeTheApp(wired(t, roles, env).container, roles.split(','))
      .lifecycles.map((part) => part.name)
      .filter((name) => name === 'health-probes' || name === 'metrics-listener');
  t.deepEqual(listeners('api,worker'), []);
  t.deepEqual(listeners('worker'), []);
  t.deepEqual(listeners('worker', { HEALTH_PORT: '9101', METRICS_PORT: '9102' }), ['health-probes', 'metrics-listener']);
});

// Pins: /health's cache check reads back what it wrote. A cache that loses writes (here one whose entries expire at
// once, as under eviction) would fail every login and rate limit that counts on it while answering each call.
test('the cache health check fails when the cache does not give back what was written, and passes when it does', async (t) => {
  const cacheCheck = (container: Container) => resolveAll(container, TOKENS.HealthCheck).find((check) => check.name === 'cache')!.check;
  await t.notThrowsAsync(cacheCheck(wired(t, 'api').container)());
  const forgetful = wired(t, 'api').container;
  let clock = 0;
  forgetful.rebind(TOKENS.Cache).toConstantValue(new MemoryCache(() => (clock += 10_000)));
  await t.throwsAsync(cacheCheck(forgetful)(), { message: 'cache did not return what was written' });
});
