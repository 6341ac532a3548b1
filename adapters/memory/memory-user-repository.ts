import { offsetOf, pageOf, type Page, type PageRequest } from '../../core/domain/pagination.ts';
import type { User, UserRole } from '../../core/domain/user.ts';
import type { NewUser, UserRepository } from '../../core/ports/user-repository.port.ts';
import type { MemoryStore, StoredUser } from './memory-store.ts';

const publicUser = ({ passwordHash: _hidden, passwordReset: _link, ...user }: StoredUser): User => ({ ...user });

export class MemoryUserRepository implements UserRepository {
  constructor(private readonly store: MemoryStore) {}

  async create(user: NewUser): Promise<boolean> {
    for (const existing of this.store.users.values()) if (existing.email === user.email) return false;
    this.store.users.set(user.id, {
      id: user.id,
      email: user.email,
      displayName: user.displayName,
      role: user.role,
      coinBalance: 0,
      passwordHash: user.passwordHash,
      createdAt: user.createdAt,
      updatedAt: user.createdAt,
    });
    return true;
  }

  async findById(id: string): Promise<User | null> {
    const user = this.store.users.get(id);
    return user ? publicUser(user) : null;
  }

  async findByEmail(email: string): Promise<(User & { passwordHash: string | null }) | null> {
    for (const user of this.store.users.values()) if (user.email === email) return { ...publicUser(user), passwordHash: user.passwordHash };
    return null;
  }

  async setRole(id: string, role: UserRole, at: Date): Promise<void> {
    const user = this.store.users.get(id);
    if (!user) return;
    user.role = role;
    user.updatedAt = at;
  }

  async setDisplayName(id: string, displayName: string, at: Date): Promise<User | null> {
    const user = this.store.users.get(id);
    if (!user) return null;
    user.displayName = displayName;
    user.updatedAt = at;
    return publicUser(user);
  }

  async setPasswordHash(id: string, passwordHash: string, previousHash: string, at: Date): Promise<boolean> {
    const user = this.store.users.get(id);
    if (!user || user.passwordHash !== previousHash) return false;
    user.passwordHash = passwordHash;
    user.passwordReset = null;
    user.updatedAt = at;
    return true;
  }

  async setPasswordReset(id: string, reset: { tokenHash: string; expiresAt: Date }, at: Date): Promise<boolean> {
    const user = this.store.users.get(id);
    if (!user) return false;
    user.passwordReset = { ...reset };
    user.updatedAt = at;
    return true;
  }

  async findByPasswordReset(tokenHash: string, now: Date): Promise<User | null> {
    for (const user of this.store.users.values()) {
      if (user.passwordReset?.tokenHash === tokenHash && user.passwordReset.expiresAt > now) return publicUser(user);
    }
    return null;
  }

  async resetPassword(id: string, tokenHash: string, passwordHash: string, at: Date): Promise<boolean> {
    const user = this.store.users.get(id);
    if (!user || user.passwordReset?.tokenHash !== tokenHash || !(user.passwordReset.expiresAt > at)) return false;
    user.passwordHash = passwordHash;
    user.passwordReset = null;
    user.updatedAt = at;
    return true;
  }

  async list(request: PageRequest, query?: string): Promise<Page<User>> {
    const needle = query?.toLowerCase();
    const matches = [...this.store.users.values()]
      .filter((user) => !needle || user.email.includes(needle) || user.displayName.toLowerCase().includes(needle))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    const start = offsetOf(request);
    return pageOf(matches.slice(start, start + request.limit).map(publicUser), request, matches.length);
  }
}
