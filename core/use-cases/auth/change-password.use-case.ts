import type { CommonPasswords } from '../../domain/common-passwords.ts';
import { passwordProblem } from '../../domain/password-policy.ts';
import { fail, ok, validationFailed, type Fail, type Result } from '../../domain/result.ts';
import type { Cache } from '../../ports/cache.port.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { PasswordHasher } from '../../ports/password-hasher.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { UserRepository } from '../../ports/user-repository.port.ts';
import { reserveAttempt } from './attempt-limits.service.ts';
import { loginLimitKeys, type LoginLimits } from './login-user.use-case.ts';
import type { SessionRevocations } from './session-revocations.service.ts';

export interface ChangePasswordDeps {
  users: UserRepository;
  uow: UnitOfWork;
  hasher: PasswordHasher;
  cache: Cache;
  clock: Clock;
  revocations: SessionRevocations;
  commonPasswords: CommonPasswords;
  /** The login limits: a wrong current password here is a failed login, so a stolen session cannot guess it faster. */
  limits: LoginLimits;
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

export type ChangePasswordFailure = Fail & { retryAfterSeconds?: number };

/**
 * A signed-in user changes their password, proving the current one (ADR 062). The new one passes the sign-up rules.
 * Every other login of the user ends (its refresh tokens and sockets), so a session someone else holds does not
 * outlive the change; API keys stay. An account that has no password (made through an identity provider) gets 409:
 * a session alone must not be able to add a password to it.
 */
export class ChangePassword {
  constructor(private readonly deps: ChangePasswordDeps) {}

  async execute(input: ChangePasswordInput): Promise<Result<{ otherSessionsEnded: number }> | ChangePasswordFailure> {
    const { users, uow, hasher, cache, clock, revocations, limits } = this.deps;
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
    // Counted before the check, on the login counters (ADR 020): parallel guesses cannot slip in under the limit.
    const reserved = await reserveAttempt(cache, loginLimitKeys(user.email, input.clientAddress, limits), limits.windowSeconds);
    if (!reserved.ok) return { ...fail('AUTH.RATE_LIMITED', 'Too many wrong passwords; try again later'), retryAfterSeconds: reserved.retryAfterSeconds };
    if (!(await hasher.verify(currentPassword, user.passwordHash))) {
      return validationFailed([{ field: 'currentPassword', message: 'is wrong' }]);
    }
    await reserved.release();

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
