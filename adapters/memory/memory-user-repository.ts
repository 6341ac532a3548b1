import { offsetOf, pageOf, type Page, type PageRequest } from '../../core/domain/pagination.ts';
import { DELETED_DISPLAY_NAME, deletedEmail, type User, type UserRole } from '../../core/domain/user.ts';
import type { NewUser, UserRepository } from '../../core/ports/user-repository.port.ts';
import type { GenerationJob } from '../../core/domain/job.ts';
import type { MemoryStore, StoredUser } from './memory-store.ts';

const publicUser = ({ passwordHash: _hidden, passwordReset: _link, emailChange: _change, deletedAt: _deleted, ...user }: StoredUser): User => ({ ...user });

export class MemoryUserRepository implements UserRepository {
  constructor(private readonly store: MemoryStore) {}

  /** The user unless deleted (ADR 063): a deleted account is found, listed and changed by nothing but the purge. */
  private live(id: string): StoredUser | undefined {
    const user = this.store.users.get(id);
    return user && !user.deletedAt ? user : undefined;
  }

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
    const user = this.live(id);
    return user ? publicUser(user) : null;
  }

  async findByEmail(email: string): Promise<(User & { passwordHash: string | null }) | null> {
    for (const user of this.store.users.values()) if (user.email === email && !user.deletedAt) return { ...publicUser(user), passwordHash: user.passwordHash };
    return null;
  }

  async setRole(id: string, role: UserRole, at: Date): Promise<void> {
    const user = this.store.users.get(id);
    if (!user) return;
    user.role = role;
    user.updatedAt = at;
  }

  async setDisplayName(id: string, displayName: string, at: Date): Promise<User | null> {
    const user = this.live(id);
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
    user.emailChange = null;
    user.updatedAt = at;
    return true;
  }

  async setPasswordReset(id: string, reset: { tokenHash: string; expiresAt: Date }, at: Date): Promise<boolean> {
    const user = this.live(id);
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
    user.emailChange = null;
    user.updatedAt = at;
    return true;
  }

  async setEmailChange(id: string, change: { email: string; tokenHash: string; expiresAt: Date }, at: Date): Promise<boolean> {
    const user = this.live(id);
    if (!user) return false;
    user.emailChange = { ...change };
    user.updatedAt = at;
    return true;
  }

  async findByEmailChange(tokenHash: string, now: Date): Promise<{ user: User; newEmail: string } | null> {
    for (const user of this.store.users.values()) {
      if (!user.deletedAt && user.emailChange?.tokenHash === tokenHash && user.emailChange.expiresAt > now) return { user: publicUser(user), newEmail: user.emailChange.email };
    }
    return null;
  }

  async applyEmailChange(id: string, { tokenHash, newEmail }: { tokenHash: string; newEmail: string }, at: Date): Promise<'changed' | 'taken' | 'dead'> {
    const user = this.live(id);
    const change = user?.emailChange;
    if (!user || change?.tokenHash !== tokenHash || change.email !== newEmail || !(change.expiresAt > at)) return 'dead';
    // The unique index on email, as the databases have it.
    for (const other of this.store.users.values()) if (other.id !== id && other.email === change.email) return 'taken';
    // A reset link mailed to the old address dies with it.
    Object.assign(user, { email: change.email, emailChange: null, passwordReset: null, updatedAt: at });
    return 'changed';
  }

  async clearEmailChange(id: string, tokenHash: string, at: Date): Promise<boolean> {
    const user = this.store.users.get(id);
    if (user?.emailChange?.tokenHash !== tokenHash) return false;
    Object.assign(user, { emailChange: null, updatedAt: at });
    return true;
  }

  async list(request: PageRequest, query?: string): Promise<Page<User>> {
    const needle = query?.toLowerCase();
    const matches = [...this.store.users.values()]
      .filter((user) => !user.deletedAt)
      .filter((user) => !needle || user.email.includes(needle) || user.displayName.toLowerCase().includes(needle))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    const start = offsetOf(request);
    return pageOf(matches.slice(start, start + request.limit).map(publicUser), request, matches.length);
  }

  async markDeleted(id: string, at: Date): Promise<boolean> {
    const user = this.live(id);
    if (!user) return false;
    Object.assign(user, { deletedAt: at, email: deletedEmail(id), displayName: DELETED_DISPLAY_NAME, passwordHash: null, passwordReset: null, emailChange: null, updatedAt: at });
    return true;
  }

  async listDeleted(max: number): Promise<string[]> {
    return [...this.store.users.values()]
      .filter((user) => user.deletedAt)
      .sort((a, b) => a.deletedAt!.getTime() - b.deletedAt!.getTime() || a.id.localeCompare(b.id))
      .slice(0, max)
      .map((user) => user.id);
  }

  async purge(id: string): Promise<boolean> {
    const user = this.store.users.get(id);
    if (!user?.deletedAt) return false;
    const owns = (table: string, also: (row: never) => boolean = () => true) =>
      [...this.store.table<{ userId: string }>(table).values()].some((row) => row.userId === id && also(row as never));
    if (owns('history_items') || owns('uploads') || owns('generation_jobs', (job: GenerationJob) => job.status === 'queued' || job.status === 'running')) return false;
    this.store.deleteUser(id);
    return true;
  }
}
