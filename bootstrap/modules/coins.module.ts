import type { Container } from 'inversify';
import type { RouteModule } from '../../adapters/http/http-app.ts';
import { adminRoutes } from '../../adapters/http/routes/admin.routes.ts';
import { coinRoutes } from '../../adapters/http/routes/coin.routes.ts';
import { SequelizeAuditLog } from '../../adapters/sequelize/sequelize-audit-log.ts';
import { SequelizeIdempotencyStore } from '../../adapters/sequelize/sequelize-idempotency-store.ts';
import { rememberResponse } from '../../adapters/http/idempotency.ts';
import type { AuditLog } from '../../core/ports/audit-log.port.ts';
import type { IdempotencyStore } from '../../core/ports/idempotency-store.port.ts';
import { AdminAdjustCoins } from '../../core/use-cases/coins/admin-adjust-coins.use-case.ts';
import { DeductCoins } from '../../core/use-cases/coins/deduct-coins.use-case.ts';
import { GetAuditLog } from '../../core/use-cases/coins/get-audit-log.use-case.ts';
import { ListTransactions } from '../../core/use-cases/coins/list-transactions.use-case.ts';
import { ListUserTransactions } from '../../core/use-cases/coins/list-user-transactions.use-case.ts';
import { ListUsers } from '../../core/use-cases/coins/list-users.use-case.ts';
import { ExecuteIdempotently } from '../../core/use-cases/idempotency/execute-idempotently.use-case.ts';
import { PurgeIdempotencyKeys } from '../../core/use-cases/idempotency/purge-idempotency-keys.use-case.ts';
import type { Config } from '../config.ts';
import { TOKENS, type LifecycleBinding } from '../tokens.ts';
import { portsOf } from './ports.ts';

/** Keys are remembered for 24 h; a repeat waits up to 10 s for the first request with its key. */
const IDEMPOTENCY = { ttlSeconds: 24 * 3600, waitMs: 10_000, pollMs: 50, abandonedAfterSeconds: 60 };
const SWEEP_EVERY_MS = 10 * 60_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function bindCoins(container: Container, _config: Readonly<Config>): void {
  const ports = portsOf(container);
  const store = () => container.get<IdempotencyStore>(TOKENS.IdempotencyStore);
  const audit = () => container.get<AuditLog>(TOKENS.AuditLog);
  const idempotency = () => container.get<ExecuteIdempotently>(TOKENS.Idempotency);
  container.bind<IdempotencyStore>(TOKENS.IdempotencyStore).toDynamicValue(() => new SequelizeIdempotencyStore(ports.db())).inSingletonScope();
  container.bind<AuditLog>(TOKENS.AuditLog).toDynamicValue(() => new SequelizeAuditLog(ports.db())).inSingletonScope();
  container
    .bind<ExecuteIdempotently>(TOKENS.Idempotency)
    .toDynamicValue(() => new ExecuteIdempotently({ store: store(), uow: ports.uow(), ids: ports.ids(), clock: ports.clock(), sleep, remember: rememberResponse, ...IDEMPOTENCY }))
    .inSingletonScope();

  container.bind<RouteModule>(TOKENS.RouteModule).toDynamicValue(() => {
    const ledgerDeps = { users: ports.users(), ledger: ports.ledger(), uow: ports.uow(), ids: ports.ids(), clock: ports.clock() };
    return coinRoutes({ deduct: new DeductCoins(ledgerDeps), transactions: new ListTransactions({ ledger: ports.ledger() }), idempotency: idempotency() });
  });
  container.bind<RouteModule>(TOKENS.RouteModule).toDynamicValue(() =>
    adminRoutes({
      adjust: new AdminAdjustCoins({ users: ports.users(), ledger: ports.ledger(), audit: audit(), uow: ports.uow(), ids: ports.ids(), clock: ports.clock() }),
      users: new ListUsers({ users: ports.users() }),
      userTransactions: new ListUserTransactions({ users: ports.users(), ledger: ports.ledger() }),
      audit: new GetAuditLog({ audit: audit() }),
      idempotency: idempotency(),
    }),
  );

  container.bind<LifecycleBinding>(TOKENS.Lifecycle).toDynamicValue(() => {
    const purge = new PurgeIdempotencyKeys({ store: store(), clock: ports.clock() });
    const logger = ports.logger();
    let timer: NodeJS.Timeout | null = null;
    const sweep = () =>
      void purge.execute().then(
        (purged) => purged > 0 && logger.info('expired idempotency keys purged', { purged }),
        (error: unknown) => logger.warn('idempotency key sweep failed', { error }),
      );
    return {
      name: 'idempotency-key-sweeper',
      roles: ['api'],
      async start() {
        sweep();
        timer = setInterval(sweep, SWEEP_EVERY_MS);
        timer.unref();
      },
      async stop() {
        if (timer) clearInterval(timer);
        timer = null;
      },
    };
  });
}
