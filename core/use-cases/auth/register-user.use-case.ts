import { displayNameProblem, isValidEmail, normalizeEmail, type User } from '../../domain/user.ts';
import type { CommonPasswords } from '../../domain/common-passwords.ts';
import { passwordProblem } from '../../domain/password-policy.ts';
import { fail, ok, validationFailed, type Fail, type FieldProblem, type Result } from '../../domain/result.ts';
import type { Cache } from '../../ports/cache.port.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { PasswordHasher } from '../../ports/password-hasher.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { UserRepository } from '../../ports/user-repository.port.ts';
import { reserveAttempt } from './attempt-limits.service.ts';
import { createAccount } from './create-account.service.ts';

export interface RegisterUserInput {
  email: unknown;
  password: unknown;
  displayName: unknown;
  clientAddress: string;
}

export interface RegisterUserDeps {
  users: UserRepository;
  hasher: PasswordHasher;
  uow: UnitOfWork;
  ids: IdGenerator;
  clock: Clock;
  adminEmails: readonly string[];
  signupBonusCoins: number;
  cache: Cache;
  /** Accounts one client address may create per window (each one mints the sign-up bonus). */
  limits: { perAddress: number; windowSeconds: number };
  /** Breached passwords refused at sign-up (the shipped list: core/domain/common-passwords.txt). */
  commonPasswords: CommonPasswords;
}

export type RegisterFailure = Fail & { retryAfterSeconds?: number };

export function checkRegistration(input: Omit<RegisterUserInput, 'clientAddress'>, commonPasswords: CommonPasswords): Result<{ email: string; password: string; displayName: string }> {
  const problems: FieldProblem[] = [];
  const { email, password, displayName } = input;
  if (typeof email !== 'string' || !isValidEmail(email.trim())) problems.push({ field: 'email', message: 'must be a valid email' });
  const weak = passwordProblem(password, commonPasswords);
  if (weak) problems.push({ field: 'password', message: weak });
  const badName = displayNameProblem(displayName);
  if (badName) problems.push({ field: 'displayName', message: badName });
  if (problems.length > 0) return validationFailed(problems);
  return ok({ email: normalizeEmail(email as string), password: password as string, displayName: (displayName as string).trim() });
}

export class RegisterUser {
  constructor(private readonly deps: RegisterUserDeps) {}

  async execute(input: RegisterUserInput): Promise<Result<User> | RegisterFailure> {
    const checked = checkRegistration(input, this.deps.commonPasswords);
    if (!checked.ok) return checked;
    const { users, hasher, uow, ids, clock, adminEmails, signupBonusCoins, cache, limits } = this.deps;
    // Counted before the account exists, so parallel sign-ups cannot all slip in under the limit (ADR 020).
    const reserved = await reserveAttempt(cache, [{ key: `register:address:${input.clientAddress}`, max: limits.perAddress }], limits.windowSeconds);
    if (!reserved.ok) return { ...fail('AUTH.RATE_LIMITED', 'Too many sign-ups from this address; try again later'), retryAfterSeconds: reserved.retryAfterSeconds };
    const { email, password, displayName } = checked.value;
    const passwordHash = await hasher.hash(password);
    const id = ids.newId();
    const now = clock.now();
    const role = adminEmails.includes(email) ? 'admin' : 'user';

    const created = await uow.run((tx) => createAccount(tx, { ids, signupBonusCoins }, { id, email, displayName, role, passwordHash, createdAt: now }));
    if (!created) {
      await reserved.release();
      return fail('USER.EMAIL_TAKEN', 'An account with this email already exists');
    }
    const user = await users.findById(id);
    if (!user) throw new Error('registered user vanished');
    return ok(user);
  }
}
