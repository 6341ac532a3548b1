import type { LoginCheck, RefreshTokenRecord, SessionRepository } from '../../core/ports/session-repository.port.ts';
import type { MemoryStore } from './memory-store.ts';

export class MemorySessionRepository implements SessionRepository {
  constructor(private readonly store: MemoryStore) {}

  async create(session: Omit<RefreshTokenRecord, 'rotatedAt' | 'revokedAt'>): Promise<void> {
    this.store.sessions.set(session.id, { ...session, rotatedAt: null, revokedAt: null });
  }

  async findByTokenHash(tokenHash: string): Promise<RefreshTokenRecord | null> {
    for (const session of this.store.sessions.values()) if (session.tokenHash === tokenHash) return { ...session };
    return null;
  }

  async markRotated(id: string, at: Date): Promise<boolean> {
    const session = this.store.sessions.get(id);
    if (!session || session.rotatedAt || session.revokedAt) return false;
    session.rotatedAt = at;
    return true;
  }

  async revokeFamily(familyId: string, at: Date): Promise<void> {
    for (const session of this.store.sessions.values()) {
      if (session.familyId === familyId && !session.revokedAt) session.revokedAt = at;
    }
  }

  async activeFamilies(userId: string, now: Date): Promise<string[]> {
    const revoked = new Set([...this.store.sessions.values()].filter((session) => session.revokedAt).map((session) => session.familyId));
    const live = [...this.store.sessions.values()].filter((session) => session.userId === userId && !revoked.has(session.familyId) && session.expiresAt > now);
    return [...new Set(live.map((session) => session.familyId))];
  }

  async loginState(userId: string, familyId: string | null): Promise<LoginCheck> {
    const stored = this.store.users.get(userId);
    if (!stored || stored.deletedAt) return { state: 'no-user' };
    for (const session of this.store.sessions.values()) if (familyId !== null && session.familyId === familyId && session.revokedAt) return { state: 'revoked' };
    const { passwordHash: _hidden, passwordReset: _link, deletedAt: _deleted, ...user } = stored;
    return { state: 'active', user: { ...user } };
  }
}
