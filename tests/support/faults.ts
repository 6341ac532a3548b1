import type { Transaction, UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import type { Repositories } from './backends.ts';

export type RepositoryName = keyof Repositories;

const REPOSITORIES = new Set<PropertyKey>(['users', 'sessions', 'ledger', 'deductions', 'jobs', 'history', 'staged', 'outbox', 'audit', 'idempotency', 'templates', 'uploads', 'events', 'identities', 'connections', 'publications'] satisfies RepositoryName[]);

/**
 * Decides, for every repository call made inside a transaction, whether to let it through (`call()`) or to
 * fail instead. `repo.method` names the call, e.g. `ledger.apply` or `jobs.transition`.
 */
export type Interceptor = (call: { repo: RepositoryName; method: string; args: unknown[] }, proceed: () => Promise<unknown>) => Promise<unknown>;

/** A unit of work whose transactions hand out repositories with every call going through `intercept` (fault injection). */
export function interceptTransactions(inner: UnitOfWork, intercept: Interceptor): UnitOfWork {
  return {
    run: (work) =>
      inner.run((tx) => {
        const wrapped = new Proxy(tx, {
          get(target, property) {
            const value = Reflect.get(target, property, target) as unknown;
            if (typeof value === 'function') return (value as (...a: unknown[]) => unknown).bind(target);
            if (!REPOSITORIES.has(property) || typeof value !== 'object' || value === null) return value;
            const repo = property as RepositoryName;
            return new Proxy(value, {
              get(repository, method) {
                const fn = Reflect.get(repository, method, repository) as unknown;
                if (typeof fn !== 'function') return fn;
                return (...args: unknown[]) =>
                  intercept({ repo, method: String(method), args }, () => (fn as (...a: unknown[]) => Promise<unknown>).apply(repository, args));
              },
            });
          },
        }) as Transaction;
        return work(wrapped);
      }),
  };
}

/** Throws `error` on the first `times` calls matching `when`, then lets everything through. Records what it did. */
export function failOnce(when: (call: { repo: RepositoryName; method: string; args: unknown[] }) => boolean, error = new Error('injected fault'), times = 1) {
  const state = { fired: 0 };
  const interceptor: Interceptor = async (call, proceed) => {
    if (state.fired < times && when(call)) {
      state.fired += 1;
      throw error;
    }
    return proceed();
  };
  return { interceptor, state };
}
