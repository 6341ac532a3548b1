import type { IdentityRepository, LinkedIdentity } from '../../core/ports/identity-repository.port.ts';
import type { MemoryStore } from './memory-store.ts';

const keyOf = (provider: string, subject: string) => `${provider}\u0000${subject}`;

export class MemoryIdentityRepository implements IdentityRepository {
  private readonly identities: Map<string, LinkedIdentity>;

  constructor(store: MemoryStore) {
    this.identities = store.table<LinkedIdentity>('user_identities');
  }

  async link(identity: LinkedIdentity): Promise<boolean> {
    if (this.identities.has(keyOf(identity.provider, identity.subject))) return false;
    for (const existing of this.identities.values()) if (existing.userId === identity.userId && existing.provider === identity.provider) return false;
    this.identities.set(keyOf(identity.provider, identity.subject), { ...identity });
    return true;
  }

  async findBySubject(provider: string, subject: string): Promise<LinkedIdentity | null> {
    const found = this.identities.get(keyOf(provider, subject));
    return found ? { ...found } : null;
  }

  async listForUser(userId: string): Promise<LinkedIdentity[]> {
    return [...this.identities.values()]
      .filter((identity) => identity.userId === userId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.provider.localeCompare(b.provider))
      .map((identity) => ({ ...identity }));
  }

  async unlink(userId: string, provider: string): Promise<boolean> {
    for (const [key, identity] of this.identities) {
      if (identity.userId === userId && identity.provider === provider) return this.identities.delete(key);
    }
    return false;
  }

  async unlinkAll(userId: string): Promise<number> {
    let removed = 0;
    for (const [key, identity] of this.identities) if (identity.userId === userId && this.identities.delete(key)) removed += 1;
    return removed;
  }
}
