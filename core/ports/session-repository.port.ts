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

export interface SessionRepository {
  create(session: Omit<RefreshTokenRecord, 'rotatedAt' | 'revokedAt'>): Promise<void>;
  findByTokenHash(tokenHash: string): Promise<RefreshTokenRecord | null>;
  /** Marks the token used, only if it is still fresh. False means someone else used it first. */
  markRotated(id: string, at: Date): Promise<boolean>;
  revokeFamily(familyId: string, at: Date): Promise<void>;
  /** True once `revokeFamily` ran for this family (logout, reuse detection): its access tokens are dead too. */
  familyRevoked(familyId: string): Promise<boolean>;
}
