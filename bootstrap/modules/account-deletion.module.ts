import type { Container } from 'inversify';
import { accountDeletionRoutes } from '../../adapters/http/routes/account-deletion.routes.ts';
import { DeleteAccount, DeleteUser, type AccountRemovalDeps } from '../../core/use-cases/auth/delete-account.use-case.ts';
import { PurgeDeletedAccounts } from '../../core/use-cases/auth/purge-deleted-accounts.use-case.ts';
import type { Config } from '../config.ts';
import { resolve, TOKENS } from '../tokens.ts';
import { loginLimitsOf } from './auth.module.ts';
import { bindFeature, forApi, type Feature, type FeaturePorts } from './feature.ts';
import type { GenerationFeature } from './generation.module.ts';

/** How often the api role looks for deleted accounts whose purge has not finished (one that failed, or another process's). */
const PURGE_EVERY_MS = 60_000;

/** What the operator's command line uses: an administrator's deletion (without the audit row) and the purge to await. */
export interface AccountDeletion {
  deleteUser: DeleteUser;
  purge: PurgeDeletedAccounts;
}

/**
 * Deleting accounts (ADR 063): the two routes, and the purge that finishes each deletion, started at once by the
 * deletion and swept every minute. It shares generation's lifecycle (the cancels and their refunds) and job control.
 */
export function accountDeletionFeature(
  ports: FeaturePorts,
  config: Readonly<Config>,
  generation: () => GenerationFeature,
  revocations: () => AccountRemovalDeps['revocations'],
): Feature<AccountDeletion> {
  const logger = ports.logger().child({ component: 'account-deletion' });
  const { users, history, uploads } = ports.repos();
  const { lifecycle, control } = generation().exports;
  const requestCancel = (jobId: string) => control.requestCancel(jobId);
  const purge = new PurgeDeletedAccounts({ users, history, uploads, storage: ports.storage(), uow: ports.uow(), lifecycle, logger, requestCancel });
  const removal: AccountRemovalDeps = {
    uow: ports.uow(),
    lifecycle,
    revocations: revocations(),
    clock: ports.clock(),
    logger,
    requestCancel,
    purgeSoon: (userId) => void purge.purge(userId),
  };
  const deleteUser = new DeleteUser({ ...removal, ids: ports.ids() });
  return {
    exports: { deleteUser, purge },
    routes: forApi(config, () => [
      accountDeletionRoutes({
        deleteAccount: new DeleteAccount({ ...removal, users, hasher: ports.hasher(), cache: ports.cache(), limits: loginLimitsOf(config) }),
        deleteUser,
        cookies: { secure: config.auth.secureCookies },
      }),
    ]),
    scheduled: [{ name: 'account-purge', roles: ['api'], everyMs: PURGE_EVERY_MS, run: () => purge.execute() }],
  };
}

export function bindAccountDeletion(container: Container, config: Readonly<Config>, generation: () => GenerationFeature): void {
  const feature = bindFeature(container, 'account-deletion', (ports) => accountDeletionFeature(ports, config, generation, () => resolve(container, TOKENS.SessionRevocations)));
  container.bind(TOKENS.AccountDeletion).toDynamicValue(() => feature().exports);
}
