import type { Container } from 'inversify';
import { IdempotentResponder } from '../../adapters/http/idempotency.ts';
import { adminRoutes } from '../../adapters/http/routes/admin.routes.ts';
import { coinRoutes } from '../../adapters/http/routes/coin.routes.ts';
import { AdminAdjustCoins } from '../../core/use-cases/coins/admin-adjust-coins.use-case.ts';
import { DeductCoins } from '../../core/use-cases/coins/deduct-coins.use-case.ts';
import { JobPayment } from '../../core/use-cases/coins/job-payment.service.ts';
import { GetAuditLog } from '../../core/use-cases/coins/get-audit-log.use-case.ts';
import { ListTransactions } from '../../core/use-cases/coins/list-transactions.use-case.ts';
import { ListUserTransactions } from '../../core/use-cases/coins/list-user-transactions.use-case.ts';
import { ListUsers } from '../../core/use-cases/coins/list-users.use-case.ts';
import { SweepUnclaimedDeductions } from '../../core/use-cases/coins/sweep-unclaimed-deductions.use-case.ts';
import { PurgeIdempotencyKeys } from '../../core/use-cases/idempotency/purge-idempotency-keys.use-case.ts';
import type { Config } from '../config.ts';
import { TOKENS } from '../tokens.ts';
import { bindFeature, forApi, type Feature, type FeaturePorts } from './feature.ts';

/** Keys are remembered for 24 h; a repeat waits up to 10 s for the first request with its key. */
const IDEMPOTENCY = { ttlSeconds: 24 * 3600, waitMs: 10_000, pollMs: 50, abandonedAfterSeconds: 60 };

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export type CoinsFeature = Feature<{ payment: JobPayment; idempotency: IdempotentResponder }>;

/** Coins: the user and admin routes, the one module that moves a job's coins (JobPayment), and the sweep of unclaimed deductions. */
export function coinsFeature(ports: FeaturePorts, config: Readonly<Config>): CoinsFeature {
  const { users, ledger, audit, idempotency: keys, deductions } = ports.repos();
  const payment = new JobPayment({ ids: ports.ids(), metrics: ports.metrics() });
  const idempotency = new IdempotentResponder({ store: keys, ids: ports.ids(), clock: ports.clock(), sleep, ...IDEMPOTENCY });
  const purgeKeys = new PurgeIdempotencyKeys({ store: keys, clock: ports.clock() });
  const sweep = new SweepUnclaimedDeductions({
    uow: ports.uow(),
    deductions,
    payment,
    clock: ports.clock(),
    logger: ports.logger(),
    unclaimedMinutes: config.generation.unclaimedDeductionMinutes,
  });
  return {
    exports: { payment, idempotency },
    routes: forApi(config, () => [
      coinRoutes({
        deduct: new DeductCoins({ users, uow: ports.uow(), payment, ids: ports.ids(), clock: ports.clock() }),
        transactions: new ListTransactions({ ledger }),
        idempotency,
      }),
      adminRoutes({
        adjust: new AdminAdjustCoins({ users, uow: ports.uow(), ids: ports.ids(), clock: ports.clock() }),
        users: new ListUsers({ users }),
        userTransactions: new ListUserTransactions({ users, ledger }),
        audit: new GetAuditLog({ audit }),
        idempotency,
      }),
    ]),
    scheduled: [
      { name: 'idempotency-key-purge', roles: ['api'], everyMs: 10 * 60_000, run: () => purgeKeys.execute() },
      { name: 'unclaimed-deduction-sweep', roles: ['api'], everyMs: 60_000, run: () => sweep.execute() },
    ],
  };
}

export function bindCoins(container: Container, config: Readonly<Config>): void {
  const coins = bindFeature(container, 'coins', (ports) => coinsFeature(ports, config));
  container.bind(TOKENS.JobPayment).toDynamicValue(() => coins().exports.payment);
  container.bind(TOKENS.Idempotency).toDynamicValue(() => coins().exports.idempotency);
}
