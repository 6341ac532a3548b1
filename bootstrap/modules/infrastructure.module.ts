import { Container } from 'inversify';
import { MemoryCache } from '../../adapters/memory/memory-cache.ts';
import { RedisCache } from '../../adapters/redis/redis-cache.ts';
import { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import { SystemClock, RandomIdGenerator } from '../../adapters/system/system-clock.ts';
import type { Cache } from '../../core/ports/cache.port.ts';
import type { Logger } from '../../core/ports/logger.port.ts';
import type { Config } from '../config.ts';
import { TOKENS, type HealthCheckBinding } from '../tokens.ts';

export function bindInfrastructure(container: Container, config: Readonly<Config>, logger: Logger): void {
  container.bind(TOKENS.Config).toConstantValue(config);
  container.bind(TOKENS.Logger).toConstantValue(logger);
  container.bind(TOKENS.Clock).toConstantValue(new SystemClock());
  container.bind(TOKENS.Ids).toConstantValue(new RandomIdGenerator());
  container
    .bind(TOKENS.Database)
    .toDynamicValue(() => new SequelizeDatabase({ url: config.database.url, dialect: config.database.dialect, storagePath: config.database.storagePath }))
    .inSingletonScope();
  container.bind(TOKENS.UnitOfWork).toDynamicValue((ctx) => ctx.get(TOKENS.Database)).inSingletonScope();
  container
    .bind<Cache>(TOKENS.Cache)
    .toDynamicValue(() => (config.cache.driver === 'redis' ? new RedisCache(config.cache.url) : new MemoryCache()))
    .inSingletonScope();

  container.bind<HealthCheckBinding>(TOKENS.HealthCheck).toDynamicValue((ctx) => ({
    name: 'database',
    check: () => ctx.get<SequelizeDatabase>(TOKENS.Database).ping(),
  }));
  container.bind<HealthCheckBinding>(TOKENS.HealthCheck).toDynamicValue((ctx) => ({
    name: 'cache',
    check: async () => {
      const cache = ctx.get<Cache>(TOKENS.Cache);
      await cache.set('health-probe', '1', 5);
      if ((await cache.get('health-probe')) !== '1') throw new Error('cache did not return what was written');
    },
  }));
}
