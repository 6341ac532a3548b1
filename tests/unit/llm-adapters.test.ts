import test from 'ava';
import nock from 'nock';
import { OllamaLanguageModel } from '../../adapters/llm/ollama-language-model.ts';
import { OpenAiLanguageModel } from '../../adapters/llm/openai-language-model.ts';
import { freePort } from '../support/test-app.ts';

const URL_ = 'http://llm.test';
const server = (overrides: Partial<{ url: string; apiKey: string | null; timeoutMs: number }> = {}) => ({ url: URL_, model: 'tiny', apiKey: null, timeoutMs: 2000, ...overrides });

/** An answer that comes after `ms` (nock 15's .delay() crashes undici when the caller aborts meanwhile). */
const slowly = (ms: number, body: object) => async (): Promise<[number, object]> => {
  await new Promise((resolve) => setTimeout(resolve, ms));
  return [200, body];
};

test.before(() => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
});
test.afterEach.always(() => nock.cleanAll());
test.after.always(() => nock.enableNetConnect());
test.serial.afterEach((t) => t.true(nock.isDone(), `pending mocks: ${nock.pendingMocks().join(', ')}`));

test.serial('ollama: POST /api/generate with the model and prompt, stream false; the answer is "response"', async (t) => {
  nock(URL_).post('/api/generate', { model: 'tiny', prompt: 'Why is the sky blue?', stream: false }).reply(200, { model: 'tiny', response: 'Rayleigh scattering.', done: true });
  t.deepEqual(await new OllamaLanguageModel(server()).generate('Why is the sky blue?'), { ok: true, response: 'Rayleigh scattering.' });
});

test.serial('ollama: streaming reads NDJSON pieces until done', async (t) => {
  const body = ['{"response":"Ray","done":false}', '{"response":"leigh","done":false}', '{"response":"","done":true,"total_duration":1}'].join('\n') + '\n';
  nock(URL_).post('/api/generate', (b: { stream: boolean }) => b.stream === true).reply(200, body, { 'content-type': 'application/x-ndjson' });
  const pieces: string[] = [];
  t.deepEqual(await new OllamaLanguageModel(server()).generate('sky?', { onText: (text) => pieces.push(text) }), { ok: true, response: 'Rayleigh' });
  t.deepEqual(pieces, ['Ray', 'leigh']);
});

test.serial('ollama: an error status, an error in the stream, a stream cut short and a refused connection are failures', async (t) => {
  nock(URL_).post('/api/generate').reply(404, { error: "model 'tiny' not found" });
  const notFound = await new OllamaLanguageModel(server()).generate('x');
  t.like(notFound, { ok: false, reason: 'failed' });
  t.regex(notFound.ok ? '' : notFound.cause, /404.*not found/);
  nock(URL_).post('/api/generate').reply(200, '{"response":"a","done":false}\n{"error":"out of memory"}\n');
  t.deepEqual(await new OllamaLanguageModel(server()).generate('x', { onText: () => undefined }), { ok: false, reason: 'failed', cause: 'Ollama: out of memory' });
  nock(URL_).post('/api/generate').reply(200, '{"response":"a","done":false}\n');
  const cut = await new OllamaLanguageModel(server()).generate('x', { onText: () => undefined });
  t.deepEqual(cut, { ok: false, reason: 'failed', cause: 'the stream ended before "done"' });
  // Nobody listens there (nock 15's replyWithError leaves fetch hanging, so a real closed port instead).
  t.like(await new OllamaLanguageModel(server({ url: `http://127.0.0.1:${await freePort()}` })).generate('x'), { ok: false, reason: 'failed' });
  nock(URL_).post('/api/generate').reply(200, { done: true });
  t.like(await new OllamaLanguageModel(server()).generate('x'), { ok: false, reason: 'failed' });
});

test.serial('ollama: an answer slower than the timeout is a timeout', async (t) => {
  nock(URL_).post('/api/generate').reply(slowly(1500, { response: 'late', done: true }));
  const started = Date.now();
  t.like(await new OllamaLanguageModel(server({ timeoutMs: 200 })).generate('x'), { ok: false, reason: 'timeout' });
  t.true(Date.now() - started < 1200, 'gave up at the timeout, not when the answer came');
});

test.serial('openai: POST /v1/chat/completions with the bearer key and one user message; the answer is choices[0].message.content', async (t) => {
  nock(URL_, { reqheaders: { authorization: 'Bearer sk-test' } })
    .post('/v1/chat/completions', { model: 'tiny', messages: [{ role: 'user', content: 'Hello' }], stream: false })
    .reply(200, { id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'Hi there.' }, finish_reason: 'stop' }] });
  t.deepEqual(await new OpenAiLanguageModel(server({ apiKey: 'sk-test' })).generate('Hello'), { ok: true, response: 'Hi there.' });
  // LLM_URL given with its /v1 reaches the same endpoint.
  nock(URL_).post('/v1/chat/completions').reply(200, { choices: [{ message: { content: 'Again.' } }] });
  t.deepEqual(await new OpenAiLanguageModel(server({ url: `${URL_}/v1` })).generate('Hello'), { ok: true, response: 'Again.' });
});

test.serial('openai: streaming reads server-sent deltas until [DONE]', async (t) => {
  const chunk = (content: string | null) => `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: content === null ? {} : { content } }] })}\n\n`;
  nock(URL_).post('/v1/chat/completions', (b: { stream: boolean }) => b.stream === true).reply(200, chunk('Hi') + chunk(' there') + chunk(null) + 'data: [DONE]\n\n', { 'content-type': 'text/event-stream' });
  const pieces: string[] = [];
  t.deepEqual(await new OpenAiLanguageModel(server()).generate('Hello', { onText: (text) => pieces.push(text) }), { ok: true, response: 'Hi there' });
  t.deepEqual(pieces, ['Hi', ' there']);
});

test.serial('openai: an error event in the stream is a failure with its message, also when [DONE] follows', async (t) => {
  const delta = `data: ${JSON.stringify({ choices: [{ delta: { content: 'Hi' } }] })}\n\n`;
  nock(URL_).post('/v1/chat/completions').reply(200, delta + `data: ${JSON.stringify({ error: { message: 'context length exceeded', type: 'invalid_request_error' } })}\n\ndata: [DONE]\n\n`, { 'content-type': 'text/event-stream' });
  const pieces: string[] = [];
  t.deepEqual(await new OpenAiLanguageModel(server()).generate('x', { onText: (text) => pieces.push(text) }), { ok: false, reason: 'failed', cause: 'OpenAI-compatible server: context length exceeded' });
  t.deepEqual(pieces, ['Hi']);
  nock(URL_).post('/v1/chat/completions').reply(200, `data: ${JSON.stringify({ error: 'overloaded' })}\n\ndata: [DONE]\n\n`, { 'content-type': 'text/event-stream' });
  t.deepEqual(await new OpenAiLanguageModel(server()).generate('x', { onText: () => undefined }), { ok: false, reason: 'failed', cause: 'OpenAI-compatible server: "overloaded"' });
});

test.serial('openai: a stream that ends without [DONE] is a failure, not a short answer', async (t) => {
  nock(URL_).post('/v1/chat/completions').reply(200, `data: ${JSON.stringify({ choices: [{ delta: { content: 'Hi' } }] })}\n\n`, { 'content-type': 'text/event-stream' });
  t.deepEqual(await new OpenAiLanguageModel(server()).generate('x', { onText: () => undefined }), { ok: false, reason: 'failed', cause: 'the stream ended before [DONE]' });
});

test.serial('openai: an error status and a slow answer are a failure and a timeout', async (t) => {
  nock(URL_).post('/v1/chat/completions').reply(500, { error: { message: 'overloaded' } });
  t.like(await new OpenAiLanguageModel(server()).generate('x'), { ok: false, reason: 'failed' });
  nock(URL_).post('/v1/chat/completions').reply(slowly(1500, { choices: [{ message: { content: 'late' } }] }));
  t.like(await new OpenAiLanguageModel(server({ timeoutMs: 200 })).generate('x'), { ok: false, reason: 'timeout' });
});
