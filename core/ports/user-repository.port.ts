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
   * against), and ends the user's reset link (ADR 062) and pending change of email (ADR 065) if there were any. False when the hash changed meanwhile (a reset,
   * another change) or there is no such user: nothing changed.
   */
  setPasswordHash(id: string, passwordHash: string, previousHash: string, at: Date): Promise<boolean>;
  /** Makes this the user's one live reset link, replacing any earlier one. False when there is no such user. */
  setPasswordReset(id: string, reset: { tokenHash: string; expiresAt: Date }, at: Date): Promise<boolean>;
  /** The user whose reset link has this hash and is still live at `now`, or null. */
  findByPasswordReset(tokenHash: string, now: Date): Promise<User | null>;
  /**
   * Uses the link: sets the password hash and clears the link and any pending change of email (one an intruder may
   * have asked for), only if this user's link still has this hash and is live at `at`. False means it was used,
   * replaced or expired meanwhile: nothing changed.
   */
  resetPassword(id: string, tokenHash: string, passwordHash: string, at: Date): Promise<boolean>;
  /**
   * Makes this the user's one pending change of email (ADR 065), replacing an earlier one: `email` becomes the
   * account's when the link with this hash is used, before `expiresAt`. False when there is no live such user.
   */
  setEmailChange(id: string, change: { email: string; tokenHash: string; expiresAt: Date }, at: Date): Promise<boolean>;
  /** The live user whose pending change of email has this hash and is live at `now`, with the email it sets; or null. */
  findByEmailChange(tokenHash: string, now: Date): Promise<{ user: User; newEmail: string } | null>;
  /**
   * Makes `newEmail` the account's and clears the change and any reset link (mailed to the old address), only while
   * this live user's change still has this hash, sets this email and is live at `at`. `taken` when another account has
   * that email now (nothing changed); `dead` when the change was used, replaced or expired meanwhile.
   */
  applyEmailChange(id: string, change: { tokenHash: string; newEmail: string }, at: Date): Promise<'changed' | 'taken' | 'dead'>;
  /** Drops the pending change of email, only while it is the one with this hash (its mail never left). */
  clearEmailChange(id: string, tokenHash: string, at: Date): Promise<boolean>;
  /**
   * Live accounts only: a deleted one (ADR 063) is not listed or found by any method here, and gets no new name,
   * password or reset link (its role is moot: nothing can sign in to it).
   */
  list(request: PageRequest, query?: string): Promise<Page<User>>;
  /**
   * Deletes the account as far as one statement can (ADR 063): only while it is live, stamps `deletedAt`, replaces the
   * email with one no address can take (`deletedEmail`), and drops the display name, password, reset link and pending
   * change of email. The row
   * stays, a husk nobody can sign in to, until the purge has deleted its files. False when there is no live such user.
   */
  markDeleted(id: string, at: Date): Promise<boolean>;
  /** Deleted accounts whose purge has not finished, longest deleted first. */
  listDeleted(max: number): Promise<string[]>;
  /**
   * Deletes a deleted account's row, and with it every row that belongs to it (logins, ledger, jobs, connections), only
   * while it holds no output, no upload and no queued or running job: a file the purge has not deleted keeps its row,
   * so the purge is retried rather than the file lost. True when the row went.
   */
  purge(id: string): Promise<boolean>;
}
