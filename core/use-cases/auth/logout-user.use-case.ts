import type { Cache } from '../../ports/cache.port.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { SessionRepository } from '../../ports/session-repository.port.ts';
import type { TokenIssuer } from '../../ports/token-issuer.port.ts';
import type { SessionRevocations } from './session-revocations.ts';

export interface LogoutUserDeps {
  sessions: SessionRepository;
  tokens: TokenIssuer;
  cache: Cache;
  clock: Clock;
  revocations: SessionRevocations;
}

export const revokedAccessKey = (tokenId: string): string => `revoked-access:${tokenId}`;

/**
 * Revokes the login (the refresh token's family, else the access token's session), deny-lists the access
 * token until it would expire anyway, and closes the sockets opened with that login.
 */
export class LogoutUser {
  constructor(private readonly deps: LogoutUserDeps) {}

  async execute(input: { userId: string; refreshToken?: string; accessTokenId: string; accessTokenExpiresAt: Date; sessionId: string | null }): Promise<void> {
    const { sessions, tokens, cache, clock, revocations } = this.deps;
    const now = clock.now();
    const ttl = Math.ceil((input.accessTokenExpiresAt.getTime() - now.getTime()) / 1000);
    if (ttl > 0) await cache.set(revokedAccessKey(input.accessTokenId), '1', ttl);
    const session = input.refreshToken ? await sessions.findByTokenHash(tokens.hashOpaqueToken(input.refreshToken)) : null;
    const familyId = session && session.userId === input.userId ? session.familyId : input.sessionId;
    if (familyId) await revocations.revokeFamily(input.userId, familyId, [input.accessTokenId]);
    else await revocations.revokeAccessTokens(input.userId, [input.accessTokenId]);
  }
}
