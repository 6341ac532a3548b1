import { Redis } from 'ioredis';
import type { Cache } from '../../core/ports/cache.port.ts';

// INCR and the window's expiry must be one step, or a crash between them leaves a counter that never expires.
const INCREMENT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('TTL', KEYS[1])}
`;

// A refund: only a live counter above zero goes down, and its expiry stays as it was.
const DECREMENT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then redis.call('DECR', KEYS[1]) end
return 0
`;

export class RedisCache implements Cache {
  private readonly redis: Redis;

  constructor(url: string, private readonly prefix = 'mgs:') {
    this.redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  }

  async get(key: string): Promise<string | null> {
    return this.redis.get(this.prefix + key);
  }

  async set(key: string, value: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(this.prefix + key, value, 'EX', Math.max(1, Math.ceil(ttlSeconds)));
  }

  async delete(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }

  async increment(key: string, windowSeconds: number): Promise<{ count: number; ttlSeconds: number }> {
    const [count, ttl] = (await this.redis.eval(INCREMENT, 1, this.prefix + key, Math.max(1, Math.ceil(windowSeconds)))) as [number, number];
    return { count, ttlSeconds: ttl };
  }

  async decrement(key: string): Promise<void> {
    await this.redis.eval(DECREMENT, 1, this.prefix + key);
  }

  async counter(key: string): Promise<{ count: number; ttlSeconds: number } | null> {
    const [value, ttl] = await Promise.all([this.redis.get(this.prefix + key), this.redis.ttl(this.prefix + key)]);
    return value === null ? null : { count: Number(value), ttlSeconds: Math.max(0, ttl) };
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
