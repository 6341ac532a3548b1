import type { Cache } from '../../ports/cache.port.ts';

/** One counter of attempts: a cache key and how many hits its window allows. */
export interface AttemptLimit {
  key: string;
  max: number;
}

export type Reservation = { ok: true; release(): Promise<void> } | { ok: false; retryAfterSeconds: number };

/**
 * Counts an attempt against every limit, in order, before the work it guards (ADR 020): the increment is
 * atomic on the cache, so of N parallel attempts at most `max` get through, wherever they run. The first
 * limit that is full refuses, and the hits already taken for the earlier ones are given back, so a refused
 * attempt fills nothing further down the list. `release()` gives the hits back after an attempt that should
 * not count (a successful login, a failed sign-up).
 */
export async function reserveAttempt(cache: Cache, limits: readonly AttemptLimit[], windowSeconds: number): Promise<Reservation> {
  const taken: string[] = [];
  const release = async (): Promise<void> => {
    for (const key of taken) await cache.decrement(key);
  };
  for (const limit of limits) {
    const hit = await cache.increment(limit.key, windowSeconds);
    taken.push(limit.key);
    if (hit.count > limit.max) {
      await release();
      return { ok: false, retryAfterSeconds: Math.max(1, hit.ttlSeconds) };
    }
  }
  return { ok: true, release };
}
