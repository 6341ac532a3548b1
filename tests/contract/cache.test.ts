import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { MemoryCache } from '../../adapters/memory/memory-cache.ts';
import { RedisCache } from '../../adapters/redis/redis-cache.ts';
import { cacheContract } from './cache.contract.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

cacheContract('memory', async () => {
  const cache = new MemoryCache();
  return { cache, dispose: () => cache.close() };
});

// A prefix of its own per cache, so concurrent runs on one Redis never meet; dispose deletes that prefix's keys only.
cacheContract('redis', async () => {
  const prefix = `mgs-test-cache-${randomBytes(4).toString('hex')}:`;
  const cache = new RedisCache(REDIS_URL, prefix);
  return {
    cache,
    async dispose() {
      await cache.close();
      const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      try {
        const leftovers: string[] = [];
        let cursor = '0';
        do {
          const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 100);
          cursor = next;
          leftovers.push(...found);
        } while (cursor !== '0');
        if (leftovers.length > 0) await redis.del(...leftovers);
      } finally {
        await redis.quit().catch(() => redis.disconnect());
      }
    },
  };
});
