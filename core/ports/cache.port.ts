/** A small shared key-value store with expiry: rate-limit counters, revoked access tokens. */
export interface Cache {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  delete(key: string): Promise<void>;
  /** Adds one and returns the new count and the seconds left in the window (which starts at the first hit). */
  increment(key: string, windowSeconds: number): Promise<{ count: number; ttlSeconds: number }>;
  /** Takes back one hit of a live counter (a refund); never below zero, never creates one, keeps its window. */
  decrement(key: string): Promise<void>;
  /** Reads a counter made by increment without changing it; null when absent or expired. */
  counter(key: string): Promise<{ count: number; ttlSeconds: number } | null>;
  close(): Promise<void>;
}
