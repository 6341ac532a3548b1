import test from 'ava';
import { MemoryCache } from '../../adapters/memory/memory-cache.ts';
import { MemoryObjectStorage } from '../../adapters/memory/memory-object-storage.ts';
import { RandomIdGenerator, SystemClock } from '../../adapters/system/system-clock.ts';
import { ProbeCache } from '../../core/use-cases/diagnostics/probe-cache.use-case.ts';
import { ProbeStorage } from '../../core/use-cases/diagnostics/probe-storage.use-case.ts';

const deps = { ids: new RandomIdGenerator(), clock: new SystemClock() };

test('the cache probe passes on a working cache and fails when get or delete do not do their job', async (t) => {
  t.true((await new ProbeCache({ ...deps, cache: new MemoryCache() }).execute()).latencyMs >= 0);

  const forgetful = new MemoryCache();
  forgetful.set = async () => undefined;
  await t.throwsAsync(new ProbeCache({ ...deps, cache: forgetful }).execute(), { message: /returned nothing/ });

  const sticky = new MemoryCache();
  sticky.delete = async () => undefined;
  await t.throwsAsync(new ProbeCache({ ...deps, cache: sticky }).execute(), { message: /kept the probe key/ });
});

test('the storage probe passes on a working storage and fails when it loses, alters or keeps the object', async (t) => {
  t.true((await new ProbeStorage({ ...deps, storage: new MemoryObjectStorage() }).execute()).latencyMs >= 0);

  const losing = new MemoryObjectStorage();
  losing.get = async () => null;
  await t.throwsAsync(new ProbeStorage({ ...deps, storage: losing }).execute(), { message: /lost the probe/ });

  const altering = new MemoryObjectStorage();
  const put = altering.put.bind(altering);
  altering.put = (key, body, info) => put(key, Buffer.alloc((body as Buffer).length, 120), info);
  await t.throwsAsync(new ProbeStorage({ ...deps, storage: altering }).execute(), { message: /different bytes/ });

  const sticky = new MemoryObjectStorage();
  sticky.delete = async () => undefined;
  await t.throwsAsync(new ProbeStorage({ ...deps, storage: sticky }).execute(), { message: /kept the probe object/ });
});
