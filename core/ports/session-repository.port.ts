import type { User } from '../domain/user.ts';

/** A refresh token, stored only as its hash. Tokens of one login form a family. */
export interface RefreshTokenRecord {
  id: string;
  userId: string;
  familyId: string;
  tokenHash: string;
  expiresAt: Date;
  /** Set when the token was exchanged for a new one. */
  rotatedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
}

export type LoginState = 'active' | 'revoked' | 'no-user';

/** An active login comes with the user's current record, read in the same statement. */
export type LoginCheck = { state: 'active'; user: User } | { state: 'revoked' | 'no-user' };

export interface SessionRepository {
  create(session: Omit<RefreshTokenRecord, 'rotatedAt' | 'revokedAt'>): Promise<void>;
  findByTokenHash(tokenHash: string): Promise<RefreshTokenRecord | null>;
  /** Marks the token used, only if it is still fresh. False means someone else used it first. */
  markRotated(id: string, at: Date): Promise<boolean>;
  revokeFamily(familyId: string, at: Date): Promise<void>;
  /** The user's logins that are neither revoked nor past their refresh tokens' expiry at `now` (ADR 062). */
  activeFamilies(userId: string, now: Date): Promise<string[]>;
  /**
   * Whether an access token of this user and login may still be used, in one read: `no-user` once the user
   * is gone, `revoked` once `revokeFamily` ran for the family (logout, reuse detection), else `active` with
   * the user as stored now. A null family (a token that names none) is judged by the user alone.
   */
  loginState(userId: string, familyId: string | null): Promise<LoginCheck>;
}
