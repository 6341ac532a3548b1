import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import nock from 'nock';
import { OllamaLanguageModel } from '../../adapters/llm/ollama-language-model.ts';
import { OpenAiLanguageModel } from '../../adapters/llm/openai-language-model.ts';
import type { GenerationOutcome } from '../../core/ports/language-model.port.ts';

// Guards of the chat language-model adapters (adapters/llm): the bearer key only when configured, the error body
// quoted but bounded, the streamed answer read line by line whatever the chunking, the shapes the servers really
// send (keep-alive comments, empty and null deltas, a last line without its newline), and the timeout.

const URL_ = 'http://llm.test';
const server = (overrides: Partial<{ url: string; apiKey: string | null; timeoutMs: number }> = {}) => ({ url: URL_, model: 'tiny', apiKey: null, timeoutMs: 2000, ...overrides });

test.before(() => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
});
test.afterEach.always(() => nock.cleanAll());
test.after.always(() => nock.enableNetConnect());
test.serial.afterEach((t) => t.true(nock.isDone(), `pending mocks: ${nock.pendingMocks().join(', ')}`));

/**
 * A real HTTP server on 127.0.0.1 that answers each POST with `script` (writes, with pauses between them, and
 * maybe a stall): nock hands a body over in one piece, an LLM server streams it.
 */
const streamingServer = async (t: { teardown(fn: () => Promise<void> | void): void }, script: (res: ServerResponse) => Promise<void>) => {
  const open = new Set<ServerResponse>();
  const http = createServer((req, res) => {
    req.resume();
    open.add(res);
    res.on('close', () => open.delete(res));
    void script(res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        http.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
};
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Writes each piece as its own chunk, with a pause so the client reads them apart. */
const writeApart = async (res: ServerResponse, pieces: string[]) => {
  for (const piece of pieces) {
    res.write(piece);
    await pause(20);
  }
};

/** The outcome, or 'no answer' within 5 s (a call left waiting forever must fail the test, not time it out). */
const within = async (promise: Promise<GenerationOutcome>): Promise<GenerationOutcome | 'no answer'> => {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<'no answer'>((resolve) => (timer = setTimeout(() => resolve('no answer'), 5000)))]);
  } finally {
    clearTimeout(timer);
  }
};

const collect = () => {
  const pieces: string[] = [];
  return { pieces, onText: (text: string) => void pieces.push(text) };
};

// --- llm-http.ts

test.serial('no API key configured: no Authorization header is sent (neither "Bearer null" nor an empty one)', async (t) => {
  nock(URL_, { badheaders: ['authorization'] }).post('/api/generate').reply(200, { response: 'ok', done: true });
  t.deepEqual(await new OllamaLanguageModel(server()).generate('x'), { ok: true, response: 'ok' });
  nock(URL_, { badheaders: ['authorization'] }).post('/v1/chat/completions').reply(200, { choices: [{ message: { content: 'ok' } }] });
  t.deepEqual(await new OpenAiLanguageModel(server()).generate('x'), { ok: true, response: 'ok' });
  // A key on an Ollama server (behind a proxy that checks it) is sent as a bearer token too.
  nock(URL_, { reqheaders: { authorization: 'Bearer ol-key', 'content-type': 'application/json' } }).post('/api/generate').reply(200, { response: 'ok', done: true });
  t.deepEqual(await new OllamaLanguageModel(server({ apiKey: 'ol-key' })).generate('x'), { ok: true, response: 'ok' });
});

test.serial('an error status is a failure quoting the status and at most 300 characters of the body', async (t) => {
  const body = `upstream says no ${'x'.repeat(5000)}`;
  nock(URL_).post('/v1/chat/completions').reply(401, body);
  t.deepEqual(await new OpenAiLanguageModel(server({ apiKey: 'wrong' })).generate('x'), { ok: false, reason: 'failed', cause: `HTTP 401: ${body.slice(0, 300)}` });
  // A 2xx other than 200 is an answer.
  nock(URL_).post('/api/generate').reply(203, { response: 'via a proxy', done: true });
  t.deepEqual(await new OllamaLanguageModel(server()).generate('x'), { ok: true, response: 'via a proxy' });
  // A 5xx whose body has the answer's shape is still a failure.
  nock(URL_).post('/api/generate').reply(503, { response: 'cached', done: true });
  t.like(await new OllamaLanguageModel(server()).generate('x'), { ok: false, reason: 'failed' });
});

test.serial('a stream that stalls after its first piece is a timeout: the limit covers the whole answer, not only its headers', async (t) => {
  const url = await streamingServer(t, async (res) => {
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    res.write('{"response":"Ray","done":false}\n');
    // then nothing, the connection left open
  });
  const { pieces, onText } = collect();
  const outcome = await within(new OllamaLanguageModel(server({ url, timeoutMs: 1500 })).generate('x', { onText }));
  t.deepEqual(outcome, { ok: false, reason: 'timeout', cause: 'no complete answer within 1500 ms' });
  t.deepEqual(pieces, ['Ray'], 'the headers and the first piece had come');
});

test.serial('a stream is answered at its end marker, without waiting for the connection to close', async (t) => {
  const url = await streamingServer(t, async (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: 'Hi' } }] })}\n\ndata: [DONE]\n\n`);
    // the server keeps the connection open (keep-alive)
  });
  t.deepEqual(await within(new OpenAiLanguageModel(server({ url, timeoutMs: 1000 })).generate('x', collect())), { ok: true, response: 'Hi' });
});

// --- ollama-language-model.ts

test.serial('ollama: lines split across chunks, several lines in one chunk, blank lines and a last line without its newline are all read', async (t) => {
  const url = await streamingServer(t, async (res) => {
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    await writeApart(res, ['{"respo', 'nse":"Ray","done":false}\n{"response":"le",', '"done":false}\n\n\r\n{"response":"igh","done":false}\r\n', '{"done":true,"total_duration":1}']);
    res.end();
  });
  const { pieces, onText } = collect();
  t.deepEqual(await new OllamaLanguageModel(server({ url })).generate('sky?', { onText }), { ok: true, response: 'Rayleigh' });
  t.deepEqual(pieces, ['Ray', 'le', 'igh']);
});

test.serial('ollama: a final piece with no "response" ends the answer; a piece whose "response" is not text is a failure', async (t) => {
  nock(URL_).post('/api/generate').reply(200, '{"response":"Hi","done":false}\n{"done":true,"done_reason":"stop"}\n');
  t.deepEqual(await new OllamaLanguageModel(server()).generate('x', collect()), { ok: true, response: 'Hi' });
  nock(URL_).post('/api/generate').reply(200, '{"response":"Hi","done":false}\n{"response":42,"done":true}\n');
  t.deepEqual(await new OllamaLanguageModel(server()).generate('x', collect()), { ok: false, reason: 'failed', cause: 'the answer has no "response"' });
  nock(URL_).post('/api/generate').reply(200, { response: 42, done: true });
  t.deepEqual(await new OllamaLanguageModel(server()).generate('x'), { ok: false, reason: 'failed', cause: 'the answer has no "response"' });
});

test.serial('ollama: a line that is not JSON is a failure', async (t) => {
  nock(URL_).post('/api/generate').reply(200, '{"response":"Hi","done":false}\n<html>502 Bad Gateway</html>\n');
  const outcome = await new OllamaLanguageModel(server()).generate('x', collect());
  t.like(outcome, { ok: false, reason: 'failed' });
});

// --- openai-language-model.ts

test.serial('openai: keep-alive comments, event lines, CRLF endings, a role-only and an empty delta, a final null content, [DONE] without its newline', async (t) => {
  const event = (delta: object, extra: object = {}) => `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta, ...extra }] })}\r\n\r\n`;
  const url = await streamingServer(t, async (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    await writeApart(res, [
      ': keep-alive\r\n\r\n',
      event({ role: 'assistant', content: '' }),
      'event: message\r\n' + event({ content: 'Hel' }).slice(0, 30),
      event({ content: 'Hel' }).slice(30) + event({ content: 'lo' }),
      event({ content: null }, { finish_reason: 'stop' }),
      'data: [DONE]',
    ]);
    res.end();
  });
  const { pieces, onText } = collect();
  t.deepEqual(await new OpenAiLanguageModel(server({ url })).generate('x', { onText }), { ok: true, response: 'Hello' });
  t.deepEqual(pieces, ['Hel', 'lo']);
});

test.serial('openai: an answer without text (null content, no choices) is a failure, not an empty answer', async (t) => {
  nock(URL_).post('/v1/chat/completions').reply(200, { choices: [{ message: { role: 'assistant', content: null, refusal: 'no' }, finish_reason: 'stop' }] });
  t.deepEqual(await new OpenAiLanguageModel(server()).generate('x'), { ok: false, reason: 'failed', cause: 'the answer has no choices[0].message.content' });
  nock(URL_).post('/v1/chat/completions').reply(200, { choices: [] });
  t.deepEqual(await new OpenAiLanguageModel(server()).generate('x'), { ok: false, reason: 'failed', cause: 'the answer has no choices[0].message.content' });
  nock(URL_).post('/v1/chat/completions').reply(200, { error: { message: 'context length exceeded' } });
  t.like(await new OpenAiLanguageModel(server()).generate('x'), { ok: false, reason: 'failed' });
});

test.serial('openai: LLM_URL with a /v1 in its middle is not taken for the API root', async (t) => {
  nock(URL_).post('/v1/proxy/v1/chat/completions').reply(200, { choices: [{ message: { content: 'ok' } }] });
  const outcome: GenerationOutcome = await new OpenAiLanguageModel(server({ url: `${URL_}/v1/proxy` })).generate('x');
  t.deepEqual(outcome, { ok: true, response: 'ok' });
});
