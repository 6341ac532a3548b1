/**
 * POST /api/v1/coin/deduct of 1 coin at 50 connections (Bearer auth, so no CSRF round trip) on a user
 * topped up by an admin, on SQLite and MariaDB. After the run the database itself is read: the balance
 * must equal start − number of 200 responses, and the ledger sum must equal the balance ("lostUpdates":0).
 * The run uses an exact request count (sized from a warm-up to last about DURATION_S) so every request
 * sent is also answered before the balance is read.
 */
import { SequelizeDatabase } from '../adapters/sequelize/sequelize-database.ts';
import { SequelizeUnitOfWork } from '../adapters/sequelize/sequelize-unit-of-work.ts';
import { api, baseline, load, printLine, signUpAndLogin, startService, type BenchDb, type Service } from './support/harness.ts';

const DURATION_S = 10;
const DATABASES: BenchDb[] = ['sqlite', 'mariadb'];
const ADMIN = 'bench-admin@example.com';
const WARM_UP_REQUESTS = 500;

async function readLedger(service: Service, userId: string): Promise<{ balance: number; sum: number }> {
  const db = service.sqlitePath
    ? new SequelizeDatabase({ url: service.databaseUrl, dialect: 'sqlite', storagePath: service.sqlitePath })
    : new SequelizeDatabase({ url: service.databaseUrl, dialect: 'mysql', poolMax: 2 });
  try {
    const { users, ledger } = new SequelizeUnitOfWork(db).autocommit;
    const user = await users.findById(userId);
    return { balance: user!.coinBalance, sum: await ledger.sum(userId) };
  } finally {
    await db.close();
  }
}

const base = await baseline(DURATION_S);
for (const db of DATABASES) {
  const service = await startService(db, { ADMIN_EMAILS: ADMIN });
  try {
    const admin = await signUpAndLogin(service.url, ADMIN);
    const user = await signUpAndLogin(service.url);
    for (let i = 0; i < 2; i++) {
      const topUp = await api(service.url, admin, 'POST', `/admin/coin/add/${user.user.id}`, { amount: 1_000_000, reason: 'admin_adjustment' });
      if (topUp.status !== 200) throw new Error(`top-up: ${topUp.status} ${JSON.stringify(topUp.body)}`);
    }
    const deduct = {
      url: `${service.url}/api/v1/coin/deduct`,
      method: 'POST' as const,
      headers: { authorization: `Bearer ${user.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 1, reason: 'image_generation' }),
    };
    // Exact request counts (not durations): a run cut off by a timer could leave requests in flight that
    // the server still applies after the balance was read, which would look like lost updates.
    const warm = await load({ ...deduct, amount: WARM_UP_REQUESTS });
    const start = await readLedger(service, user.user.id);
    const run = await load({ ...deduct, amount: Math.max(500, Math.round(warm.rps * DURATION_S)), server: service });
    const end = await readLedger(service, user.user.id);
    const ok = run.statusCounts['200'] ?? 0;
    const lostUpdates = Math.abs(start.balance - ok - end.balance) + Math.abs(end.sum - end.balance);
    printLine('coin-deduct', db, run, base, {
      lostUpdates,
      ok200: ok,
      non200: Object.values(run.statusCounts).reduce((a, b) => a + b, 0) - ok,
      errors: run.errors,
      startBalance: start.balance,
      endBalance: end.balance,
      ledgerSum: end.sum,
    });
    if (lostUpdates !== 0) process.exitCode = 1;
  } finally {
    await service.stop();
  }
}
