import {
  COIN_AMOUNT_MAX,
  COIN_AMOUNT_MIN,
  RELATED_ENTITY_ID_MAX,
  USER_DEDUCTION_REASONS,
  isCoinAmount,
  type CoinReason,
} from '../../domain/coin.ts';
import { fail, ok, validationFailed, type FieldProblem, type Result } from '../../domain/result.ts';
import type { User } from '../../domain/user.ts';
import { isUuid } from '../../domain/ids.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { CommitHook, UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { UserRepository } from '../../ports/user-repository.port.ts';
import type { JobPayment } from './job-payment.service.ts';

export interface DeductCoinsInput {
  userId: string;
  amount?: unknown;
  reason?: unknown;
  relatedEntityId?: unknown;
  /** Writes that must commit with the deduction (see CommitHook). */
  alsoCommit?: CommitHook<User>;
  /**
   * The user as the caller's authentication read it for this request (`Authenticated.user`): saves reading it again.
   * Used only when it is `userId`'s; the balance guard and the answered balance come from the write either way.
   */
  user?: User;
}

export interface DeductCoinsDeps {
  users: UserRepository;
  uow: UnitOfWork;
  /** A deduction naming a request is kept for the job of that request (or refunded). */
  payment: JobPayment;
  ids: IdGenerator;
  clock: Clock;
}

export const AMOUNT_PROBLEM = `must be an integer from ${COIN_AMOUNT_MIN} to ${COIN_AMOUNT_MAX}`;
export const USER_REASON_PROBLEM = `must be one of ${USER_DEDUCTION_REASONS.join(', ')}`;
export const RELATED_ENTITY_PROBLEM = `must be a string of 1 to ${RELATED_ENTITY_ID_MAX} characters`;

interface Deduction {
  amount: number;
  reason: CoinReason;
  relatedEntityId: string | null;
}

/** The same rules the HTTP schema applies, so an embedder calling the core gets them too. */
export function checkDeduction(input: Omit<DeductCoinsInput, 'userId'>): Result<Deduction> {
  const problems: FieldProblem[] = [];
  if (input.amount === undefined) problems.push({ field: 'amount', message: 'is required' });
  else if (!isCoinAmount(input.amount)) problems.push({ field: 'amount', message: AMOUNT_PROBLEM });
  if (input.reason === undefined) problems.push({ field: 'reason', message: 'is required' });
  else if (!USER_DEDUCTION_REASONS.includes(input.reason as CoinReason)) problems.push({ field: 'reason', message: USER_REASON_PROBLEM });
  const related = input.relatedEntityId;
  if (related !== undefined && related !== null && (typeof related !== 'string' || related.length === 0 || related.length > RELATED_ENTITY_ID_MAX)) {
    problems.push({ field: 'relatedEntityId', message: RELATED_ENTITY_PROBLEM });
  }
  if (problems.length > 0) return validationFailed(problems);
  // A request id is a UUID: compared in lower case everywhere, however the client wrote it.
  const relatedEntityId = typeof related === 'string' ? (isUuid(related) ? related.toLowerCase() : related) : null;
  return ok({ amount: input.amount as number, reason: input.reason as CoinReason, relatedEntityId });
}

/**
 * A user spends their own coins; the balance never goes below zero (402 otherwise). A deduction naming the
 * request it pays for is held for that job (see JobPayment), in the same transaction.
 */
export class DeductCoins {
  constructor(private readonly deps: DeductCoinsDeps) {}

  async execute(input: DeductCoinsInput): Promise<Result<User>> {
    const checked = checkDeduction(input);
    if (!checked.ok) return checked;
    const { users, uow, ids, clock } = this.deps;
    const { amount, reason, relatedEntityId } = checked.value;
    // Read before the change: the balance row stays locked only for the update and its ledger row.
    const user = input.user?.id === input.userId ? input.user : await users.findById(input.userId);
    if (!user) return fail('AUTH.UNAUTHENTICATED', 'The account no longer exists');
    const now = clock.now();
    return uow.run(async (tx): Promise<Result<User>> => {
      // One conditional update + ledger row: never below zero, never a lost update.
      const applied = await tx.ledger.apply({ id: ids.newId(), userId: input.userId, amount: -amount, reason, relatedEntityId, actorId: input.userId, createdAt: now });
      if (!applied.ok) {
        return applied.reason === 'insufficient'
          ? fail('COIN.INSUFFICIENT', `Not enough coins: this costs ${amount}`)
          : fail('AUTH.UNAUTHENTICATED', 'The account no longer exists');
      }
      await this.deps.payment.recordDeduction(tx, applied.transaction);
      // The balance this deduction left, exactly (later ones may already have moved it on).
      const after: User = { ...user, coinBalance: applied.transaction.balanceAfter, updatedAt: now };
      await input.alsoCommit?.(tx, after);
      return ok(after);
    });
  }
}
