import type { CommonPasswords } from '../../domain/common-passwords.ts';
import { passwordProblem } from '../../domain/password-policy.ts';
import { fail, ok, validationFailed, type Result } from '../../domain/result.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { UserRepository } from '../../ports/user-repository.port.ts';
import { provePassword, type PasswordProofDeps, type PasswordProofFailure } from './password-proof.service.ts';
import type { SessionRevocations } from './session-revocations.service.ts';

export interface ChangePasswordDeps extends PasswordProofDeps {
  users: UserRepository;
  uow: UnitOfWork;
  clock: Clock;
  revocations: SessionRevocations;
  commonPasswords: CommonPasswords;
}

export interface ChangePasswordInput {
  userId: string;
  email: string;
  /** The login making the change: it stays signed in, every other one ends. */
  sessionId: string;
  currentPassword: unknown;
  newPassword: unknown;
  clientAddress: string;
}

export type ChangePasswordFailure = PasswordProofFailure;

/**
 * A signed-in user changes their password, proving the current one (ADR 062). The new one passes the sign-up rules.
 * Every other login of the user ends (its refresh tokens and sockets), so a session someone else holds does not
 * outlive the change; API keys stay. An account that has no password (made through an identity provider) gets 409:
 * a session alone must not be able to add a password to it.
 */
export class ChangePassword {
  constructor(private readonly deps: ChangePasswordDeps) {}

  async execute(input: ChangePasswordInput): Promise<Result<{ otherSessionsEnded: number }> | ChangePasswordFailure> {
    const { users, uow, hasher, clock, revocations } = this.deps;
    const { currentPassword, newPassword } = input;
    if (typeof currentPassword !== 'string' || currentPassword.length === 0 || currentPassword.length > 1024) {
      return validationFailed([{ field: 'currentPassword', message: 'is required' }]);
    }
    const weak = passwordProblem(newPassword, this.deps.commonPasswords);
    if (weak) return validationFailed([{ field: 'newPassword', message: weak }]);
    if (newPassword === currentPassword) return validationFailed([{ field: 'newPassword', message: 'must differ from the current password' }]);

    const user = await users.findByEmail(input.email);
    if (!user || user.id !== input.userId) return fail('NOT_FOUND', 'User not found');
    if (!user.passwordHash) {
      return fail('CONFLICT', 'This account has no password: it signs in through its identity provider. An administrator can make you a link to set one');
    }
    const refused = await provePassword(this.deps, { email: user.email, passwordHash: user.passwordHash }, { password: currentPassword, field: 'currentPassword', clientAddress: input.clientAddress });
    if (refused) return refused;

    const passwordHash = await hasher.hash(newPassword as string);
    const previousHash = user.passwordHash;
    // The new password and the end of the other logins commit together: no failure leaves one without the other. The
    // password is replaced only while it is the one just proven: a reset (or another change) that committed meanwhile
    // is not undone by a proof of the password it replaced.
    const otherSessionsEnded = await uow.run(async (tx) => {
      if (!(await tx.users.setPasswordHash(user.id, passwordHash, previousHash, clock.now()))) return null;
      return revocations.endOtherLogins(tx, user.id, input.sessionId);
    });
    if (otherSessionsEnded === null) return fail('CONFLICT', 'The password was changed meanwhile; nothing changed. Sign in again if this session has ended');
    return ok({ otherSessionsEnded });
  }
}
