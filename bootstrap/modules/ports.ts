import type { Container } from 'inversify';
import { resolve, TOKENS } from '../tokens.ts';

/** Typed lookups of the shared ports, so feature modules build their use cases without casts. */
export const portsOf = (container: Container) => ({
  config: () => resolve(container, TOKENS.Config),
  logger: () => resolve(container, TOKENS.Logger),
  clock: () => resolve(container, TOKENS.Clock),
  ids: () => resolve(container, TOKENS.Ids),
  db: () => resolve(container, TOKENS.Database),
  uow: () => resolve(container, TOKENS.UnitOfWork),
  /** The repositories outside any transaction. */
  repos: () => resolve(container, TOKENS.Repositories),
  cache: () => resolve(container, TOKENS.Cache),
  hasher: () => resolve(container, TOKENS.PasswordHasher),
  tokens: () => resolve(container, TOKENS.TokenIssuer),
  bus: () => resolve(container, TOKENS.EventBus),
  /** Bound by storage.module.ts (STORAGE_DRIVER). */
  storage: () => resolve(container, TOKENS.ObjectStorage),
  /** Bound by queue.module.ts (QUEUE_DRIVER). */
  queue: () => resolve(container, TOKENS.Queue),
  /** Bound by metrics.module.ts: a no-op unless metrics are configured. */
  metrics: () => resolve(container, TOKENS.JobMetrics),
});
