import type { Cache } from '../../ports/cache.port.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { SessionRepository } from '../../ports/session-repository.port.ts';
import type { TokenIssuer } from '../../ports/token-issuer.port.ts';

export interface LogoutUserDeps {
  sessions: SessionRepository;
  tokens: TokenIssuer;
  cache: Cache;
  clock: Clock;
}

export const revokedAccessKey = (tokenId: string): string => `revoked-access:${tokenId}`;

/** Revokes the refresh token's family and deny-lists the access token until it would expire anyway. */
export class LogoutUser {
  constructor(private readonly deps: LogoutUserDeps) {}

  async execute(input: { refreshToken?: string; accessTokenId: string; accessTokenExpiresAt: Date }): Promise<void> {
    const { sessions, tokens, cache, clock } = this.deps;
    const now = clock.now();
    if (input.refreshToken) {
      const session = await sessions.findByTokenHash(tokens.hashOpaqueToken(input.refreshToken));
      if (session) await sessions.revokeFamily(session.familyId, now);
    }
    const ttl = Math.ceil((input.accessTokenExpiresAt.getTime() - now.getTime()) / 1000);
    if (ttl > 0) await cache.set(revokedAccessKey(input.accessTokenId), '1', ttl);
  }
}
