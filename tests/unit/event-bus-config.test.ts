import test from 'ava';
import { load, problemsOf } from '../support/config-env.ts';

const REDIS = 'redis://127.0.0.1:6379';

test('EVENT_BUS_DRIVER defaults to memory, and to redis when the cache is on Redis', (t) => {
  t.deepEqual(load({}).eventBus, { driver: 'memory' });
  t.deepEqual(load({ REDIS_URL: REDIS }).eventBus, { driver: 'memory' }, 'REDIS_URL alone does not switch the bus');
  t.deepEqual(load({ CACHE_DRIVER: 'redis', REDIS_URL: REDIS }).eventBus, { driver: 'redis', url: REDIS });
});

test('EVENT_BUS_DRIVER set explicitly wins over the default', (t) => {
  t.deepEqual(load({ CACHE_DRIVER: 'redis', REDIS_URL: REDIS, EVENT_BUS_DRIVER: 'memory' }).eventBus, { driver: 'memory' });
  t.deepEqual(load({ EVENT_BUS_DRIVER: 'redis', REDIS_URL: REDIS }).eventBus, { driver: 'redis', url: REDIS });
  t.deepEqual(load({ EVENT_BUS_DRIVER: 'redis', REDIS_URL: REDIS }).cache, { driver: 'memory' }, 'the cache keeps its own driver');
});

test('EVENT_BUS_DRIVER=redis needs REDIS_URL, reported once with the other problems', (t) => {
  t.deepEqual(problemsOf({ EVENT_BUS_DRIVER: 'redis', PORT: 'x' }).sort(), [
    'PORT must be an integer from 0 to 65535 (got "x")',
    'REDIS_URL is required when EVENT_BUS_DRIVER=redis',
  ]);
  t.deepEqual(problemsOf({ CACHE_DRIVER: 'redis' }), ['REDIS_URL is required when CACHE_DRIVER=redis'], 'one problem for one missing variable');
  t.deepEqual(problemsOf({ CACHE_DRIVER: 'redis', EVENT_BUS_DRIVER: 'redis' }), ['REDIS_URL is required when CACHE_DRIVER=redis']);
  t.deepEqual(problemsOf({ EVENT_BUS_DRIVER: 'rabbitmq' }), ['AMQP_URL is required when EVENT_BUS_DRIVER=rabbitmq']);
  t.deepEqual(problemsOf({ EVENT_BUS_DRIVER: 'kafka' }), ['EVENT_BUS_DRIVER must be one of memory, redis, rabbitmq (got "kafka")']);
});

test('EVENT_BUS_DRIVER defaults to rabbitmq with QUEUE_DRIVER=rabbitmq and no Redis, sharing its broker', (t) => {
  const AMQP = 'amqp://guest:guest@rabbit:5672';
  t.deepEqual(load({ QUEUE_DRIVER: 'rabbitmq', AMQP_URL: AMQP, AMQP_PREFIX: 'acme' }).eventBus, { driver: 'rabbitmq', url: AMQP, prefix: 'acme' });
  t.deepEqual(load({ QUEUE_DRIVER: 'rabbitmq', AMQP_URL: AMQP, CACHE_DRIVER: 'redis', REDIS_URL: 'redis://cache:6379' }).eventBus, { driver: 'redis', url: 'redis://cache:6379' }, 'Redis wins when it is there');
  t.deepEqual(load({ EVENT_BUS_DRIVER: 'rabbitmq', AMQP_URL: AMQP }).eventBus, { driver: 'rabbitmq', url: AMQP, prefix: 'media-gen' });
});
