import { fail, ok, type Result } from '../../domain/result.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { SessionRevocations } from './session-revocations.service.ts';
import { issueSession, type IssuedSession, type SessionDeps } from './session-tokens.service.ts';

export interface RefreshSessionDeps extends SessionDeps {
  uow: UnitOfWork;
  revocations: SessionRevocations;
}

/**
 * Rotates a refresh token. A token that was already rotated or revoked is evidence of theft: the whole
 * family (every token descended from the same login) is revoked, and its sockets are closed. The rotation
 * (old token marked, new one stored) is one transaction, so a reuse racing it always revokes the new token
 * too: either the reuse's revocation sees the committed new token, or the rotation sees the revoked old one.
 */
export class RefreshSession {
  constructor(private readonly deps: RefreshSessionDeps) {}

  async execute(input: { refreshToken: string | undefined }): Promise<Result<IssuedSession>> {
    const { sessions, tokens, clock, uow } = this.deps;
    const unauthenticated = fail('AUTH.UNAUTHENTICATED', 'Refresh token is missing, invalid or expired');
    if (!input.refreshToken) return unauthenticated;
    const session = await sessions.findByTokenHash(tokens.hashOpaqueToken(input.refreshToken));
    if (!session) return unauthenticated;
    const now = clock.now();
    if (session.rotatedAt || session.revokedAt) {
      await this.deps.revocations.revokeFamily(session.userId, session.familyId);
      return unauthenticated;
    }
    if (session.expiresAt.getTime() <= now.getTime()) return unauthenticated;
    const issued = await uow.run(async (tx) => {
      // Two refreshes racing with one token: only the first wins; the second is treated as reuse.
      if (!(await tx.sessions.markRotated(session.id, now))) return 'reused';
      const user = await tx.users.findById(session.userId);
      return user ? issueSession(this.deps, tx.sessions, user, session.familyId) : 'gone';
    });
    if (issued === 'reused') await this.deps.revocations.revokeFamily(session.userId, session.familyId);
    return typeof issued === 'string' ? unauthenticated : ok(issued);
  }
}
