import type { Page, PageRequest } from '../domain/pagination.ts';
import type { User, UserRole } from '../domain/user.ts';

export interface NewUser {
  id: string;
  email: string;
  displayName: string;
  role: UserRole;
  passwordHash: string | null;
  createdAt: Date;
}

export interface UserRepository {
  /** Returns false when the (case-insensitive) email is taken. Balance starts at 0. */
  create(user: NewUser): Promise<boolean>;
  findById(id: string): Promise<User | null>;
  findByEmail(email: string): Promise<(User & { passwordHash: string | null }) | null>;
  setRole(id: string, role: UserRole, at: Date): Promise<void>;
  /** The user as stored after the change, or null when there is no such user. */
  setDisplayName(id: string, displayName: string, at: Date): Promise<User | null>;
  /**
   * Replaces the password hash, only while it is still `previousHash` (the one the caller checked the user's proof
   * against), and ends the user's reset link if one was live (ADR 062). False when the hash changed meanwhile (a reset,
   * another change) or there is no such user: nothing changed.
   */
  setPasswordHash(id: string, passwordHash: string, previousHash: string, at: Date): Promise<boolean>;
  /** Makes this the user's one live reset link, replacing any earlier one. False when there is no such user. */
  setPasswordReset(id: string, reset: { tokenHash: string; expiresAt: Date }, at: Date): Promise<boolean>;
  /** The user whose reset link has this hash and is still live at `now`, or null. */
  findByPasswordReset(tokenHash: string, now: Date): Promise<User | null>;
  /**
   * Uses the link: sets the password hash and clears the link, only if this user's link still has this hash and is
   * live at `at`. False means it was used, replaced or expired meanwhile: nothing changed.
   */
  resetPassword(id: string, tokenHash: string, passwordHash: string, at: Date): Promise<boolean>;
  list(request: PageRequest, query?: string): Promise<Page<User>>;
}
