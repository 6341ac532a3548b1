/**
 * Object storage keys are built by our own code (`outputs/<userId>/<jobId>/<file>`,
 * `uploads/<userId>/<id>.png`), so a bad key is a bug: adapters throw `InvalidStorageKeyError`.
 * The rules are the intersection of what S3 and a POSIX file system can store without surprises.
 */
export const STORAGE_KEY_MAX_BYTES = 1024;
/** File systems cap a name at 255 bytes; adapters keep room for their own bookkeeping names beside it. */
export const STORAGE_KEY_SEGMENT_MAX_BYTES = 200;

const CONTROL = /[\u0000-\u001f\u007f]/;
const encoder = new TextEncoder();

/** Why a key is unusable, or null when it is fine. */
export function storageKeyProblem(key: unknown): string | null {
  if (typeof key !== 'string' || key.length === 0) return 'must be a non-empty string';
  if (encoder.encode(key).length > STORAGE_KEY_MAX_BYTES) return `must be at most ${STORAGE_KEY_MAX_BYTES} bytes`;
  if (key.startsWith('/')) return 'must be relative (no leading /)';
  if (key.includes('\\')) return 'must not contain a backslash';
  if (CONTROL.test(key)) return 'must not contain NUL or control characters';
  for (const segment of key.split('/')) {
    if (segment.length === 0) return 'must not contain empty segments (// or a trailing /)';
    if (segment === '.' || segment === '..') return 'must not contain . or .. segments';
    // Dot-names are reserved for adapters' own files (temporary bodies, metadata sidecars).
    if (segment.startsWith('.')) return 'must not contain segments starting with a dot';
    if (encoder.encode(segment).length > STORAGE_KEY_SEGMENT_MAX_BYTES) return `segments must be at most ${STORAGE_KEY_SEGMENT_MAX_BYTES} bytes`;
  }
  return null;
}

export class InvalidStorageKeyError extends Error {
  constructor(key: unknown, problem: string) {
    super(`Invalid storage key ${JSON.stringify(String(key).slice(0, 100))}: ${problem}`);
    this.name = 'InvalidStorageKeyError';
  }
}

export function assertStorageKey(key: unknown): asserts key is string {
  const problem = storageKeyProblem(key);
  if (problem !== null) throw new InvalidStorageKeyError(key, problem);
}
