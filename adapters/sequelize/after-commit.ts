import { Sequelize, type Transaction } from 'sequelize';

/**
 * Runs `fn` once the ambient unit of work (the CLS transaction SequelizeDatabase installs) commits,
 * or now when there is none. In-process wake-ups use it: a poller woken before the commit would
 * find nothing and then sleep a full interval.
 */
export function afterCommit(fn: () => void): void {
  const cls = (Sequelize as unknown as { _cls?: { get(key: string): unknown } })._cls;
  const transaction = cls?.get('transaction') as Transaction | null | undefined;
  if (transaction) transaction.afterCommit(() => fn());
  else fn();
}
