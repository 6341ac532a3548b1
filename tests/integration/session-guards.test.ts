/**
 * Guards of sessions and sockets that other suites do not pin down: each test here was checked to go red
 * with its guard deleted (tests/mutation/mutations/auth.mutations.ts lists the deletions).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import test, { type ExecutionContext } from 'ava';
import jwt from 'jsonwebtoken';
import { QueryTypes } from 'sequelize';
import { WebSocket } from 'ws';
import type { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';
import type { UserEvent } from '../../core/ports/user-events.port.ts';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { TestClient, type TestResponse } from '../support/test-client.ts';
import { connectWs, refusedStatus, type WsTestClient } from '../support/ws-test-client.ts';

/** The claims of a JWT (a client may read its own access token). */
const jwtClaims = (token: string): { sub: string; sid?: string; exp: number } => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

const wsUrlOf = (app: TestApp) => `ws://127.0.0.1:${app.port}/api/v1/ws`;

/** The socket's close code, or 'still open' after `ms`. */
const closedWithin = (socket: WsTestClient, ms: number): Promise<number | 'still open'> => Promise.race([socket.closed, delay(ms).then(() => 'still open' as const)]);

/** A client that sends only `Authorization: Bearer <token>`. */
function bearer(app: TestApp, token: string): TestClient {
  const client = new TestClient(app.baseUrl);
  client.bearer = token;
  return client;
}

/** The Set-Cookie value of `name` in a response ('' when cleared), or undefined when not set. */
const setCookieValue = (res: TestResponse, name: string): string | undefined => {
  const cookie = res.headers.getSetCookie().findLast((c) => c.startsWith(`${name}=`));
  return cookie === undefined ? undefined : cookie.slice(name.length + 1).split(';')[0];
};

async function started(t: ExecutionContext, db: TestDatabase, env: Record<string, string> = {}): Promise<TestApp> {
  const app = await startTestApp(db, env);
  t.teardown(() => app.close());
  return app;
}

/** One user logged in twice: two clients, two logins (sessions). */
async function twoLogins(t: ExecutionContext, app: TestApp): Promise<{ first: TestClient; second: TestClient }> {
  const first = app.client();
  const me = await first.signUp();
  const second = app.client();
  t.is((await second.post('/auth/login', { email: me.email, password: me.password })).status, 200);
  return { first, second };
}

function suite(db: TestDatabase): void {
  const title = (name: string) => `[${db}] ${name}`;

  test.serial(title('an expired refresh token gets 401 and is not rotated'), async (t) => {
    const app = await started(t, db, { REFRESH_TOKEN_TTL: '2' });
    const control = app.client();
    await control.signUp();
    t.is((await control.post('/auth/refresh')).status, 200, 'a refresh token within its lifetime rotates (so the 401 below is down to expiry)');

    const client = app.client();
    const me = await client.signUp();
    const login = await client.post('/auth/login', { email: me.email, password: me.password });
    t.is(login.status, 200);
    const expiresAt = Date.parse(login.body.refreshTokenExpiresAt);
    t.true(expiresAt <= Date.now() + 2000, `the refresh token lives 2 s (expires ${login.body.refreshTokenExpiresAt})`);
    const family = jwtClaims(client.cookies.get('access_token')!).sid!;
    await delay(Math.max(0, expiresAt - Date.now()) + 250);

    const res = await client.post('/auth/refresh');
    t.is(res.status, 401, `an expired refresh token is refused: ${JSON.stringify(res.body)}`);
    t.is(res.body.statusCode, 401);
    t.falsy(setCookieValue(res, 'refresh_token'), 'no new refresh token');
    t.falsy(setCookieValue(res, 'access_token'), 'no new access token');
    const database = resolve(app.app.container, TOKENS.Database) as SequelizeDatabase;
    const rows = await database.sequelize.query<{ rotated_at: unknown }>('SELECT rotated_at FROM refresh_sessions WHERE family_id = ?', {
      replacements: [family],
      type: QueryTypes.SELECT,
    });
    t.deepEqual(rows.map((row) => row.rotated_at), [null], 'the family still holds its one token, not rotated');
  });

  test.serial(title("a socket refuses an in-band auth with another user's token: an error, and it keeps its own user's session and events"), async (t) => {
    const app = await started(t, db);
    const uow = resolve(app.app.container, TOKENS.UnitOfWork);
    const log = resolve(app.app.container, TOKENS.UserEventLog);
    const publish = (userId: string, jobId: string) => uow.run((tx) => log.record(tx, userId, { type: 'job.progress', jobId, value: 1, max: 2 } as unknown as UserEvent));
    const alice = app.client();
    const a = await alice.signUp();
    const bob = app.client();
    const b = await bob.signUp();
    const socket = await connectWs(wsUrlOf(app), { bearer: alice.cookies.get('access_token')! });
    t.teardown(() => socket.close());

    socket.send({ type: 'auth', token: bob.cookies.get('access_token')! });
    const answer = await socket.waitFor((m) => m.type === 'auth.ok' || m.type === 'error', 3000).catch(() => null);
    t.is(answer?.type, 'error', `another user's token is refused; got ${JSON.stringify(answer)}`);

    await publish(b.id, 'bob-job');
    await publish(a.id, 'alice-job');
    await socket.waitFor((m) => m.jobId === 'alice-job', 3000).catch(() => null);
    await delay(300);
    t.deepEqual(socket.messages.filter((m) => typeof m.seq === 'number').map((m) => m.jobId), ['alice-job'], "the socket gets its user's events, never the other user's");

    // Still on Alice's session: her logout (which names the token the socket was opened with) closes it.
    t.is((await alice.post('/auth/logout')).status, 204);
    t.is(await closedWithin(socket, 2000), 4003, "Alice's logout closes the socket with 4003");
  });

  test.serial(title('refresh-token reuse closes the sockets of that session (4003); a socket of another session of the same user stays open'), async (t) => {
    const app = await started(t, db);
    const { first, second } = await twoLogins(t, app);
    const firstAccess = first.cookies.get('access_token')!;
    const stolenRefresh = first.cookies.get('refresh_token')!;
    const secondAccess = second.cookies.get('access_token')!;
    const url = wsUrlOf(app);
    const opened = await connectWs(url, { bearer: firstAccess });
    const other = await connectWs(url, { cookie: secondAccess });
    t.teardown(async () => {
      await opened.close();
      await other.close();
    });

    // The owner refreshes: a new pair in the same session, and a socket on the new access token.
    t.is((await first.post('/auth/refresh')).status, 200);
    const rotatedAccess = first.cookies.get('access_token')!;
    t.not(rotatedAccess, firstAccess);
    const openedAfterRotation = await connectWs(url, { bearer: rotatedAccess });
    t.teardown(() => openedAfterRotation.close());
    t.is(await closedWithin(opened, 300), 'still open', 'a plain rotation closes nothing');

    // Someone presents the refresh token that was rotated away: the whole session is revoked.
    const thief = app.client();
    thief.cookies.set('refresh_token', stolenRefresh);
    t.is((await thief.post('/auth/refresh')).status, 401);
    t.is(await closedWithin(opened, 2000), 4003, 'the socket on the first access token of the session is closed with 4003');
    t.is(await closedWithin(openedAfterRotation, 2000), 4003, 'the socket on the access token the rotation issued is closed with 4003');
    await delay(300);
    t.is(other.ws.readyState, WebSocket.OPEN, "the other session's socket is untouched");
    other.send({ type: 'sync' });
    t.is((await other.waitFor((m) => m.type === 'job.snapshot', 3000).catch(() => null))?.type, 'job.snapshot');

    t.is((await bearer(app, firstAccess).get('/auth/profile')).status, 401, "the revoked session's access tokens are refused");
    t.is((await bearer(app, rotatedAccess).get('/auth/profile')).status, 401);
    t.is((await bearer(app, secondAccess).get('/auth/profile')).status, 200, 'the other session still works');
  });

  test.serial(title('an access token without a session id (sid), signed with the real secret, is 401 on routes and refused by the socket'), async (t) => {
    const app = await started(t, db);
    const client = app.client();
    const me = await client.signUp();
    const access = client.cookies.get('access_token')!;
    const { sid } = jwtClaims(access);
    const { jwtSecret, issuer, audience } = app.app.config.auth;
    const sign = (claims: Record<string, unknown>) =>
      jwt.sign({ sub: me.id, role: 'user', jti: randomUUID(), ...claims }, jwtSecret, { algorithm: 'HS256', issuer, audience, expiresIn: 600 });

    // The control: the same token naming the user's login is accepted, so the refusals below are down to the missing sid.
    t.is((await bearer(app, sign({ sid })).get('/auth/profile')).status, 200);
    const sidless = sign({});
    for (const path of ['/auth/profile', '/generate']) {
      const res = await bearer(app, sidless).get(path);
      t.is(res.status, 401, `${path}: ${JSON.stringify(res.body)}`);
      t.is(res.body.statusCode, 401);
    }
    t.is((await bearer(app, sign({ sid: null })).get('/auth/profile')).status, 401, 'a null sid');
    t.is((await refusedStatus(wsUrlOf(app), { bearer: sidless })).status, 401, 'the upgrade is refused');
    const socket = await connectWs(wsUrlOf(app), { bearer: access });
    t.teardown(() => socket.close());
    socket.send({ type: 'auth', token: sidless });
    const answer = await socket.waitFor((m) => m.type === 'auth.ok' || m.type === 'error', 3000).catch(() => null);
    t.is(answer?.type, 'error', `in-band auth with it is refused; got ${JSON.stringify(answer)}`);
  });

  test.serial(title('logout makes the access token unusable at once: by cookie, by Bearer alone, and with the refresh cookie of another login'), async (t) => {
    const app = await started(t, db);
    const url = wsUrlOf(app);

    const byCookie = app.client();
    await byCookie.signUp();
    const cookieAccess = byCookie.cookies.get('access_token')!;
    const socket = await connectWs(url, { cookie: cookieAccess });
    t.teardown(() => socket.close());
    t.is((await byCookie.post('/auth/logout')).status, 204);
    t.is((await bearer(app, cookieAccess).get('/auth/profile')).status, 401, 'logged out by cookie');
    t.is(await closedWithin(socket, 2000), 4003, 'its socket is closed');
    t.is((await refusedStatus(url, { cookie: cookieAccess })).status, 401, 'and cannot open another');

    const byBearer = app.client();
    await byBearer.signUp();
    const bearerAccess = byBearer.cookies.get('access_token')!;
    const bearerRefresh = byBearer.cookies.get('refresh_token')!;
    t.is((await bearer(app, bearerAccess).post('/auth/logout')).status, 204, 'logout with the Bearer header only, no refresh cookie');
    t.is((await bearer(app, bearerAccess).get('/auth/profile')).status, 401, 'logged out by Bearer');
    const refresher = app.client();
    refresher.cookies.set('refresh_token', bearerRefresh);
    t.is((await refresher.post('/auth/refresh')).status, 401, "the access token's login is over: its refresh token too");

    // A Bearer token of one login sent with the refresh cookie of another login of the same user (a browser's
    // cookie beside a token pasted into Swagger UI): both logins end.
    const { first: browser, second: pasted } = await twoLogins(t, app);
    const pastedAccess = pasted.cookies.get('access_token')!;
    const browserAccess = browser.cookies.get('access_token')!;
    const mixed = app.client();
    mixed.cookies.set('refresh_token', browser.cookies.get('refresh_token')!);
    mixed.bearer = pastedAccess;
    t.is((await mixed.post('/auth/logout')).status, 204);
    t.is((await bearer(app, pastedAccess).get('/auth/profile')).status, 401, 'the access token the logout came with');
    t.is((await browser.post('/auth/refresh')).status, 401, 'the refresh token presented with it');
    t.is((await bearer(app, browserAccess).get('/auth/profile')).status, 401, "the refresh token's login");
  });
  // Pins the owner check of logout: a refresh cookie of another user sent along ends only the caller's login.
  test.serial(title("logout with another user's refresh cookie ends the caller's login, not the other user's"), async (t) => {
    const app = await started(t, db);
    const mallory = app.client();
    await mallory.signUp();
    const victim = app.client();
    await victim.signUp();
    const victimAccess = victim.cookies.get('access_token')!;
    const socket = await connectWs(wsUrlOf(app), { bearer: victimAccess });
    t.teardown(() => socket.close());

    const mixed = app.client();
    mixed.bearer = mallory.cookies.get('access_token')!;
    mixed.cookies.set('refresh_token', victim.cookies.get('refresh_token')!);
    t.is((await mixed.post('/auth/logout')).status, 204);
    t.is((await bearer(app, mallory.cookies.get('access_token')!).get('/auth/profile')).status, 401, "the caller's login is over");
    t.is((await bearer(app, victimAccess).get('/auth/profile')).status, 200, "the other user's access token still works");
    t.is((await victim.post('/auth/refresh')).status, 200, "the other user's refresh token still rotates");
    t.is(await closedWithin(socket, 500), 'still open', "the other user's socket stays open");
  });
}

for (const db of DATABASES) suite(db);
