/**
 * Guards of sessions and sockets that other suites do not pin down: each test here was checked to go red
 * with its guard deleted (tests/mutation/mutations/auth.mutations.ts lists the deletions).
 */
import { setTimeout as delay } from 'node:timers/promises';
import test, { type ExecutionContext } from 'ava';
import { QueryTypes } from 'sequelize';
import { WebSocket } from 'ws';
import type { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';
import type { UserEvent } from '../../core/ports/user-events.port.ts';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { TestClient, type TestResponse } from '../support/test-client.ts';
import { connectWs, type WsTestClient } from '../support/ws-test-client.ts';

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
    const first = app.client();
    const me = await first.signUp();
    const second = app.client();
    t.is((await second.post('/auth/login', { email: me.email, password: me.password })).status, 200);
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
}

for (const db of DATABASES) suite(db);
