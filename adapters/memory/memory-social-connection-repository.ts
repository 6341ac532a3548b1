import type { SocialConnection, SocialPlatform } from '../../core/domain/social.ts';
import type { SocialConnectionRepository } from '../../core/ports/social-connection-repository.port.ts';
import type { MemoryStore } from './memory-store.ts';

const keyOf = (userId: string, platform: string) => `${userId}\u0000${platform}`;
const copy = (connection: SocialConnection): SocialConnection => ({
  ...connection,
  expiresAt: connection.expiresAt ? new Date(connection.expiresAt) : null,
  createdAt: new Date(connection.createdAt),
  updatedAt: new Date(connection.updatedAt),
});

export class MemorySocialConnectionRepository implements SocialConnectionRepository {
  private readonly connections: Map<string, SocialConnection>;

  constructor(private readonly store: MemoryStore) {
    this.connections = store.table<SocialConnection>('social_connections');
  }

  async save(connection: Omit<SocialConnection, 'version'>): Promise<void> {
    // Like the foreign key: a connection needs its user.
    if (!this.store.users.has(connection.userId)) throw new Error(`no user ${connection.userId}`);
    // The scope column holds 1024 characters; the SQL stores cut a longer one to that, and so does this one.
    const scope = connection.scope?.slice(0, 1024) ?? null;
    this.connections.set(keyOf(connection.userId, connection.platform), copy({ ...connection, scope, version: 1 }));
  }

  async find(userId: string, platform: SocialPlatform): Promise<SocialConnection | null> {
    const found = this.live(userId, platform);
    return found ? copy(found) : null;
  }

  async listForUser(userId: string): Promise<SocialConnection[]> {
    return [...this.connections.values()].filter((c) => c.userId === userId && this.store.users.has(userId)).sort((a, b) => a.platform.localeCompare(b.platform)).map(copy);
  }

  async listAfter(after: { userId: string; platform: SocialPlatform } | null, max: number): Promise<SocialConnection[]> {
    return [...this.connections.values()]
      .filter((c) => this.store.users.has(c.userId))
      .filter((c) => !after || c.userId > after.userId || (c.userId === after.userId && c.platform > after.platform))
      .sort((a, b) => (a.userId === b.userId ? (a.platform < b.platform ? -1 : 1) : a.userId < b.userId ? -1 : 1))
      .slice(0, max)
      .map(copy);
  }

  async replaceTokens(
    userId: string,
    platform: SocialPlatform,
    fromVersion: number,
    tokens: Pick<SocialConnection, 'accessToken' | 'refreshToken' | 'expiresAt' | 'updatedAt'>,
  ): Promise<boolean> {
    const found = this.live(userId, platform);
    if (!found || found.version !== fromVersion) return false;
    // Only the four token fields, as the SQL update writes them: anything else the caller's object holds is not stored.
    const { accessToken, refreshToken, expiresAt, updatedAt } = tokens;
    this.connections.set(keyOf(userId, platform), copy({ ...found, accessToken, refreshToken, expiresAt, updatedAt, version: found.version + 1 }));
    return true;
  }

  async delete(userId: string, platform: SocialPlatform): Promise<SocialConnection | null> {
    const found = this.live(userId, platform);
    this.connections.delete(keyOf(userId, platform));
    return found ? copy(found) : null;
  }

  /** A row whose user was deleted is gone (the foreign key cascades in SQL). */
  private live(userId: string, platform: SocialPlatform): SocialConnection | undefined {
    return this.store.users.has(userId) ? this.connections.get(keyOf(userId, platform)) : undefined;
  }
}
