import { normalizeEmail } from '../../domain/user.ts';
import { fail, ok, type Fail, type Result } from '../../domain/result.ts';
import type { Cache } from '../../ports/cache.port.ts';
import type { PasswordHasher } from '../../ports/password-hasher.port.ts';
import type { UserRepository } from '../../ports/user-repository.port.ts';
import { issueSession, type IssuedSession, type SessionDeps } from './session-tokens.ts';

export interface LoginUserDeps extends SessionDeps {
  users: UserRepository;
  hasher: PasswordHasher;
  cache: Cache;
  adminEmails: readonly string[];
  maxFailures: number;
  windowSeconds: number;
}

export type LoginFailure = Fail & { retryAfterSeconds?: number };

const INVALID = 'Invalid email or password';

export class LoginUser {
  constructor(private readonly deps: LoginUserDeps) {}

  async execute(input: { email: unknown; password: unknown }): Promise<Result<IssuedSession> | LoginFailure> {
    const { users, hasher, cache, maxFailures, windowSeconds } = this.deps;
    if (typeof input.email !== 'string' || typeof input.password !== 'string' || input.password.length > 1024) {
      return fail('AUTH.INVALID_CREDENTIALS', INVALID);
    }
    const email = normalizeEmail(input.email);
    const failuresKey = `login-failures:${email}`;
    const failures = await cache.counter(failuresKey);
    if (failures && failures.count >= maxFailures) {
      return { ...fail('AUTH.RATE_LIMITED', 'Too many failed logins; try again later'), retryAfterSeconds: Math.max(1, failures.ttlSeconds) };
    }

    const user = await users.findByEmail(email);
    // Verify even without a user so both failures take the same time.
    const valid = await hasher.verify(input.password, user?.passwordHash ?? null);
    if (!user || !valid) {
      await cache.increment(failuresKey, windowSeconds);
      return fail('AUTH.INVALID_CREDENTIALS', INVALID);
    }
    await cache.delete(failuresKey);

    let current = user;
    if (this.deps.adminEmails.includes(email) && user.role !== 'admin') {
      await users.setRole(user.id, 'admin', this.deps.clock.now());
      current = { ...user, role: 'admin' };
    }
    const { passwordHash: _hidden, ...publicUser } = current;
    return ok(await issueSession(this.deps, this.deps.sessions, publicUser, this.deps.ids.newId()));
  }
}
