import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { PasswordHasher } from '../../core/ports/password-hasher.port.ts';

/**
 * scrypt runs on libuv's thread pool (UV_THREADPOOL_SIZE threads, 4 by default), which SQLite queries and
 * file I/O share. A burst of logins would fill every thread for seconds and stall the database, whatever
 * the pool's size: hashes leave two threads free, process-wide, and the rest wait their turn here.
 */
const MAX_CONCURRENT_HASHES = Math.max(1, (Number(process.env.UV_THREADPOOL_SIZE) || 4) - 2);
let running = 0;
const waiting: (() => void)[] = [];

async function limited<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT_HASHES) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await work();
  } finally {
    // Hand the slot straight to the next waiter, or free it.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

const scryptAsync = (password: string, salt: Buffer, length: number, options: ScryptOptions): Promise<Buffer> =>
  limited(() => new Promise((resolve, reject) => scrypt(password, salt, length, options, (error, key) => (error ? reject(error) : resolve(key)))));

/** Stored as `scrypt$N$r$p$salt$hash` (base64url) so parameters can be raised later without breaking old hashes. */
export class ScryptPasswordHasher implements PasswordHasher {
  private readonly dummy: Promise<string>;

  constructor(private readonly params = { N: 16384, r: 8, p: 1, keyLength: 64 }) {
    this.dummy = this.hash(randomBytes(16).toString('hex'));
  }

  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const { N, r, p, keyLength } = this.params;
    const key = await scryptAsync(password, salt, keyLength, { N, r, p, maxmem: 64 * 1024 * 1024 });
    return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
  }

  async verify(password: string, stored: string | null): Promise<boolean> {
    const target = stored ?? (await this.dummy);
    const parts = target.split('$');
    if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
    const [, N, r, p, salt, expected] = parts as [string, string, string, string, string, string];
    const expectedKey = Buffer.from(expected, 'base64url');
    const key = await scryptAsync(password, Buffer.from(salt, 'base64url'), expectedKey.length, {
      N: Number(N),
      r: Number(r),
      p: Number(p),
      maxmem: 64 * 1024 * 1024,
    });
    return timingSafeEqual(key, expectedKey) && stored !== null;
  }
}
