import type { User } from '../../domain/user.ts';
import type { AccessClaims, TokenIssuer } from '../../ports/token-issuer.port.ts';
import type { SessionRepository } from '../../ports/session-repository.port.ts';

export interface AuthenticateDeps {
  tokens: TokenIssuer;
  sessions: SessionRepository;
}

/** The token's claims and its user as stored now: `user.role` is the role today, `role` the one the token was issued with. */
export interface Authenticated extends AccessClaims {
  /** Always present: a token that names no login is refused. */
  sessionId: string;
  user: User;
}

/**
 * Turns an access token into claims and the current user, or null when it is invalid, expired, logged out,
 * or its user no longer exists. Logout and reuse detection revoke the token's login (its `sid` family) in the
 * database, so a logged-out token stays dead across restarts and processes (ADR 021). Every token this service
 * issues names its login; one that names none could not be revoked, so it is refused outright.
 */
export class Authenticate {
  constructor(private readonly deps: AuthenticateDeps) {}

  async execute(token: string): Promise<Authenticated | null> {
    const { tokens, sessions } = this.deps;
    const claims = tokens.verifyAccessToken(token);
    if (!claims || claims.sessionId === null) return null;
    const login = await sessions.loginState(claims.userId, claims.sessionId);
    if (login.state !== 'active') return null;
    return { ...claims, sessionId: claims.sessionId, user: login.user };
  }
}
