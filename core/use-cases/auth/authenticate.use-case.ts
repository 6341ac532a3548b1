import type { AccessClaims, TokenIssuer } from '../../ports/token-issuer.port.ts';
import type { Cache } from '../../ports/cache.port.ts';
import { revokedAccessKey } from './logout-user.use-case.ts';

export interface AuthenticateDeps {
  tokens: TokenIssuer;
  cache: Cache;
}

/** Turns an access token into claims, or null when it is invalid, expired or logged out. */
export class Authenticate {
  constructor(private readonly deps: AuthenticateDeps) {}

  async execute(token: string): Promise<AccessClaims | null> {
    const claims = this.deps.tokens.verifyAccessToken(token);
    if (!claims) return null;
    if (await this.deps.cache.get(revokedAccessKey(claims.tokenId))) return null;
    return claims;
  }
}
