/**
 * POST /api/v1/coin/deduct of 1 coin at 50 connections (Bearer auth, so no CSRF round trip), on SQLite and
 * MariaDB, in two shapes: one user (one hot balance row: every deduction waits for the previous one) and
 * DISTINCT_USERS users taking turns (each request another user's row), both against bare Express measured in
 * the same run, and (distinct users) against bare Express doing the same SQLite writes by hand (bench/support/bare-deduct.ts),
 * also in the same run: on the product's driver (sqlite3), and on Node's synchronous built-in one (node:sqlite), whose
 * ratio to bare Express shows how near 0.5x any Express deduction on SQLite can come. After each run the database itself is read: the balances must have fallen by the number of
 * 200 responses, and each ledger must add up to its balance ("lostUpdates":0). Each run uses an exact request
 * count (sized from a warm-up to last about DURATION_S) so every request sent is also answered before the read.
 */
import { SequelizeDatabase } from '../adapters/sequelize/sequelize-database.ts';
import { SequelizeUnitOfWork } from '../adapters/sequelize/sequelize-unit-of-work.ts';
import { api, baseline, load, printLine, signUpAndLogin, startBareDeduct, startService, type BenchDb, type LoadResult, type Service, type Session } from './support/harness.ts';

const DURATION_S = 10;
const DATABASES: BenchDb[] = ['sqlite', 'mariadb'];
const ADMIN = 'bench-admin@example.com';
const WARM_UP_REQUESTS = 500;
const DISTINCT_USERS = 50;

/** Each user's balance and ledger sum, read from the database itself. */
async function readLedgers(service: Service, userIds: string[]): Promise<Map<string, { balance: number; sum: number }>> {
  const db = service.sqlitePath
    ? new SequelizeDatabase({ url: service.databaseUrl, dialect: 'sqlite', storagePath: service.sqlitePath })
    : new SequelizeDatabase({ url: service.databaseUrl, dialect: 'mysql', poolMax: 2 });
  try {
    const { users, ledger } = new SequelizeUnitOfWork(db).autocommit;
    const read = new Map<string, { balance: number; sum: number }>();
    for (const userId of userIds) read.set(userId, { balance: (await users.findById(userId))!.coinBalance, sum: await ledger.sum(userId) });
    return read;
  } finally {
    await db.close();
  }
}

const total = (ledgers: Map<string, { balance: number; sum: number }>, field: 'balance' | 'sum'): number => [...ledgers.values()].reduce((sum, one) => sum + one[field], 0);

/** Users signed up and topped up by the admin, a few at a time (sign-up hashes a password: the slow part). */
async function toppedUpUsers(service: Service, admin: Session, count: number): Promise<Session[]> {
  const users: Session[] = [];
  while (users.length < count) {
    const batch = await Promise.all(Array.from({ length: Math.min(10, count - users.length) }, () => signUpAndLogin(service.url)));
    for (const user of batch) {
      const topUp = await api(service.url, admin, 'POST', `/admin/coin/add/${user.user.id}`, { amount: 1_000_000, reason: 'admin_adjustment' });
      if (topUp.status !== 200) throw new Error(`top-up: ${topUp.status} ${JSON.stringify(topUp.body)}`);
    }
    users.push(...batch);
  }
  return users;
}

/**
 * One run at CONNECTIONS connections against the given users (one hot row when there is one user, else each request
 * the next user in turn), with an exact request count; then the database must agree with the 200s: the balances
 * fell by exactly that many coins, and every user's ledger adds up to their balance ("lostUpdates": 0).
 */
async function deductRun(service: Service, users: Session[]): Promise<{ run: LoadResult; lostUpdates: number; startBalance: number; endBalance: number; ledgerSum: number }> {
  let next = 0;
  const deduct = {
    url: `${service.url}/api/v1/coin/deduct`,
    method: 'POST' as const,
    headers: { authorization: `Bearer ${users[0]!.accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 1, reason: 'image_generation' }),
    ...(users.length > 1
      ? {
          requests: [
            {
              setupRequest: (request: { headers?: Record<string, string> }) => {
                const user = users[next++ % users.length]!;
                return { ...request, headers: { ...request.headers, authorization: `Bearer ${user.accessToken}` } };
              },
            },
          ],
        }
      : {}),
  } as Parameters<typeof load>[0];
  const ids = users.map((user) => user.user.id);
  // Exact request counts (not durations): a run cut off by a timer could leave requests in flight that
  // the server still applies after the balances were read, which would look like lost updates.
  const warm = await load({ ...deduct, amount: WARM_UP_REQUESTS });
  const start = await readLedgers(service, ids);
  const run = await load({ ...deduct, amount: Math.max(500, Math.round(warm.rps * DURATION_S)), server: service });
  const end = await readLedgers(service, ids);
  const ok = run.statusCounts['200'] ?? 0;
  const drift = [...end.values()].reduce((sum, one) => sum + Math.abs(one.sum - one.balance), 0);
  const lostUpdates = Math.abs(total(start, 'balance') - ok - total(end, 'balance')) + drift;
  return { run, lostUpdates, startBalance: total(start, 'balance'), endBalance: total(end, 'balance'), ledgerSum: total(end, 'sum') };
}

const summary = (measured: Awaited<ReturnType<typeof deductRun>>) => ({
  lostUpdates: measured.lostUpdates,
  ok200: measured.run.statusCounts['200'] ?? 0,
  non200: Object.values(measured.run.statusCounts).reduce((a, b) => a + b, 0) - (measured.run.statusCounts['200'] ?? 0),
  errors: measured.run.errors,
  startBalance: measured.startBalance,
  endBalance: measured.endBalance,
  ledgerSum: measured.ledgerSum,
});

/**
 * Bare Express doing the deduction's writes by hand on SQLite (bench/support/bare-deduct.ts) with the given driver,
 * DISTINCT_USERS users in turn.
 */
async function bareDeductRun(driver: 'sqlite3' | 'node:sqlite'): Promise<LoadResult> {
  const bare = await startBareDeduct(driver);
  try {
    const made = await fetch(`${bare.url}/users`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: DISTINCT_USERS }) });
    const { ids } = (await made.json()) as { ids: string[] };
    let next = 0;
    const deduct = {
      url: `${bare.url}/deduct`,
      method: 'POST' as const,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 1, reason: 'image_generation' }),
      requests: [{ setupRequest: (request: { headers?: Record<string, string> }) => ({ ...request, headers: { ...request.headers, 'x-user': ids[next++ % ids.length]! } }) }],
    } as Parameters<typeof load>[0];
    await load({ ...deduct, durationS: 2 });
    const run = await load({ ...deduct, durationS: DURATION_S, server: bare });
    if ((run.statusCounts['200'] ?? 0) !== Object.values(run.statusCounts).reduce((a, b) => a + b, 0)) throw new Error(`bare deduct: ${JSON.stringify(run.statusCounts)}`);
    return run;
  } finally {
    await bare.stop();
  }
}

// `npx tsx bench/coin-deduct.bench.ts [sqlite] [mariadb]`: both databases by default; on each, one hot row, then
// DISTINCT_USERS users each deducting (the ratio to bare Express measured in the same run).
const named = process.argv.slice(2).filter((arg): arg is BenchDb => arg === 'sqlite' || arg === 'mariadb');
const base = await baseline(DURATION_S);
const bareDeduct = await bareDeductRun('sqlite3');
// The fastest deduction Express can make on SQLite in Node: the same writes on the synchronous built-in driver.
const bareSyncDeduct = await bareDeductRun('node:sqlite');
for (const db of named.length > 0 ? named : DATABASES) {
  const service = await startService(db, { ADMIN_EMAILS: ADMIN });
  try {
    const admin = await signUpAndLogin(service.url, ADMIN);
    const users = await toppedUpUsers(service, admin, DISTINCT_USERS);
    const hot = await deductRun(service, users.slice(0, 1));
    printLine('coin-deduct', db, hot.run, base, summary(hot));
    const distinct = await deductRun(service, users);
    printLine('coin-deduct-distinct-users', db, distinct.run, base, {
      users: users.length,
      ...summary(distinct),
      // The same durable writes by hand behind bare Express (SQLite, one transaction per request): what the product's
      // authentication, validation, idempotency, logging, metrics and headers cost on top of the write itself.
      ...(db === 'sqlite'
        ? {
            bareDeductRps: bareDeduct.rps,
            ratioToBareDeduct: Math.round((distinct.run.rps / bareDeduct.rps) * 1000) / 1000,
            ...(bareDeduct.cpuMsPerReq !== undefined ? { bareDeductCpuMsPerReq: bareDeduct.cpuMsPerReq } : {}),
            // The same hand-written deduction on node:sqlite, against bare Express: how near 0.5x any Express
            // deduction on SQLite comes, with nothing but the write in its way.
            bareSyncDeductRps: bareSyncDeduct.rps,
            bareSyncDeductRatioToBareExpress: Math.round((bareSyncDeduct.rps / base.rps) * 1000) / 1000,
          }
        : {}),
    });
    if (hot.lostUpdates !== 0 || distinct.lostUpdates !== 0) process.exitCode = 1;
  } finally {
    await service.stop();
  }
}
