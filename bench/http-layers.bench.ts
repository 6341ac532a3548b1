/**
 * Where a coin deduction's CPU goes, layer by layer (issue 23, item 6): the same service (SQLite) and connections as
 * bench/coin-deduct.bench.ts, routes of growing work, each against bare Express measured in the same run:
 *   GET /health/live           the middleware every request passes (request id, log, metrics, helmet, CORS, cookies,
 *                              body parser, XSRF cookie) and a handler that answers at once;
 *   GET /auth/profile          + Bearer authentication (token, login state) and one user read;
 *   POST /coin/deduct, 400     + the JSON body and its validation, answered with the error body;
 *   POST /coin/deduct, 402     + idempotency, the use case and its write transaction (refused by the balance guard);
 *   POST /coin/deduct, 200     the deduction itself (one user: the hot balance row).
 * One JSON line per route. `npx tsx bench/http-layers.bench.ts`
 */
import { api, baseline, load, printLine, signUpAndLogin, startService } from './support/harness.ts';

const DURATION_S = 5;
const ADMIN = 'bench-admin@example.com';

const base = await baseline(DURATION_S);
const service = await startService('sqlite', { ADMIN_EMAILS: ADMIN });
try {
  const admin = await signUpAndLogin(service.url, ADMIN);
  const [poor, rich] = [await signUpAndLogin(service.url), await signUpAndLogin(service.url)];
  const topUp = await api(service.url, admin, 'POST', `/admin/coin/add/${rich.user.id}`, { amount: 1_000_000, reason: 'admin_adjustment' });
  if (topUp.status !== 200) throw new Error(`top-up: ${topUp.status}`);
  const bearer = (session: typeof poor) => ({ authorization: `Bearer ${session.accessToken}` });
  const deduct = (session: typeof poor, amount: number) => ({
    url: `${service.url}/api/v1/coin/deduct`,
    method: 'POST' as const,
    headers: { ...bearer(session), 'content-type': 'application/json' },
    body: JSON.stringify({ amount, reason: 'image_generation' }),
  });
  const routes: [string, number, Parameters<typeof load>[0]][] = [
    ['GET /health/live', 200, { url: `${service.url}/api/v1/health/live` }],
    ['GET /auth/profile', 200, { url: `${service.url}/api/v1/auth/profile`, headers: bearer(poor) }],
    ['POST /coin/deduct invalid', 400, deduct(poor, 0)],
    ['POST /coin/deduct too poor', 402, deduct(poor, 1_000_000)],
    ['POST /coin/deduct', 200, deduct(rich, 1)],
  ];
  for (const [route, status, options] of routes) {
    await load({ ...options, durationS: 1 });
    const run = await load({ ...options, durationS: DURATION_S, server: service });
    const expected = run.statusCounts[String(status)] ?? 0;
    printLine('http-layers', 'sqlite', run, base, { route, status, other: Object.values(run.statusCounts).reduce((a, b) => a + b, 0) - expected, errors: run.errors });
  }
} finally {
  await service.stop();
}
