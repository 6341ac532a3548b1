import { fail, validationFailed, type Fail } from '../../domain/result.ts';
import type { Cache } from '../../ports/cache.port.ts';
import type { PasswordHasher } from '../../ports/password-hasher.port.ts';
import { reserveAttempt } from './attempt-limits.service.ts';
import { loginLimitKeys, type LoginLimits } from './login-user.use-case.ts';

export interface PasswordProofDeps {
  hasher: PasswordHasher;
  cache: Cache;
  /** The login limits: a wrong password here is a failed login, so a stolen session cannot guess it faster. */
  limits: LoginLimits;
}

export type PasswordProofFailure = Fail & { retryAfterSeconds?: number };

/**
 * A signed-in user proves their password again, before a change that needs it (a new password, the account's
 * deletion): null when it is right, else the failure, naming `field` when it is wrong. Counted before the check on the
 * login counters (ADR 020), so parallel guesses cannot slip in under the limit; a right password gives its count back.
 */
export async function provePassword(
  deps: PasswordProofDeps,
  account: { email: string; passwordHash: string },
  proof: { password: string; field: string; clientAddress: string },
): Promise<PasswordProofFailure | null> {
  const { hasher, cache, limits } = deps;
  const reserved = await reserveAttempt(cache, loginLimitKeys(account.email, proof.clientAddress, limits), limits.windowSeconds);
  if (!reserved.ok) return { ...fail('AUTH.RATE_LIMITED', 'Too many wrong passwords; try again later'), retryAfterSeconds: reserved.retryAfterSeconds };
  if (!(await hasher.verify(proof.password, account.passwordHash))) return validationFailed([{ field: proof.field, message: 'is wrong' }]);
  await reserved.release();
  return null;
}
