import type { ApiKey } from '../domain/api-key.ts';

export interface ApiKeyRepository {
  create(key: ApiKey): Promise<void>;
  /** The key with this prefix, revoked or not; null when there is none. */
  findByPrefix(prefix: string): Promise<ApiKey | null>;
  /** The user's keys that are not revoked, newest first. */
  listByUser(userId: string): Promise<ApiKey[]>;
  /** Revokes the user's own live key; the revoked key, or null when there is no such live key of theirs. */
  revoke(id: string, userId: string, at: Date): Promise<ApiKey | null>;
  /** Revokes every live key of the user (a deleted account, ADR 063); the ids it revoked. */
  revokeAllForUser(userId: string, at: Date): Promise<string[]>;
  /** Sets the last use to `at` unless one at or after `notBefore` is already stored (one write a minute per key). */
  touch(id: string, at: Date, notBefore: Date): Promise<void>;
}
