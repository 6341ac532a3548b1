import { randomInt, randomUUID } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import type { TestResponse } from '../support/test-client.ts';

/** The §0 error body, with nothing from the server's inside. */
function assertError(t: ExecutionContext, res: TestResponse, status: number): void {
  t.is(res.status, status, JSON.stringify(res.body));
  t.is(res.body.statusCode, status);
  t.is(typeof res.body.error, 'string');
  t.is(typeof res.body.message, 'string');
  t.notRegex(JSON.stringify(res.body), /\bat .+:\d+:\d+|\.ts\b|\/work\/|node_modules|stack|RangeError/i);
}

const deepArray = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const deepObject = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

function suite(db: TestDatabase): void {
  const title = (name: string) => `[${db}] ${name}`;
  let started: Promise<TestApp> | null = null;
  // The shipped defaults for the per-address limits (test-app.ts lifts them for the other suites).
  const app = () => (started ??= startTestApp(db, { REGISTER_MAX_PER_ADDRESS: '5', LOGIN_MAX_FAILURES_PER_ADDRESS: '20', LOGIN_MAX_FAILURES: '10' }));
  /** A client address of its own per call; the app trusts X-Forwarded-For from loopback. */
  const address = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
  const from = (ip: string) => ({ 'x-forwarded-for': ip });
  const PASSWORD = 'correct horse battery';
  async function register(ip = address()): Promise<string> {
    const email = `abuse-${randomUUID()}@example.com`;
    const res = await (await app()).client().post('/auth/register', { email, password: PASSWORD, displayName: 'Abuse' }, from(ip));
    if (res.status !== 201) throw new Error(`register: ${res.status} ${JSON.stringify(res.body)}`);
    return email;
  }
  const retryAfter = (res: TestResponse) => Number(res.headers.get('retry-after'));
  test.after.always(async () => {
    if (started) await (await started).close();
  });

  test(title('a body nested 100,000 levels is 400 on every route, with and without an Idempotency-Key'), async (t) => {
    const client = (await app()).client();
    await client.signUp();
    for (const body of [deepArray(100_000), deepObject(100_000), deepArray(65)]) {
      for (const [path, headers] of [
        ['/coin/deduct', { 'idempotency-key': `deep-${Math.random()}` }],
        ['/coin/deduct', {}],
        ['/generate', { 'idempotency-key': `deep-${Math.random()}` }],
        ['/auth/login', {}],
        ['/auth/register', {}],
      ] as const) {
        const res = await client.post(path, body, headers);
        assertError(t, res, 400);
        t.regex(res.body.message, /nested deeper than 64 levels/, path);
      }
    }
    // The limit itself is accepted as far as nesting goes (the route then judges the content).
    const atLimit = await client.post('/coin/deduct', deepArray(64), { 'idempotency-key': 'at-limit' });
    t.is(atLimit.status, 400);
    t.notRegex(atLimit.body.message, /nested deeper/);
    t.is((await client.get('/auth/profile')).status, 200, 'the service still answers');
  });

  test(title('40 parallel wrong passwords for one account from one address: only 10 are checked'), async (t) => {
    const email = await register();
    const attacker = address();
    const client = (await app()).client();
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => client.post('/auth/login', { email, password: `wrong-guess-${i}` }, from(attacker))));
    const checked = answers.filter((res) => res.status === 401).length;
    const limited = answers.filter((res) => res.status === 429);
    t.log(`40 parallel wrong passwords: ${checked} checked (401), ${limited.length} refused (429)`);
    t.is(checked, 10);
    t.is(limited.length, 30);
    for (const res of limited) {
      assertError(t, res, 429);
      t.true(retryAfter(res) > 0 && retryAfter(res) <= 15 * 60, `Retry-After ${retryAfter(res)}`);
    }
    // The attacker's own address stays locked even with the right password ...
    assertError(t, await client.post('/auth/login', { email, password: PASSWORD }, from(attacker)), 429);
    // ... and the owner, from any other address, logs in: the attacker cannot lock the owner out.
    const owner = await (await app()).client().post('/auth/login', { email, password: PASSWORD }, from(address()));
    t.is(owner.status, 200, JSON.stringify(owner.body));
  });

  test(title('one password sprayed over 30 accounts from one address is limited after 20'), async (t) => {
    const emails: string[] = [];
    for (let i = 0; i < 30; i++) emails.push(await register());
    const sprayer = address();
    const client = (await app()).client();
    const statuses: number[] = [];
    for (const email of emails) statuses.push((await client.post('/auth/login', { email, password: 'Summer-2024-sprayed' }, from(sprayer))).status);
    t.deepEqual(statuses, [...Array(20).fill(401), ...Array(10).fill(429)]);
    const refused = await client.post('/auth/login', { email: emails[0], password: PASSWORD }, from(sprayer));
    assertError(t, refused, 429);
    t.true(retryAfter(refused) > 0);
    // The accounts themselves are not locked: their owners log in from elsewhere.
    t.is((await (await app()).client().post('/auth/login', { email: emails[29], password: PASSWORD }, from(address()))).status, 200);
  });

  test(title('guesses spread over many addresses stop at 100 per account'), async (t) => {
    const email = await register();
    const client = (await app()).client();
    const statuses: number[] = [];
    for (let wave = 0; wave < 11; wave++) {
      const ip = address();
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => client.post('/auth/login', { email, password: `spread-${wave}-${i}` }, from(ip))));
      statuses.push(...answers.map((res) => res.status));
    }
    t.is(statuses.filter((status) => status === 401).length, 100);
    t.is(statuses.filter((status) => status === 429).length, 10);
  });

  test(title('successful logins do not count against the address'), async (t) => {
    const office = address();
    const email = await register();
    const client = (await app()).client();
    for (let i = 0; i < 25; i++) t.is((await client.post('/auth/login', { email, password: PASSWORD }, from(office))).status, 200);
    t.is((await client.post('/auth/login', { email, password: 'one wrong guess' }, from(office))).status, 401);
  });

  test(title('20 sign-ups in a row from one address: 5 accounts, 500 coins, then 429 with Retry-After'), async (t) => {
    const ip = address();
    const client = (await app()).client();
    const answers = [];
    for (let i = 0; i < 20; i++) {
      answers.push(await client.post('/auth/register', { email: `farm-${randomUUID()}@example.com`, password: PASSWORD, displayName: 'Farm' }, from(ip)));
    }
    const created = answers.filter((res) => res.status === 201);
    t.is(created.length, 5);
    t.is(created.reduce((sum, res) => sum + res.body.coinBalance, 0), 500);
    for (const res of answers.slice(5)) {
      assertError(t, res, 429);
      t.true(retryAfter(res) > 0 && retryAfter(res) <= 3600, `Retry-After ${retryAfter(res)}`);
    }
    // A sign-up for a taken email or with a bad password costs no slot; another address signs up.
    t.is((await client.post('/auth/register', { email: 'x', password: PASSWORD, displayName: 'Bad' }, from(ip))).status, 400);
    t.is((await client.post('/auth/register', { email: `other-${randomUUID()}@example.com`, password: PASSWORD, displayName: 'Other' }, from(address()))).status, 201);
  });

  test(title('a taken email gives its sign-up slot back'), async (t) => {
    const ip = address();
    const email = await register(ip);
    const client = (await app()).client();
    for (let i = 0; i < 6; i++) t.is((await client.post('/auth/register', { email, password: PASSWORD, displayName: 'Again' }, from(ip))).status, 409);
    for (let i = 0; i < 4; i++) t.is((await client.post('/auth/register', { email: `more-${randomUUID()}@example.com`, password: PASSWORD, displayName: 'More' }, from(ip))).status, 201);
    t.is((await client.post('/auth/register', { email: `one-too-many-${randomUUID()}@example.com`, password: PASSWORD, displayName: 'More' }, from(ip))).status, 429);
  });

  test(title('common, whitespace-only and repetitive passwords are 400 naming the password field'), async (t) => {
    const client = (await app()).client();
    for (const password of ['password', '12345678', '        ', 'Password1!', 'p@ssw0rd', 'aaaaaaaaaa', 'abcabcabc', 'qwertyuiop']) {
      const res = await client.post('/auth/register', { email: `weak-${randomUUID()}@example.com`, password, displayName: 'Weak' }, from(address()));
      assertError(t, res, 400);
      t.is(res.body.message, 'Validation failed');
      t.deepEqual(res.body.details.map((d: { field: string }) => d.field), ['password'], password);
      t.regex(res.body.details[0].message, /common|whitespace|repetitive/);
    }
  });
}

for (const db of DATABASES) suite(db);
