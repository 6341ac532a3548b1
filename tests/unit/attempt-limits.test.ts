import test from 'ava';
import { MemoryCache } from '../../adapters/memory/memory-cache.ts';
import { reserveAttempt } from '../../core/use-cases/auth/attempt-limits.service.ts';

test('a limit further down the list that refuses gives back the hits taken before it', async (t) => {
  const cache = new MemoryCache();
  t.teardown(() => cache.close());
  const limits = [
    { key: 'pair', max: 5 },
    { key: 'account', max: 1 },
  ];
  t.true((await reserveAttempt(cache, limits, 60)).ok);
  const refused = await reserveAttempt(cache, limits, 60);
  t.false(refused.ok);
  t.true(!refused.ok && refused.retryAfterSeconds > 0 && refused.retryAfterSeconds <= 60);
  t.is((await cache.counter('pair'))?.count, 1, 'the refused attempt left nothing on the first counter');
  t.is((await cache.counter('account'))?.count, 1);
});

test('release gives every hit back', async (t) => {
  const cache = new MemoryCache();
  t.teardown(() => cache.close());
  const limits = [
    { key: 'a', max: 2 },
    { key: 'b', max: 2 },
  ];
  for (let i = 0; i < 5; i++) {
    const reserved = await reserveAttempt(cache, limits, 60);
    if (!reserved.ok) return t.fail('a released attempt counted');
    await reserved.release();
  }
  t.is((await cache.counter('a'))?.count, 0);
  t.is((await cache.counter('b'))?.count, 0);
});
