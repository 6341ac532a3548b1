import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { Cache } from '../../core/ports/cache.port.ts';
import { sleep } from './fixtures.ts';

export interface CacheFixture {
  cache: Cache;
  /** Closes the cache and removes whatever the test left on a shared server. */
  dispose(): Promise<void>;
}

/** Registers the Cache contract for one adapter; `make()` returns a fresh, empty cache (real time: expiry is waited for). */
export function cacheContract(name: string, make: () => Promise<CacheFixture>): void {
  const open = async (t: { teardown(fn: () => Promise<void>): void }): Promise<Cache> => {
    const fixture = await make();
    t.teardown(() => fixture.dispose());
    return fixture.cache;
  };
  const key = (what: string) => `${what}:${randomUUID()}`;

  test(`${name}: set, get, overwrite and delete`, async (t) => {
    const cache = await open(t);
    const k = key('kv');
    t.is(await cache.get(k), null);
    await cache.set(k, 'first ✓', 60);
    t.is(await cache.get(k), 'first ✓');
    await cache.set(k, 'second', 60);
    t.is(await cache.get(k), 'second');
    const other = key('kv');
    await cache.set(other, '', 60);
    t.is(await cache.get(other), '', 'an empty string is a value');
    await cache.delete(k);
    t.is(await cache.get(k), null);
    t.is(await cache.get(other), '');
    await cache.delete(k);
    await cache.delete(key('never-set'));
  });

  test(`${name}: a value expires after its ttl`, async (t) => {
    const cache = await open(t);
    const short = key('short');
    const long = key('long');
    await cache.set(short, 'soon gone', 1);
    await cache.set(long, 'stays', 60);
    t.is(await cache.get(short), 'soon gone');
    await sleep(1300);
    t.is(await cache.get(short), null);
    t.is(await cache.get(long), 'stays');
  });

  test(`${name}: increment counts within a window that starts at the first hit`, async (t) => {
    const cache = await open(t);
    const k = key('hits');
    t.deepEqual(await cache.increment(k, 2), { count: 1, ttlSeconds: 2 });
    const second = await cache.increment(k, 2);
    t.is(second.count, 2);
    t.true(second.ttlSeconds >= 1 && second.ttlSeconds <= 2, `ttl ${second.ttlSeconds}`);
    await sleep(1200);
    const third = await cache.increment(k, 2);
    t.is(third.count, 3, 'the same window');
    t.true(third.ttlSeconds <= 1, `a later hit does not extend the window (ttl ${third.ttlSeconds})`);
    await sleep(1000);
    t.deepEqual(await cache.increment(k, 2), { count: 1, ttlSeconds: 2 }, 'a new window after the old one ended');
  });

  test(`${name}: counters of different keys are independent`, async (t) => {
    const cache = await open(t);
    const [a, b] = [key('a'), key('b')];
    await cache.increment(a, 60);
    await cache.increment(a, 60);
    t.is((await cache.increment(b, 60)).count, 1);
    t.is((await cache.increment(a, 60)).count, 3);
  });

  test(`${name}: counter reads a counter without changing it; null when absent or expired`, async (t) => {
    const cache = await open(t);
    const k = key('read');
    t.is(await cache.counter(k), null);
    await cache.increment(k, 1);
    await cache.increment(k, 1);
    const read = await cache.counter(k);
    t.is(read?.count, 2);
    t.true(read!.ttlSeconds >= 0 && read!.ttlSeconds <= 1, `ttl ${read!.ttlSeconds}`);
    t.is((await cache.counter(k))?.count, 2, 'reading changed nothing');
    t.is((await cache.increment(k, 1)).count, 3);
    await sleep(1300);
    t.is(await cache.counter(k), null);
  });

  test(`${name}: 40 parallel increments of one key each get a different count (atomic)`, async (t) => {
    const cache = await open(t);
    const k = key('burst');
    const counts = (await Promise.all(Array.from({ length: 40 }, () => cache.increment(k, 60)))).map((hit) => hit.count);
    t.deepEqual(counts.sort((a, b) => a - b), Array.from({ length: 40 }, (_, i) => i + 1));
    t.true((await cache.counter(k))!.ttlSeconds > 0, 'the window has an expiry');
  });

  test(`${name}: decrement takes back one hit, never below zero and never creating a counter`, async (t) => {
    const cache = await open(t);
    const k = key('give-back');
    await cache.decrement(k);
    t.is(await cache.counter(k), null, 'no counter made');
    await cache.increment(k, 60);
    await cache.increment(k, 60);
    await cache.decrement(k);
    const read = await cache.counter(k);
    t.is(read?.count, 1);
    t.true(read!.ttlSeconds > 0 && read!.ttlSeconds <= 60, 'the window is kept');
    await cache.decrement(k);
    await cache.decrement(k);
    t.true(((await cache.counter(k))?.count ?? 0) === 0);
    t.is((await cache.increment(k, 60)).count, 1);
  });
}
