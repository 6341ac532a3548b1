import type { UserRole } from '../domain/user.ts';

export interface AccessClaims {
  userId: string;
  role: UserRole;
  tokenId: string;
  /** The login (refresh-token family) the token was issued for: revoking it ends the token's sockets too. */
  sessionId: string | null;
  expiresAt: Date;
}

export interface TokenIssuer {
  issueAccessToken(user: { id: string; role: UserRole }, sessionId: string): { token: string; expiresAt: Date; tokenId: string };
  /** Null for any invalid token: bad signature, wrong algorithm, expired, wrong issuer or audience. */
  verifyAccessToken(token: string): AccessClaims | null;
  /** A random opaque token (refresh tokens) and the hash under which it is stored. */
  newOpaqueToken(): string;
  hashOpaqueToken(token: string): string;
}
