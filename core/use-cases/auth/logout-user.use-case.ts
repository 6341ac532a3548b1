import type { SessionRepository } from '../../ports/session-repository.port.ts';
import type { TokenIssuer } from '../../ports/token-issuer.port.ts';
import type { SessionRevocations } from './session-revocations.service.ts';

export interface LogoutUserDeps {
  sessions: SessionRepository;
  tokens: TokenIssuer;
  revocations: SessionRevocations;
}

/**
 * Revokes the login of the access token (its `sid`: Authenticate then refuses the token at once, ADR 021) and
 * the login of the refresh token presented with it when that is another login of the same user, and closes
 * the sockets opened with either.
 */
export class LogoutUser {
  constructor(private readonly deps: LogoutUserDeps) {}

  async execute(input: { userId: string; refreshToken?: string; sessionId: string }): Promise<void> {
    const { sessions, tokens, revocations } = this.deps;
    const session = input.refreshToken ? await sessions.findByTokenHash(tokens.hashOpaqueToken(input.refreshToken)) : null;
    await revocations.revokeFamily(input.userId, input.sessionId);
    if (session && session.userId === input.userId && session.familyId !== input.sessionId) {
      await revocations.revokeFamily(input.userId, session.familyId);
    }
  }
}
