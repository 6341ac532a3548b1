import test from 'ava';
import nock from 'nock';
import { DATABASES } from '../support/databases.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

// The chat keeps nothing in the database: one database is enough.
const DB = DATABASES[0]!;
const OLLAMA = 'http://ollama.test:11434';
const OPENAI = 'http://openai.test';

const apps: Record<'ollama' | 'openai' | 'none', TestApp | null> = { ollama: null, openai: null, none: null };

test.before(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  apps.ollama = await startTestApp(DB, { LLM_PROVIDER: 'ollama', LLM_URL: OLLAMA, LLM_MODEL: 'llama3.2', LLM_TIMEOUT_MS: '2000', LLM_RATE_LIMIT_PER_MINUTE: '3' });
  apps.openai = await startTestApp(DB, { LLM_PROVIDER: 'openai', LLM_URL: OPENAI, LLM_MODEL: 'gpt-4o-mini', LLM_API_KEY: 'sk-test', LLM_DAILY_PROMPTS: '2' });
  apps.none = await startTestApp(DB);
});
test.after.always(async () => {
  for (const app of Object.values(apps)) await app?.close();
  nock.cleanAll();
  nock.enableNetConnect();
});

const signedIn = async (which: keyof typeof apps) => {
  const client = apps[which]!.client();
  await client.signUp();
  return client;
};
const ollama = () => nock(OLLAMA).post('/api/generate');
const openai = () => nock(OPENAI, { reqheaders: { authorization: 'Bearer sk-test' } }).post('/v1/chat/completions');
const slowly = (ms: number, body: object) => async (): Promise<[number, object]> => {
  await new Promise((resolve) => setTimeout(resolve, ms));
  return [200, body];
};
/** nock 15 hands a reply function the intercepted fetch Request. */
const bodyOf = <T>(request: unknown): Promise<T> => (request as Request).json() as Promise<T>;
const sse = (text: string) =>
  text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      return { event, data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as unknown };
    });

test.serial('ollama: the prompt goes to /api/generate and the answer comes back as {response}', async (t) => {
  const client = await signedIn('ollama');
  const scope = ollama().reply(async (request: unknown) => [200, { model: 'llama3.2', response: `You said: ${(await bodyOf<{ prompt: string }>(request)).prompt}`, done: true }]);
  const res = await client.post('/llm/chat', { prompt: 'hello' });
  t.is(res.status, 200);
  t.deepEqual(res.body, { response: 'You said: hello' });
  t.true(scope.isDone());
});

test.serial('openai: the prompt goes to /v1/chat/completions with the key, and the answer comes back', async (t) => {
  const client = await signedIn('openai');
  openai()
    .reply(async (request: unknown) => {
      const { model, messages } = await bodyOf<{ model: string; messages: { role: string; content: string }[] }>(request);
      return [200, { choices: [{ index: 0, message: { role: 'assistant', content: `${model}: ${messages[0]!.role} ${messages[0]!.content}` } }] }];
    });
  const res = await client.post('/llm/chat', { prompt: 'hi' });
  t.is(res.status, 200);
  t.deepEqual(res.body, { response: 'gpt-4o-mini: user hi' });
});

test.serial('prompts must be 1 to 8,000 characters; the route needs a session', async (t) => {
  const client = await signedIn('openai');
  for (const prompt of ['', '   ', 'x'.repeat(8001), 42, undefined]) {
    const res = await client.post('/llm/chat', prompt === undefined ? {} : { prompt });
    t.is(res.status, 400);
    t.deepEqual(res.body.details, [{ field: 'prompt', message: 'must be 1 to 8000 characters' }]);
  }
  openai().reply(200, { choices: [{ message: { content: 'long one read' } }] });
  t.is((await client.post('/llm/chat', { prompt: 'x'.repeat(8000) })).status, 200);
  t.is((await apps.openai!.client().post('/llm/chat', { prompt: 'hi' })).status, 401);
});

test.serial('an upstream error is 502, a slow upstream 504, no configured model 503 (the §0 error body each time)', async (t) => {
  const client = await signedIn('ollama');
  ollama().reply(500, { error: 'model crashed' });
  const failed = await client.post('/llm/chat', { prompt: 'x' });
  t.is(failed.status, 502);
  t.deepEqual(failed.body, { statusCode: 502, error: 'Bad Gateway', message: 'The language model failed to answer' });

  ollama().reply(slowly(4000, { response: 'late', done: true }));
  const started = Date.now();
  const slow = await client.post('/llm/chat', { prompt: 'x' });
  t.is(slow.status, 504);
  t.like(slow.body, { statusCode: 504, error: 'Gateway Timeout' });
  t.true(Date.now() - started < 3500, 'answered at the timeout, not when the upstream did');

  const none = await signedIn('none');
  const unconfigured = await none.post('/llm/chat', { prompt: 'x' });
  t.is(unconfigured.status, 503);
  t.like(unconfigured.body, { statusCode: 503, error: 'Service Unavailable' });
});

test.serial('a user over the per-minute rate gets 429 with Retry-After; another user is not held back', async (t) => {
  const client = await signedIn('ollama');
  ollama().times(4).reply(200, { response: 'ok', done: true });
  for (let i = 0; i < 3; i += 1) t.is((await client.post('/llm/chat', { prompt: `n${i}` })).status, 200);
  const limited = await client.post('/llm/chat', { prompt: 'one more' });
  t.is(limited.status, 429);
  t.is(limited.body.statusCode, 429);
  const retryAfter = Number(limited.headers.get('retry-after'));
  t.true(retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
  t.is((await (await signedIn('ollama')).post('/llm/chat', { prompt: 'me too' })).status, 200);
  nock.cleanAll();
});

test.serial('the daily budget counts answered prompts only; beyond it 429 until midnight UTC', async (t) => {
  const client = await signedIn('openai');
  openai().reply(502, 'bad gateway');
  t.is((await client.post('/llm/chat', { prompt: 'fails' })).status, 502);
  openai().times(2).reply(200, { choices: [{ message: { content: 'ok' } }] });
  t.is((await client.post('/llm/chat', { prompt: 'one' })).status, 200);
  t.is((await client.post('/llm/chat', { prompt: 'two' })).status, 200);
  const over = await client.post('/llm/chat', { prompt: 'three' });
  t.is(over.status, 429);
  const now = new Date();
  const toMidnight = (Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000;
  t.true(Math.abs(Number(over.headers.get('retry-after')) - toMidnight) < 30);
  // The budget is each user's own: another user's first prompt of the day is answered.
  openai().reply(200, { choices: [{ message: { content: 'mine' } }] });
  const other = await (await signedIn('openai')).post('/llm/chat', { prompt: 'first of mine' });
  t.is(other.status, 200);
  t.deepEqual(other.body, { response: 'mine' });
});

test.serial('prompts sent together cannot overrun the daily budget; the refused one and the failed one give their places back', async (t) => {
  const client = await signedIn('openai');
  // Each answer takes a while, so all three are past their checks before any is answered: two take the budget's two
  // places, the third is refused. One of the two then fails upstream.
  openai().reply(slowly(300, { choices: [{ message: { content: 'ok' } }] }));
  openai().reply(async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return [502, 'bad gateway'];
  });
  const statuses = (await Promise.all(['a', 'b', 'c'].map((prompt) => client.post('/llm/chat', { prompt })))).map((res) => res.status).sort();
  t.deepEqual(statuses, [200, 429, 502]);
  // One prompt answered so far: one place is left, then none.
  openai().reply(200, { choices: [{ message: { content: 'ok' } }] });
  t.is((await client.post('/llm/chat', { prompt: 'later' })).status, 200);
  t.is((await client.post('/llm/chat', { prompt: 'one too many' })).status, 429);
  nock.cleanAll();
});

test.serial('Accept: text/event-stream streams the pieces as server-sent events, then the whole answer (both adapters)', async (t) => {
  const client = await signedIn('ollama');
  ollama().reply(200, ['{"response":"Hel","done":false}', '{"response":"lo","done":false}', '{"response":"","done":true}'].join('\n'), { 'content-type': 'application/x-ndjson' });
  const res = await client.post('/llm/chat', { prompt: 'greet' }, { accept: 'text/event-stream' });
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  t.deepEqual(sse(res.body as string), [
    { event: 'message', data: { text: 'Hel' } },
    { event: 'message', data: { text: 'lo' } },
    { event: 'done', data: { response: 'Hello' } },
  ]);

  const other = await signedIn('openai');
  const chunk = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;
  openai().reply(200, chunk('Hi') + chunk('!') + 'data: [DONE]\n\n', { 'content-type': 'text/event-stream' });
  const streamed = await other.post('/llm/chat', { prompt: 'greet' }, { accept: 'text/event-stream' });
  t.deepEqual(sse(streamed.body as string).at(-1), { event: 'done', data: { response: 'Hi!' } });

  // A failure before the first piece is still a plain error response; one after it, an error event.
  ollama().reply(503, { error: 'loading' });
  const failed = await client.post('/llm/chat', { prompt: 'x' }, { accept: 'text/event-stream' });
  t.is(failed.status, 502);
  t.is(failed.body.statusCode, 502);
  ollama().reply(200, '{"response":"Hal","done":false}\n{"error":"out of memory"}\n');
  const broken = await client.post('/llm/chat', { prompt: 'y' }, { accept: 'text/event-stream' });
  t.is(broken.status, 200);
  t.deepEqual(sse(broken.body as string), [
    { event: 'message', data: { text: 'Hal' } },
    { event: 'error', data: { statusCode: 502, error: 'Bad Gateway', message: 'The language model failed to answer' } },
  ]);
});
