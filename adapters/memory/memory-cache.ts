import type { Cache } from '../../core/ports/cache.port.ts';

interface Entry {
  value: string;
  expiresAt: number;
}

export class MemoryCache implements Cache {
  private readonly entries = new Map<string, Entry>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  private live(key: string): Entry | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return null;
    }
    return entry;
  }

  async get(key: string): Promise<string | null> {
    return this.live(key)?.value ?? null;
  }

  async set(key: string, value: string, ttlSeconds: number): Promise<void> {
    this.entries.set(key, { value, expiresAt: this.now() + ttlSeconds * 1000 });
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }

  async increment(key: string, windowSeconds: number): Promise<{ count: number; ttlSeconds: number }> {
    const entry = this.live(key);
    if (!entry) {
      this.entries.set(key, { value: '1', expiresAt: this.now() + windowSeconds * 1000 });
      return { count: 1, ttlSeconds: windowSeconds };
    }
    entry.value = String(Number(entry.value) + 1);
    return { count: Number(entry.value), ttlSeconds: Math.ceil((entry.expiresAt - this.now()) / 1000) };
  }

  async decrement(key: string): Promise<void> {
    const entry = this.live(key);
    if (entry) entry.value = String(Math.max(0, Number(entry.value) - 1));
  }

  async counter(key: string): Promise<{ count: number; ttlSeconds: number } | null> {
    const entry = this.live(key);
    return entry ? { count: Number(entry.value), ttlSeconds: Math.ceil((entry.expiresAt - this.now()) / 1000) } : null;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.entries.clear();
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }
}
