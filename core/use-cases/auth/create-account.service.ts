import type { NewUser } from '../../ports/user-repository.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { Transaction } from '../../ports/unit-of-work.port.ts';

/**
 * The one way an account comes into being (registration, first OpenID Connect login): the user row and
 * the signup bonus in the caller's transaction. False when the email is taken.
 */
export async function createAccount(tx: Transaction, deps: { ids: IdGenerator; signupBonusCoins: number }, user: NewUser): Promise<boolean> {
  if (!(await tx.users.create(user))) return false;
  if (deps.signupBonusCoins > 0) {
    const bonus = await tx.ledger.apply({
      id: deps.ids.newId(),
      userId: user.id,
      amount: deps.signupBonusCoins,
      reason: 'signup_bonus',
      relatedEntityId: null,
      actorId: null,
      createdAt: user.createdAt,
    });
    if (!bonus.ok) throw new Error(`signup bonus failed: ${bonus.reason}`);
  }
  return true;
}
