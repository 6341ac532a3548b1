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
  const app = () => (started ??= startTestApp(db));
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
}

for (const db of DATABASES) suite(db);
