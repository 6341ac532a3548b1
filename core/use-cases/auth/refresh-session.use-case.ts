import { fail, ok, type Result } from '../../domain/result.ts';
import type { UserRepository } from '../../ports/user-repository.port.ts';
import { issueSession, type IssuedSession, type SessionDeps } from './session-tokens.ts';

export interface RefreshSessionDeps extends SessionDeps {
  users: UserRepository;
}

/**
 * Rotates a refresh token. A token that was already rotated or revoked is evidence of theft:
 * the whole family (every token descended from the same login) is revoked.
 */
export class RefreshSession {
  constructor(private readonly deps: RefreshSessionDeps) {}

  async execute(input: { refreshToken: string | undefined }): Promise<Result<IssuedSession>> {
    const { sessions, tokens, users, clock } = this.deps;
    const unauthenticated = fail('AUTH.UNAUTHENTICATED', 'Refresh token is missing, invalid or expired');
    if (!input.refreshToken) return unauthenticated;
    const session = await sessions.findByTokenHash(tokens.hashOpaqueToken(input.refreshToken));
    if (!session) return unauthenticated;
    const now = clock.now();
    if (session.rotatedAt || session.revokedAt) {
      await sessions.revokeFamily(session.familyId, now);
      return unauthenticated;
    }
    if (session.expiresAt.getTime() <= now.getTime()) return unauthenticated;
    // Two refreshes racing with one token: only the first wins; the second is treated as reuse.
    if (!(await sessions.markRotated(session.id, now))) {
      await sessions.revokeFamily(session.familyId, now);
      return unauthenticated;
    }
    const user = await users.findById(session.userId);
    if (!user) return unauthenticated;
    return ok(await issueSession(this.deps, user, session.familyId));
  }
}
