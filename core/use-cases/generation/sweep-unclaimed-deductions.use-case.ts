import type { Clock } from '../../ports/clock.port.ts';
import type { DeductionClaims } from '../../ports/deduction-claims.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import { creditRefund } from './refund-credit.ts';

export interface SweepUnclaimedDeductionsDeps {
  uow: UnitOfWork;
  claims: DeductionClaims;
  ids: IdGenerator;
  clock: Clock;
  logger: Logger;
  unclaimedMinutes: number;
}

/**
 * A deduction linked to a request that no job claimed in time is given back (the seed's client order loses
 * nothing). The claim row ('refunded') and the credit commit together; the claim's key makes it once.
 */
export class SweepUnclaimedDeductions {
  constructor(private readonly deps: SweepUnclaimedDeductionsDeps) {}

  async execute(max = 200): Promise<number> {
    const { uow, claims, ids, clock, logger } = this.deps;
    const before = new Date(clock.now().getTime() - this.deps.unclaimedMinutes * 60_000);
    let refunded = 0;
    for (const deduction of await claims.listUnclaimed(before, max)) {
      const done = await uow.run(async (tx) => {
        const at = clock.now();
        if (!(await tx.claims.claim(deduction.id, 'refunded', null, at))) return false;
        await creditRefund(tx, ids, { userId: deduction.userId, amount: deduction.amount, relatedEntityId: deduction.relatedEntityId, at });
        return true;
      });
      if (done) refunded += 1;
    }
    if (refunded > 0) logger.info('unclaimed deductions refunded', { count: refunded });
    return refunded;
  }
}
