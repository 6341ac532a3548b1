import { fail, ok, type Result } from '../../domain/result.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { TokenIssuer } from '../../ports/token-issuer.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import { tokenLink } from './account-mail.service.ts';

/** Where the web client takes a reset token: in the fragment, which no server log or Referer header carries. */
export const resetLink = (frontendUrl: string, token: string): string => tokenLink(frontendUrl, '/reset-password', token);

export interface IssuePasswordResetDeps {
  uow: UnitOfWork;
  tokens: TokenIssuer;
  ids: IdGenerator;
  clock: Clock;
  frontendUrl: string;
  ttlSeconds: number;
}

/**
 * A one-time link with which a user sets a new password (ADR 062): an administrator makes it and hands it over, or the
 * user asks for it by mail (ADR 064). Only its hash is stored; a new link replaces the user's last one. The audit log
 * records which administrator made it, in the same transaction; a link from the operator's command line or one a user
 * asked for (`actorId` null) is not an administrator's action and is not recorded there.
 */
export class IssuePasswordReset {
  constructor(private readonly deps: IssuePasswordResetDeps) {}

  async execute(input: { actorId: string | null; userId: string }): Promise<Result<{ resetUrl: string; expiresAt: Date }>> {
    const { uow, tokens, ids, clock, frontendUrl, ttlSeconds } = this.deps;
    const token = tokens.newOpaqueToken();
    const now = clock.now();
    const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
    return uow.run(async (tx): Promise<Result<{ resetUrl: string; expiresAt: Date }>> => {
      if (!(await tx.users.setPasswordReset(input.userId, { tokenHash: tokens.hashOpaqueToken(token), expiresAt }, now))) return fail('NOT_FOUND', 'User not found');
      if (input.actorId !== null) {
        await tx.audit.record({ id: ids.newId(), actorId: input.actorId, action: 'user.password_reset_link', targetUserId: input.userId, details: { expiresAt: expiresAt.toISOString() }, createdAt: now });
      }
      return ok({ resetUrl: resetLink(frontendUrl, token), expiresAt });
    });
  }
}
