import { normalizeEmail } from '../../domain/user.ts';
import { fail, ok, type Fail, type Result } from '../../domain/result.ts';
import type { Cache } from '../../ports/cache.port.ts';
import type { PasswordHasher } from '../../ports/password-hasher.port.ts';
import type { UserRepository } from '../../ports/user-repository.port.ts';
import { reserveAttempt } from './attempt-limits.service.ts';
import { issueSession, type IssuedSession, type SessionDeps } from './session-tokens.service.ts';

export interface LoginLimits {
  /** Failed logins for one account from one client address per window: the lock an attacker can put on himself. */
  perAccountAndAddress: number;
  /** Failed logins for one account from all addresses per window: caps guessing spread over many addresses. */
  perAccount: number;
  /** Failed logins from one address over all accounts per window: caps one password sprayed over many accounts. */
  perAddress: number;
  windowSeconds: number;
}

export interface LoginUserDeps extends SessionDeps {
  users: UserRepository;
  hasher: PasswordHasher;
  cache: Cache;
  adminEmails: readonly string[];
  limits: LoginLimits;
}

export type LoginFailure = Fail & { retryAfterSeconds?: number };

const INVALID = 'Invalid email or password';

export const loginLimitKeys = (email: string, address: string, limits: LoginLimits) => [
  { key: `login:account-address:${email}|${address}`, max: limits.perAccountAndAddress },
  { key: `login:address:${address}`, max: limits.perAddress },
  { key: `login:account:${email}`, max: limits.perAccount },
];

export class LoginUser {
  constructor(private readonly deps: LoginUserDeps) {}

  async execute(input: { email: unknown; password: unknown; clientAddress: string }): Promise<Result<IssuedSession> | LoginFailure> {
    const { users, hasher, cache, limits } = this.deps;
    if (typeof input.email !== 'string' || typeof input.password !== 'string' || input.password.length > 1024) {
      return fail('AUTH.INVALID_CREDENTIALS', INVALID);
    }
    const email = normalizeEmail(input.email);
    // Counted before the password is checked: parallel guesses cannot all slip in under the limit (ADR 020).
    const reserved = await reserveAttempt(cache, loginLimitKeys(email, input.clientAddress, limits), limits.windowSeconds);
    if (!reserved.ok) return { ...fail('AUTH.RATE_LIMITED', 'Too many failed logins; try again later'), retryAfterSeconds: reserved.retryAfterSeconds };

    const user = await users.findByEmail(email);
    // Verify even without a user so both failures take the same time.
    const valid = await hasher.verify(input.password, user?.passwordHash ?? null);
    if (!user || !valid) return fail('AUTH.INVALID_CREDENTIALS', INVALID);
    // A login that succeeded is no failure: its hits are given back.
    await reserved.release();

    let current = user;
    if (this.deps.adminEmails.includes(email) && user.role !== 'admin') {
      await users.setRole(user.id, 'admin', this.deps.clock.now());
      current = { ...user, role: 'admin' };
    }
    const { passwordHash: _hidden, ...publicUser } = current;
    return ok(await issueSession(this.deps, this.deps.sessions, publicUser, this.deps.ids.newId()));
  }
}
