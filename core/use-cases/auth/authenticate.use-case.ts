import type { User } from '../../domain/user.ts';
import type { AccessClaims, TokenIssuer } from '../../ports/token-issuer.port.ts';
import type { Cache } from '../../ports/cache.port.ts';
import type { SessionRepository } from '../../ports/session-repository.port.ts';
import { revokedAccessKey } from './logout-user.use-case.ts';

export interface AuthenticateDeps {
  tokens: TokenIssuer;
  cache: Cache;
  sessions: SessionRepository;
}

/** The token's claims and its user as stored now: `user.role` is the role today, `role` the one the token was issued with. */
export interface Authenticated extends AccessClaims {
  user: User;
}

/**
 * Turns an access token into claims and the current user, or null when it is invalid, expired, logged out,
 * or its user no longer exists. Logout revokes the token's login (its `sid` family) in the database, so a logged-out
 * token stays dead across restarts and processes; the cache deny-list covers a token without a family.
 */
export class Authenticate {
  constructor(private readonly deps: AuthenticateDeps) {}

  async execute(token: string): Promise<Authenticated | null> {
    const { tokens, cache, sessions } = this.deps;
    const claims = tokens.verifyAccessToken(token);
    if (!claims) return null;
    const [denied, login] = await Promise.all([cache.get(revokedAccessKey(claims.tokenId)), sessions.loginState(claims.userId, claims.sessionId)]);
    if (denied || login.state !== 'active') return null;
    return { ...claims, user: login.user };
  }
}
