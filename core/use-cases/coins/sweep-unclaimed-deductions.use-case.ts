import type { Clock } from '../../ports/clock.port.ts';
import type { LinkedDeductions } from '../../ports/linked-deductions.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { JobPayment } from './job-payment.service.ts';

export interface SweepUnclaimedDeductionsDeps {
  uow: UnitOfWork;
  deductions: LinkedDeductions;
  payment: JobPayment;
  clock: Clock;
  logger: Logger;
  unclaimedMinutes: number;
}

/**
 * A deduction linked to a request that no job claimed in time is given back (the seed's client order loses
 * nothing). The list is read outside any transaction, so a job may claim a listed deduction, or another
 * sweeper refund it, before this one gets to it: the refund is then skipped (`JobPayment.refundDeduction`).
 */
export class SweepUnclaimedDeductions {
  constructor(private readonly deps: SweepUnclaimedDeductionsDeps) {}

  async execute(max = 200): Promise<number> {
    const { uow, deductions, payment, clock, logger } = this.deps;
    const before = new Date(clock.now().getTime() - this.deps.unclaimedMinutes * 60_000);
    let refunded = 0;
    for (const deduction of await deductions.listOpen(before, max)) {
      if ((await uow.run((tx) => payment.refundDeduction(tx, deduction, clock.now()))) > 0) refunded += 1;
    }
    if (refunded > 0) logger.info('unclaimed deductions refunded', { count: refunded });
    return refunded;
  }
}
