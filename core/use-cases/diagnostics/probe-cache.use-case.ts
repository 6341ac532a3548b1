import type { Cache } from '../../ports/cache.port.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';

export interface ProbeCacheDeps {
  cache: Cache;
  ids: IdGenerator;
  clock: Clock;
}

/** A set/get/delete round trip on the cache; throws when a step does not do what it says. */
export class ProbeCache {
  constructor(private readonly deps: ProbeCacheDeps) {}

  async execute(): Promise<{ latencyMs: number }> {
    const { cache, ids, clock } = this.deps;
    const started = clock.now().getTime();
    const key = `diagnostics:probe:${ids.newId()}`;
    const value = ids.newId();
    await cache.set(key, value, 60);
    try {
      const read = await cache.get(key);
      if (read !== value) throw new Error(`cache returned ${read === null ? 'nothing' : 'another value'} for the probe key`);
    } finally {
      await cache.delete(key);
    }
    if ((await cache.get(key)) !== null) throw new Error('cache kept the probe key after deleting it');
    return { latencyMs: clock.now().getTime() - started };
  }
}
