import type { Container } from 'inversify';
import { IdempotentResponder } from '../../adapters/http/idempotency.ts';
import { adminRoutes } from '../../adapters/http/routes/admin.routes.ts';
import { coinRoutes } from '../../adapters/http/routes/coin.routes.ts';
import { AdminAdjustCoins } from '../../core/use-cases/coins/admin-adjust-coins.use-case.ts';
import { DeductCoins } from '../../core/use-cases/coins/deduct-coins.use-case.ts';
import { JobPayment } from '../../core/use-cases/coins/job-payment.ts';
import { GetAuditLog } from '../../core/use-cases/coins/get-audit-log.use-case.ts';
import { ListTransactions } from '../../core/use-cases/coins/list-transactions.use-case.ts';
import { ListUserTransactions } from '../../core/use-cases/coins/list-user-transactions.use-case.ts';
import { ListUsers } from '../../core/use-cases/coins/list-users.use-case.ts';
import { SweepUnclaimedDeductions } from '../../core/use-cases/coins/sweep-unclaimed-deductions.use-case.ts';
import { PurgeIdempotencyKeys } from '../../core/use-cases/idempotency/purge-idempotency-keys.use-case.ts';
import type { Config } from '../config.ts';
import { resolve, TOKENS } from '../tokens.ts';
import { portsOf } from './ports.ts';

/** Keys are remembered for 24 h; a repeat waits up to 10 s for the first request with its key. */
const IDEMPOTENCY = { ttlSeconds: 24 * 3600, waitMs: 10_000, pollMs: 50, abandonedAfterSeconds: 60 };

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Coins: the user and admin routes, the one module that moves a job's coins (JobPayment), and the sweep of unclaimed deductions. */
export function bindCoins(container: Container, config: Readonly<Config>): void {
  const ports = portsOf(container);
  container.bind(TOKENS.JobPayment).toDynamicValue(() => new JobPayment({ ids: ports.ids() })).inSingletonScope();
  container
    .bind(TOKENS.Idempotency)
    .toDynamicValue(() => new IdempotentResponder({ store: ports.repos().idempotency, ids: ports.ids(), clock: ports.clock(), sleep, ...IDEMPOTENCY }))
    .inSingletonScope();

  container.bind(TOKENS.RouteModule).toDynamicValue(() => {
    const { users, ledger } = ports.repos();
    const deduct = new DeductCoins({ users, uow: ports.uow(), payment: resolve(container, TOKENS.JobPayment), ids: ports.ids(), clock: ports.clock() });
    return coinRoutes({ deduct, transactions: new ListTransactions({ ledger }), idempotency: resolve(container, TOKENS.Idempotency) });
  });
  container.bind(TOKENS.RouteModule).toDynamicValue(() => {
    const { users, ledger, audit } = ports.repos();
    return adminRoutes({
      adjust: new AdminAdjustCoins({ users, uow: ports.uow(), ids: ports.ids(), clock: ports.clock() }),
      users: new ListUsers({ users }),
      userTransactions: new ListUserTransactions({ users, ledger }),
      audit: new GetAuditLog({ audit }),
      idempotency: resolve(container, TOKENS.Idempotency),
    });
  });

  ports.scheduler().add({
    name: 'idempotency-key-purge',
    roles: ['api'],
    everyMs: 10 * 60_000,
    run: () => new PurgeIdempotencyKeys({ store: ports.repos().idempotency, clock: ports.clock() }).execute(),
  });
  ports.scheduler().add({
    name: 'unclaimed-deduction-sweep',
    roles: ['api'],
    everyMs: 60_000,
    run: () =>
      new SweepUnclaimedDeductions({
        uow: ports.uow(),
        deductions: ports.repos().deductions,
        payment: resolve(container, TOKENS.JobPayment),
        clock: ports.clock(),
        logger: ports.logger(),
        unclaimedMinutes: config.generation.unclaimedDeductionMinutes,
      }).execute(),
  });
}
