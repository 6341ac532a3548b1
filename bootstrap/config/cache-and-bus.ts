import type { QueueConfig } from './queue.ts';
import type { Reader } from './reader.ts';

export type CacheConfig = { driver: 'memory' } | { driver: 'redis'; url: string };
/** EVENT_BUS_DRIVER: how user events and cancel requests reach the other processes (memory: this process only). */
export type EventBusConfig = { driver: 'memory' } | { driver: 'redis'; url: string } | { driver: 'rabbitmq'; url: string; prefix: string };

/** CACHE_DRIVER (memory or redis, REDIS_URL) and EVENT_BUS_DRIVER, whose default and URL follow the cache and the queue. */
export function readCacheAndBus(read: Reader, ctx: { queue: QueueConfig }): { cache: CacheConfig; eventBus: EventBusConfig } {
  const { queue } = ctx;
  const cacheDriver = read.oneOf('CACHE_DRIVER', 'memory', ['memory', 'redis'] as const);
  const cache: CacheConfig =
    cacheDriver === 'redis' ? { driver: 'redis', url: read.required('REDIS_URL', 'when CACHE_DRIVER=redis') } : { driver: 'memory' };

  // Redis already there for the cache carries the events too; else RabbitMQ when it is the queue; unless told otherwise.
  const defaultBus = cacheDriver === 'redis' ? 'redis' : queue.driver === 'rabbitmq' ? 'rabbitmq' : 'memory';
  const eventBusDriver = read.oneOf('EVENT_BUS_DRIVER', defaultBus, ['memory', 'redis', 'rabbitmq'] as const);
  let eventBus: EventBusConfig = { driver: 'memory' };
  if (eventBusDriver === 'rabbitmq') {
    eventBus =
      queue.driver === 'rabbitmq'
        ? { driver: 'rabbitmq', url: queue.amqpUrl, prefix: queue.prefix }
        : { driver: 'rabbitmq', url: read.required('AMQP_URL', 'when EVENT_BUS_DRIVER=rabbitmq'), prefix: read.string('AMQP_PREFIX', 'media-gen') };
  }
  if (eventBusDriver === 'redis') {
    // CACHE_DRIVER=redis has reported a missing REDIS_URL already.
    const url = cacheDriver === 'redis' ? read.raw('REDIS_URL') ?? '' : read.required('REDIS_URL', 'when EVENT_BUS_DRIVER=redis');
    eventBus = { driver: 'redis', url };
  }
  return { cache, eventBus };
}
