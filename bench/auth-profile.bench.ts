/**
 * GET /api/v1/auth/profile with a valid access cookie at 50 connections, on SQLite and MariaDB, against a
 * bare Express "hello" (issue target: at least 60% of its rps); plus POST /auth/login figures (scrypt-bound
 * by design, so far below the baseline). One JSON line per scenario.
 */
import { baseline, load, printLine, signUpAndLogin, startService, type BenchDb } from './support/harness.ts';

const DURATION_S = 8;
const DATABASES: BenchDb[] = ['sqlite', 'mariadb'];

const base = await baseline(DURATION_S);
for (const db of DATABASES) {
  // 50 parallel logins of one account from one address would mostly be refused (ADR 020 counts attempts in
  // flight); the login figure measures the login itself. Each limit at its configured maximum.
  const service = await startService(db, { LOGIN_MAX_FAILURES: '1000', LOGIN_MAX_FAILURES_PER_ACCOUNT: '100000', LOGIN_MAX_FAILURES_PER_ADDRESS: '100000' });
  try {
    const session = await signUpAndLogin(service.url);
    const profile = { url: `${service.url}/api/v1/auth/profile`, headers: { cookie: session.cookie } };
    await load({ ...profile, durationS: 2 });
    const run = await load({ ...profile, durationS: DURATION_S, server: service });
    const ok = run.statusCounts['200'] ?? 0;
    printLine('auth-profile', db, run, base, { non200: Object.values(run.statusCounts).reduce((a, b) => a + b, 0) - ok, errors: run.errors });

    const login = await load({
      url: `${service.url}/api/v1/auth/login`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: session.user.email, password: session.password }),
      durationS: DURATION_S,
      server: service,
    });
    const loggedIn = login.statusCounts['200'] ?? 0;
    printLine('auth-login', db, login, base, { non200: Object.values(login.statusCounts).reduce((a, b) => a + b, 0) - loggedIn, errors: login.errors });
  } finally {
    await service.stop();
  }
}
