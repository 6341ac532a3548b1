import type { ApiKey } from '../../core/domain/api-key.ts';
import type { ApiKeyRepository } from '../../core/ports/api-key-repository.port.ts';
import type { MemoryStore } from './memory-store.ts';

const copy = (key: ApiKey): ApiKey => structuredClone(key);

export class MemoryApiKeyRepository implements ApiKeyRepository {
  private readonly keys: Map<string, ApiKey>;

  constructor(store: MemoryStore) {
    this.keys = store.table('api_keys');
  }

  async create(key: ApiKey): Promise<void> {
    if ([...this.keys.values()].some((stored) => stored.id === key.id || stored.prefix === key.prefix)) throw new Error(`API key ${key.id} is already stored`);
    this.keys.set(key.id, copy(key));
  }

  async findByPrefix(prefix: string): Promise<ApiKey | null> {
    const found = [...this.keys.values()].find((key) => key.prefix === prefix);
    return found ? copy(found) : null;
  }

  async listByUser(userId: string): Promise<ApiKey[]> {
    return [...this.keys.values()]
      .filter((key) => key.userId === userId && key.revokedAt === null)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
      .map(copy);
  }

  async revoke(id: string, userId: string, at: Date): Promise<ApiKey | null> {
    const key = this.keys.get(id);
    if (!key || key.userId !== userId || key.revokedAt !== null) return null;
    const revoked = { ...key, revokedAt: at };
    this.keys.set(id, revoked);
    return copy(revoked);
  }

  async revokeAllForUser(userId: string, at: Date): Promise<string[]> {
    const live = [...this.keys.values()].filter((key) => key.revokedAt === null && key.userId === userId);
    for (const key of live) this.keys.set(key.id, { ...key, revokedAt: at });
    return live.map((key) => key.id);
  }

  async touch(id: string, at: Date, notBefore: Date): Promise<void> {
    const key = this.keys.get(id);
    if (!key || (key.lastUsedAt !== null && key.lastUsedAt.getTime() >= notBefore.getTime())) return;
    this.keys.set(id, { ...key, lastUsedAt: at });
  }
}
