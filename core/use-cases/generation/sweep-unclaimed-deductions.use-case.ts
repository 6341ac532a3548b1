import type { Logger } from '../../ports/logger.port.ts';
import { refundDeduction, type RefundDeps } from './refunds.ts';

/** A deduction linked to a request that no job claimed in time is given back (the seed's client order loses nothing). */
export class SweepUnclaimedDeductions {
  constructor(private readonly deps: Omit<RefundDeps, 'jobs'> & { logger: Logger; unclaimedMinutes: number }) {}

  async execute(max = 200): Promise<number> {
    const before = new Date(this.deps.clock.now().getTime() - this.deps.unclaimedMinutes * 60_000);
    const unclaimed = await this.deps.claims.listUnclaimed(before, max);
    let refunded = 0;
    for (const deduction of unclaimed) {
      if ((await refundDeduction(this.deps, deduction)) > 0) refunded += 1;
    }
    if (refunded > 0) this.deps.logger.info('unclaimed deductions refunded', { count: refunded });
    return refunded;
  }
}
