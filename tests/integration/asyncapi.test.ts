import test from 'ava';
import nock from 'nock';
import { failingWorkflow, imageWorkflow } from '../support/generation-harness.ts';
import { schemaProblems } from '../support/json-schema-check.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { connectWs, type WsMessage } from '../support/ws-test-client.ts';

/** The AsyncAPI document (ADR 041) describes the socket and the SSE streams, and what a real run sends matches it. */
const OLLAMA = 'http://ollama.test:11434';
type Json = Record<string, any>;

let started: Promise<TestApp> | null = null;
const app = () => (started ??= startTestApp('sqlite', { ALLOW_RAW_WORKFLOWS: 'user,admin', RAW_WORKFLOW_COST: '0', LLM_PROVIDER: 'ollama', LLM_URL: OLLAMA, LLM_MODEL: 'm' }));
test.before(() => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
});
test.after.always(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  if (started) await (await started).close();
});
const documentOf = async (): Promise<Json> => {
  const res = await fetch(`${(await app()).baseUrl}/api/v1/asyncapi.json`);
  if (res.status !== 200) throw new Error(`asyncapi.json: ${res.status}`);
  return (await res.json()) as Json;
};
/** The payload schema of a message of a channel. */
const payloadOf = (doc: Json, channel: string, name: string): Json => {
  const message = doc.channels[channel].messages[name];
  if (!message) throw new Error(`no message ${name} in ${channel}`);
  return message.payload;
};

test('GET /api/v1/asyncapi.json (public) describes the socket and the chat stream; the OpenAPI document links it', async (t) => {
  const doc = await documentOf();
  t.is(doc.asyncapi, '3.0.0');
  t.is(typeof doc.info.title, 'string');
  t.is(doc.channels.userSocket.address, '/api/v1/ws');
  t.deepEqual(Object.keys(doc.channels.userSocket.messages).sort(), [
    'auth', 'auth.ok', 'error', 'job.cancelled', 'job.completed', 'job.expired', 'job.failed', 'job.output', 'job.progress', 'job.queue', 'job.queued',
    'job.snapshot', 'job.started', 'job.status', 'publish.completed', 'publish.failed', 'sync',
  ]);
  t.regex(doc.channels.userSocket.description, /4001/);
  t.regex(doc.channels.userSocket.description, /4003/);
  t.is(doc.channels.chatStream.address, '/api/v1/llm/chat');
  t.deepEqual(Object.fromEntries(Object.entries(doc.channels.chatStream.messages as Json).map(([name, message]) => [name, message['x-sse-event']])), {
    chatText: 'message',
    chatDone: 'done',
    chatError: 'error',
  });
  const actions = Object.fromEntries(Object.entries(doc.operations as Json).map(([id, operation]) => [id, `${operation.action} ${operation.channel.$ref}`]));
  t.deepEqual(actions, {
    sendUserEvents: 'send #/channels/userSocket',
    sendReplies: 'send #/channels/userSocket',
    receiveClientMessages: 'receive #/channels/userSocket',
    sendChatStream: 'send #/channels/chatStream',
  });
  // Every $ref (operations → channel messages, payloads → components) resolves.
  const refs: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (value && typeof value === 'object') for (const [key, inner] of Object.entries(value)) key === '$ref' ? refs.push(inner as string) : walk(inner);
  };
  walk(doc);
  const resolve = (ref: string) => ref.slice(2).split('/').reduce<any>((node, part) => node?.[part], doc);
  t.deepEqual(refs.filter((ref) => resolve(ref) === undefined), []);
  t.true(refs.length > 20);

  const openapi = (await (await app()).client().get('/openapi.json')).body as Json;
  t.regex(openapi.info.description, /\/api\/v1\/asyncapi\.json/);
  t.deepEqual(openapi.paths['/asyncapi.json'].get.security, []);
});

test('every message a real run sends on the socket validates against its schema', async (t) => {
  const doc = await documentOf();
  const testApp = await app();
  const client = testApp.client();
  await client.signUp();
  const socket = await connectWs(`ws://127.0.0.1:${testApp.port}/api/v1/ws`, { cookie: client.cookies.get('access_token')! });
  t.teardown(() => socket.close());

  const done = await client.post('/generate', { workflow: imageWorkflow() });
  const failed = await client.post('/generate', { workflow: failingWorkflow() });
  t.is(done.status, 202);
  t.is(failed.status, 202);
  await socket.waitFor((m) => m.type === 'job.completed' && m.jobId === done.body.id, 30_000);
  await socket.waitFor((m) => m.type === 'job.failed' && m.jobId === failed.body.id, 30_000);
  socket.send({ type: 'sync', since: 0 });
  await socket.waitFor((m) => m.type === 'job.snapshot', 10_000);
  socket.send({ type: 'auth', token: client.cookies.get('access_token')! });
  await socket.waitFor((m) => m.type === 'auth.ok', 10_000);
  socket.send({ type: 'hello' });
  await socket.waitFor((m) => m.type === 'error', 10_000);

  const problems = socket.messages.flatMap((message: WsMessage) => schemaProblems(message, payloadOf(doc, 'userSocket', message.type), doc).map((problem) => `${message.type} ${problem}`));
  t.deepEqual(problems, []);
  const seen = [...new Set(socket.messages.map((message) => message.type))].sort();
  // What this run covers (publish events and cancellation need a platform or a slow engine; their schemas are typed by the domain union).
  t.deepEqual(seen.filter((type) => ['job.queued', 'job.started', 'job.progress', 'job.output', 'job.completed', 'job.failed', 'job.snapshot', 'auth.ok', 'error'].includes(type)).length, 9, seen.join(', '));
  // The client messages the run sent are the documented ones.
  t.deepEqual(schemaProblems({ type: 'sync', since: 0 }, payloadOf(doc, 'userSocket', 'sync'), doc), []);
  t.deepEqual(schemaProblems({ type: 'auth', token: 'x' }, payloadOf(doc, 'userSocket', 'auth'), doc), []);
});

test('the chat stream sends what the document describes', async (t) => {
  const doc = await documentOf();
  const client = (await app()).client();
  await client.signUp();
  nock(OLLAMA).post('/api/generate').reply(200, '{"response":"Hel","done":false}\n{"response":"lo","done":false}\n{"response":"","done":true}\n', { 'content-type': 'application/x-ndjson' });
  nock(OLLAMA).post('/api/generate').reply(200, '{"response":"Hal","done":false}\n{"error":"out of memory"}\n');
  const byEvent: Record<string, string> = { message: 'chatText', done: 'chatDone', error: 'chatError' };
  const events: { event: string; data: unknown }[] = [];
  for (const prompt of ['greet', 'fail']) {
    const res = await client.post('/llm/chat', { prompt }, { accept: 'text/event-stream' });
    t.is(res.status, 200);
    for (const block of (res.body as string).split('\n\n').filter(Boolean)) {
      events.push({ event: /^event: (.*)$/m.exec(block)?.[1] ?? 'message', data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) });
    }
  }
  t.deepEqual(events.map((e) => e.event), ['message', 'message', 'done', 'message', 'error']);
  const problems = events.flatMap(({ event, data }) => schemaProblems(data, payloadOf(doc, 'chatStream', byEvent[event]!), doc).map((problem) => `${event} ${problem}`));
  t.deepEqual(problems, []);
});
