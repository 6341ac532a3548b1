import type { User } from '../../domain/user.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { SessionRepository } from '../../ports/session-repository.port.ts';
import type { TokenIssuer } from '../../ports/token-issuer.port.ts';

export interface IssuedSession {
  user: User;
  accessToken: string;
  accessTokenExpiresAt: Date;
  refreshToken: string;
  refreshTokenExpiresAt: Date;
}

export interface SessionDeps {
  sessions: SessionRepository;
  tokens: TokenIssuer;
  ids: IdGenerator;
  clock: Clock;
  refreshTokenTtlSeconds: number;
}

/**
 * Issues an access token and a refresh token in `familyId` (a new family for a fresh login), the refresh
 * token stored through `sessions` (a transaction's, when the rotation must commit with it). The access
 * token names the family, so revoking the family also ends the sockets opened with it.
 */
export async function issueSession(deps: Omit<SessionDeps, 'sessions'>, sessions: SessionRepository, user: User, familyId: string): Promise<IssuedSession> {
  const now = deps.clock.now();
  const access = deps.tokens.issueAccessToken(user, familyId);
  const refreshToken = deps.tokens.newOpaqueToken();
  const refreshTokenExpiresAt = new Date(now.getTime() + deps.refreshTokenTtlSeconds * 1000);
  await sessions.create({
    id: deps.ids.newId(),
    userId: user.id,
    familyId,
    tokenHash: deps.tokens.hashOpaqueToken(refreshToken),
    expiresAt: refreshTokenExpiresAt,
    createdAt: now,
  });
  return { user, accessToken: access.token, accessTokenExpiresAt: access.expiresAt, refreshToken, refreshTokenExpiresAt };
}
