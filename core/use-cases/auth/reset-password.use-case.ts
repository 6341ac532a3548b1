import type { CommonPasswords } from '../../domain/common-passwords.ts';
import { passwordProblem } from '../../domain/password-policy.ts';
import { ok, validationFailed, type Fail, type Result } from '../../domain/result.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { PasswordHasher } from '../../ports/password-hasher.port.ts';
import type { TokenIssuer } from '../../ports/token-issuer.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { UserRepository } from '../../ports/user-repository.port.ts';
import type { SessionRevocations } from './session-revocations.service.ts';

export interface ResetPasswordDeps {
  users: UserRepository;
  uow: UnitOfWork;
  hasher: PasswordHasher;
  tokens: TokenIssuer;
  clock: Clock;
  revocations: SessionRevocations;
  commonPasswords: CommonPasswords;
}

const DEAD_LINK = 'is invalid, used or expired; ask for a new link';

/**
 * Sets a new password with a reset link: once (the update happens only while the link is still the user's live one),
 * before it expires. Every login of the user ends; API keys stay. The link is checked before the password is hashed,
 * so a guessed token costs the server no hashing.
 */
export class ResetPassword {
  constructor(private readonly deps: ResetPasswordDeps) {}

  async execute(input: { token: unknown; newPassword: unknown }): Promise<Result<{ email: string }> | Fail> {
    const { users, uow, hasher, tokens, clock, revocations } = this.deps;
    if (typeof input.token !== 'string' || input.token.length === 0 || input.token.length > 256) return validationFailed([{ field: 'token', message: DEAD_LINK }]);
    const tokenHash = tokens.hashOpaqueToken(input.token);
    const user = await users.findByPasswordReset(tokenHash, clock.now());
    if (!user) return validationFailed([{ field: 'token', message: DEAD_LINK }]);
    const weak = passwordProblem(input.newPassword, this.deps.commonPasswords);
    if (weak) return validationFailed([{ field: 'newPassword', message: weak }]);
    const passwordHash = await hasher.hash(input.newPassword as string);
    // The new password and the end of every login commit together. The guard: a second use of the link, a newer link
    // or its expiry while the password was hashed change nothing.
    const used = await uow.run(async (tx) => {
      if (!(await tx.users.resetPassword(user.id, tokenHash, passwordHash, clock.now()))) return false;
      await revocations.endOtherLogins(tx, user.id, null);
      return true;
    });
    if (!used) return validationFailed([{ field: 'token', message: DEAD_LINK }]);
    return ok({ email: user.email });
  }
}
