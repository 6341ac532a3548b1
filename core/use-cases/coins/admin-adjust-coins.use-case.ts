import { isCoinAmount, isCoinReason, COIN_REASONS, type CoinReason } from '../../domain/coin.ts';
import { fail, ok, validationFailed, type FieldProblem, type Result } from '../../domain/result.ts';
import type { User } from '../../domain/user.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { CommitHook, UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { UserRepository } from '../../ports/user-repository.port.ts';
import { AMOUNT_PROBLEM } from './deduct-coins.use-case.ts';

export type AdjustDirection = 'add' | 'deduct';

export interface AdminAdjustCoinsInput {
  actorId: string;
  userId: string;
  direction: AdjustDirection;
  amount: unknown;
  reason: unknown;
  /** Writes that must commit with the change (see CommitHook). */
  alsoCommit?: CommitHook<User>;
}

export interface AdminAdjustCoinsDeps {
  users: UserRepository;
  uow: UnitOfWork;
  ids: IdGenerator;
  clock: Clock;
}

export const ADMIN_REASON_PROBLEM = `must be one of ${COIN_REASONS.join(', ')}`;

export function checkAdjustment(input: { amount: unknown; reason: unknown }): Result<{ amount: number; reason: CoinReason }> {
  const problems: FieldProblem[] = [];
  if (input.amount === undefined) problems.push({ field: 'amount', message: 'is required' });
  else if (!isCoinAmount(input.amount)) problems.push({ field: 'amount', message: AMOUNT_PROBLEM });
  if (input.reason === undefined) problems.push({ field: 'reason', message: 'is required' });
  else if (!isCoinReason(input.reason)) problems.push({ field: 'reason', message: ADMIN_REASON_PROBLEM });
  return problems.length > 0 ? validationFailed(problems) : ok({ amount: input.amount as number, reason: input.reason as CoinReason });
}

/**
 * An administrator adds coins to, or takes coins from, any user. The ledger row names the admin as
 * actor and keeps the reason given (any CoinTransactionReason, usually `admin_adjustment`); the audit
 * row is written in the same transaction, so there is never a change without its audit entry.
 */
export class AdminAdjustCoins {
  constructor(private readonly deps: AdminAdjustCoinsDeps) {}

  async execute(input: AdminAdjustCoinsInput): Promise<Result<User>> {
    const checked = checkAdjustment(input);
    if (!checked.ok) return checked;
    const { users, uow, ids, clock } = this.deps;
    const { amount, reason } = checked.value;
    // Read before the change: the balance row stays locked only for the update, its ledger row and the audit row.
    const user = await users.findById(input.userId);
    if (!user) return fail('NOT_FOUND', 'User not found');
    const now = clock.now();
    return uow.run(async (tx): Promise<Result<User>> => {
      const applied = await tx.ledger.apply({
        id: ids.newId(),
        userId: input.userId,
        amount: input.direction === 'add' ? amount : -amount,
        reason,
        relatedEntityId: null,
        actorId: input.actorId,
        createdAt: now,
      });
      if (!applied.ok) {
        return applied.reason === 'insufficient'
          ? fail('COIN.INSUFFICIENT', `The user has fewer than ${amount} coins`)
          : fail('NOT_FOUND', 'User not found');
      }
      const { transaction } = applied;
      await tx.audit.record({
        id: ids.newId(),
        actorId: input.actorId,
        action: input.direction === 'add' ? 'coin.add' : 'coin.deduct',
        targetUserId: input.userId,
        details: { amount: transaction.amount, reason, balanceAfter: transaction.balanceAfter, transactionId: transaction.id },
        createdAt: now,
      });
      const after: User = { ...user, coinBalance: transaction.balanceAfter, updatedAt: now };
      await input.alsoCommit?.(tx, after);
      return ok(after);
    });
  }
}
