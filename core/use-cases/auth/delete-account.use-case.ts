import { normalizeEmail } from '../../domain/user.ts';
import { fail, ok, validationFailed, type Result } from '../../domain/result.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { Transaction, UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { UserRepository } from '../../ports/user-repository.port.ts';
import type { JobLifecycle } from '../generation/job-lifecycle.service.ts';
import { provePassword, type PasswordProofDeps, type PasswordProofFailure } from './password-proof.service.ts';
import type { SessionRevocations } from './session-revocations.service.ts';

export interface AccountRemovalDeps {
  uow: UnitOfWork;
  lifecycle: JobLifecycle;
  revocations: SessionRevocations;
  clock: Clock;
  logger: Logger;
  /** Interrupts the engine wherever a cancelled job runs (after the deletion committed). */
  requestCancel(jobId: string): Promise<void>;
  /** Starts the purge of the deleted account's files and row at once (the scheduled sweep retries it). */
  purgeSoon(userId: string): void;
}

export interface AccountRemoved {
  /** The queued and running jobs the deletion cancelled (each refunded, as a cancel is). */
  jobsCancelled: number;
  /** The balance the account held once those refunds were made: it goes with the account. */
  coinsForfeited: number;
}

/**
 * Cancels every queued and running job of the user in `tx` (each refunded and announced, as a cancel is); their ids.
 * Loops because one read lists at most 100; it stops when a round ends nothing, so it cannot spin.
 */
export async function cancelActiveJobs(tx: Transaction, lifecycle: JobLifecycle, userId: string): Promise<string[]> {
  const cancelled: string[] = [];
  for (;;) {
    let endedThisRound = 0;
    for (const job of await tx.jobs.listActiveForUser(userId)) {
      if ((await lifecycle.end(tx, job.id, { to: 'cancelled' })).ended) {
        cancelled.push(job.id);
        endedThisRound += 1;
      }
    }
    if (endedThisRound === 0) return cancelled;
  }
}

/**
 * Deletes an account (ADR 063), in one transaction: the row becomes a husk (no email, name or password: `markDeleted`,
 * only while live), its queued and running jobs are cancelled and refunded, every login and API key ends, and its sign-in
 * identities go, so nothing can sign in to it and its email and provider accounts can sign up afresh at once. Whatever
 * `alsoInTx` writes (an administrator's audit row) commits with it. After the commit, sockets close, running jobs are
 * interrupted and the purge starts: it deletes the account's stored files, then its row, which takes the rest with it.
 */
export async function removeAccount(
  deps: AccountRemovalDeps,
  userId: string,
  alsoInTx?: (tx: Transaction, removed: AccountRemoved) => Promise<void>,
): Promise<Result<AccountRemoved>> {
  const { uow, lifecycle, revocations, clock } = deps;
  const outcome = await uow.run(async (tx) => {
    if (!(await tx.users.markDeleted(userId, clock.now()))) return null;
    const cancelled = await cancelActiveJobs(tx, lifecycle, userId);
    // After the refunds: the ledger's sum is the balance (an invariant the ledger keeps), and reads the husk too.
    const balance = await tx.ledger.sum(userId);
    await revocations.endOtherLogins(tx, userId, null);
    for (const keyId of await tx.apiKeys.revokeAllForUser(userId, clock.now())) tx.afterCommit(() => revocations.keyRevoked(userId, keyId));
    await tx.identities.unlinkAll(userId);
    const removed: AccountRemoved = { jobsCancelled: cancelled.length, coinsForfeited: balance };
    await alsoInTx?.(tx, removed);
    return { removed, cancelled };
  });
  if (!outcome) return fail('NOT_FOUND', 'User not found');
  for (const jobId of outcome.cancelled) {
    await deps.requestCancel(jobId).catch((error: unknown) => deps.logger.warn('cancel not broadcast', { jobId, error: String(error) }));
  }
  deps.purgeSoon(userId);
  return ok(outcome.removed);
}

export interface DeleteAccountDeps extends AccountRemovalDeps, PasswordProofDeps {
  users: UserRepository;
}

export interface DeleteAccountInput {
  userId: string;
  email: string;
  /** Required when the account has a password. */
  password: unknown;
  /** Required when it has none (it signs in through a provider): the account's email, typed out. */
  confirmEmail: unknown;
  clientAddress: string;
}

/**
 * A signed-in user deletes their own account (ADR 063), proving it is them: the password, or for an account that has
 * none, its email typed out. A wrong password counts on the login limits, as on a password change.
 */
export class DeleteAccount {
  constructor(private readonly deps: DeleteAccountDeps) {}

  async execute(input: DeleteAccountInput): Promise<Result<AccountRemoved> | PasswordProofFailure> {
    const { users } = this.deps;
    const user = await users.findByEmail(input.email);
    if (!user || user.id !== input.userId) return fail('NOT_FOUND', 'User not found');
    if (user.passwordHash) {
      const { password } = input;
      if (typeof password !== 'string' || password.length === 0 || password.length > 1024) return validationFailed([{ field: 'password', message: 'is required' }]);
      const refused = await provePassword(this.deps, { email: user.email, passwordHash: user.passwordHash }, { password, field: 'password', clientAddress: input.clientAddress });
      if (refused) return refused;
    } else if (typeof input.confirmEmail !== 'string' || normalizeEmail(input.confirmEmail) !== user.email) {
      return validationFailed([{ field: 'confirmEmail', message: "must be this account's email" }]);
    }
    return removeAccount(this.deps, user.id);
  }
}

/**
 * An administrator deletes another user's account (ADR 063), with an audit entry in the same transaction. Their own
 * account they delete from the Account page, which asks for their password.
 */
export class DeleteUser {
  constructor(private readonly deps: AccountRemovalDeps & { ids: IdGenerator }) {}

  async execute(input: { actorId: string | null; userId: string }): Promise<Result<AccountRemoved>> {
    if (input.actorId === input.userId) return fail('CONFLICT', 'Delete your own account from the Account page; it asks for your password');
    const { ids, clock } = this.deps;
    return removeAccount(this.deps, input.userId, async (tx, removed) => {
      if (input.actorId === null) return;
      await tx.audit.record({ id: ids.newId(), actorId: input.actorId, action: 'user.delete', targetUserId: input.userId, details: { ...removed }, createdAt: clock.now() });
    });
  }
}
