import type { Cache } from '../ports/cache.port.ts';

/**
 * Records of an authorization between the redirect to a third party and its callback, kept server-side on
 * the cache port (shared by every API process when it is Redis), keyed by their state, and taken once: the
 * first caller claims a state with an atomic counter, so a replayed (or racing) callback finds nothing.
 */
export class SingleUseStates<T extends { state: string }> {
  constructor(
    private readonly cache: Cache,
    private readonly options: { prefix: string; ttlSeconds: number; isComplete(record: Partial<T>): boolean },
  ) {}

  async save(record: T): Promise<void> {
    await this.cache.set(`${this.options.prefix}:pending:${record.state}`, JSON.stringify(record), this.options.ttlSeconds);
  }

  /** The record of `state`, once; null for an unknown, expired, used or incomplete one. */
  async take(state: string): Promise<T | null> {
    const claim = await this.cache.increment(`${this.options.prefix}:used:${state}`, this.options.ttlSeconds);
    if (claim.count > 1) return null;
    const stored = await this.cache.get(`${this.options.prefix}:pending:${state}`);
    // Left to expire rather than deleted: the claim above is what makes it single-use, atomically.
    if (stored === null) return null;
    const record = JSON.parse(stored) as Partial<T>;
    return record.state === state && this.options.isComplete(record) ? (record as T) : null;
  }
}
