import { Container } from 'inversify';
import { MemoryCache } from '../../adapters/memory/memory-cache.ts';
import { RedisCache } from '../../adapters/redis/redis-cache.ts';
import { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import type { SequelizeMessageQueue } from '../../adapters/sequelize/sequelize-message-queue.ts';
import { SequelizeUnitOfWork } from '../../adapters/sequelize/sequelize-unit-of-work.ts';
import type { SqlScope } from '../../adapters/sequelize/sql-scope.ts';
import { SystemClock, RandomIdGenerator } from '../../adapters/system/system-clock.ts';
import type { Logger } from '../../core/ports/logger.port.ts';
import type { Config } from '../config.ts';
import { Scheduler } from '../scheduler.ts';
import { resolve, TOKENS } from '../tokens.ts';

export function bindInfrastructure(container: Container, config: Readonly<Config>, logger: Logger): void {
  container.bind(TOKENS.Config).toConstantValue(config);
  container.bind(TOKENS.Logger).toConstantValue(logger);
  container.bind(TOKENS.Clock).toConstantValue(new SystemClock());
  container.bind(TOKENS.Ids).toConstantValue(new RandomIdGenerator());
  container.bind(TOKENS.Scheduler).toConstantValue(new Scheduler(config.roles, logger.child({ component: 'scheduler' })));
  container
    .bind(TOKENS.Database)
    .toDynamicValue(
      () =>
        new SequelizeDatabase({
          url: config.database.url,
          dialect: config.database.dialect,
          ...(config.database.storagePath ? { storagePath: config.database.storagePath } : {}),
          onHookError: (error) => logger.error('after-commit hook failed', { error: String(error) }),
        }),
    )
    .inSingletonScope();
  // With the queue in the same database, a transaction puts its messages straight on it (exactly once, no relay hop);
  // other queues get an outbox row that the relay publishes after the commit.
  const outboxWriter =
    config.queue.driver === 'db' ? (scope: SqlScope) => (resolve(container, TOKENS.Queue) as SequelizeMessageQueue).writerOn(scope) : undefined;
  const unitOfWork = () => new SequelizeUnitOfWork(resolve(container, TOKENS.Database), outboxWriter ? { outboxWriter } : {});
  container.bind(TOKENS.UnitOfWork).toDynamicValue(unitOfWork).inSingletonScope();
  const sequelizeUow = () => resolve(container, TOKENS.UnitOfWork) as SequelizeUnitOfWork;
  container.bind(TOKENS.Repositories).toDynamicValue(() => sequelizeUow().autocommit).inSingletonScope();
  container.bind(TOKENS.Outbox).toDynamicValue(() => sequelizeUow().outbox).inSingletonScope();
  container
    .bind(TOKENS.Cache)
    .toDynamicValue(() => (config.cache.driver === 'redis' ? new RedisCache(config.cache.url) : new MemoryCache()))
    .inSingletonScope();

  // The checks look their port up once, when the api role resolves them, not on every call.
  container.bind(TOKENS.HealthCheck).toDynamicValue(() => {
    const database = resolve(container, TOKENS.Database);
    return { name: 'database', check: () => database.ping() };
  });
  container.bind(TOKENS.HealthCheck).toDynamicValue(() => {
    const cache = resolve(container, TOKENS.Cache);
    return {
      name: 'cache',
      check: async () => {
        await cache.set('health-probe', '1', 5);
        if ((await cache.get('health-probe')) !== '1') throw new Error('cache did not return what was written');
      },
    };
  });
}
