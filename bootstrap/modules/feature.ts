import type { Container } from 'inversify';
import type { RouteModule } from '../../adapters/http/http-app.ts';
import type { Config } from '../config.ts';
import type { ScheduledTask } from '../scheduler.ts';
import { resolve, TOKENS, type TaskHandlerBinding, type Token } from '../tokens.ts';
import { portsOf } from './ports.ts';

/** The shared ports a feature factory builds its objects from (lazy lookups: a factory calls each while it builds). */
export type FeaturePorts = ReturnType<typeof portsOf>;

/**
 * What a feature's factory returns (ADR 028). The factory builds every object once, when it runs; the
 * routes and handlers below call those objects, never the container.
 */
export interface Feature<Exports extends object = Record<never, never>> {
  /** Mounted in this order. Empty in a process without the api role: see `forApi`. */
  routes: RouteModule[];
  /** Periodic work: `run` calls a use case the factory built. The scheduler runs each in the processes of its roles. */
  scheduled: ScheduledTask[];
  /** The worker's handlers of task types. Empty in a process without the worker role: see `forWorker`. */
  handlers?: TaskHandlerBinding[];
  /** What other features and this module's bindings use. */
  exports: Exports;
}

/**
 * Builds what only the api role uses (routes and what they alone need), else nothing: a worker-only process
 * must not open the connections of API-only parts (the cache of the chat or of pending logins, for instance).
 */
export const forApi = <T>(config: Readonly<Config>, build: () => T[]): T[] => (config.roles.includes('api') ? build() : []);

/** Builds what only the worker role uses (handlers, the engine behind them), else nothing. */
export const forWorker = <T>(config: Readonly<Config>, build: () => T[]): T[] => (config.roles.includes('worker') ? build() : []);

/**
 * Binds a feature: its factory runs once, the first time something needs it (the api role's routes while the
 * application is built, the scheduler's tasks or the worker's handlers at start, or an export), and Inversify
 * holds the result. Its routes become one RouteModule entry (so they keep their place among the features'),
 * its tasks and handlers one entry each of TOKENS.ScheduledTasks and TOKENS.TaskHandlers.
 */
export function bindFeature<F extends Feature<object>>(container: Container, name: string, build: (ports: FeaturePorts) => F): () => F {
  const key = Symbol(`${name} feature`) as Token<F>;
  const ports = portsOf(container);
  container.bind(key).toDynamicValue(() => build(ports)).inSingletonScope();
  const feature = () => resolve(container, key);
  container.bind(TOKENS.RouteModule).toDynamicValue(() => {
    const { routes } = feature();
    const all: RouteModule = (api) => routes.forEach((register) => register(api));
    return all;
  });
  container.bind(TOKENS.ScheduledTasks).toDynamicValue(() => feature().scheduled);
  container.bind(TOKENS.TaskHandlers).toDynamicValue(() => feature().handlers ?? []);
  return feature;
}
