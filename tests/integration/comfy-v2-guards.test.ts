/**
 * The guards of the Comfy API v2 routes (ADR 040, 042) one by one, over plain HTTP with API keys, on an API-only app
 * (no worker: a job stays queued): scopes and ownership of every route, the queue cap's 429 with Retry-After, the
 * Idempotency-Key bound, the event stream's Last-Event-ID rules, headers and ends, upload refusals (too large, no file,
 * a declared type the bytes contradict), the asset in use, and the content redirect's Cache-Control. A refused
 * request changes nothing.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import test, { type ExecutionContext } from 'ava';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { blake3Of, makeImage } from '../support/images.ts';
import { reposOf, schedulingApp } from '../support/scheduling-app.ts';
import { TestClient } from '../support/test-client.ts';
import type { TestApp } from '../support/test-app.ts';

const workflow = (color = 0x102030) => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 16, height: 8, batch_size: 1, color } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'guard' } },
});

const loadAsset = (id: string) => ({
  '1': { class_type: 'LoadImage', inputs: { image: { __type: 'core/ASSET', info: { id } } } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'guard' } },
});

/** A client of /api/v2 on an API key of `session`'s user with `scopes`. */
async function v2Client(a: TestApp, session: TestClient, scopes: string[]): Promise<TestClient> {
  const minted = await session.post('/api/v1/api-keys', { name: `key ${scopes.join(',')}`, scopes });
  if (minted.status !== 201) throw new Error(`key: ${minted.status} ${JSON.stringify(minted.body)}`);
  const client = new TestClient(a.baseUrl, '/api/v2');
  client.bearer = minted.body.key as string;
  return client;
}

async function stranger(a: TestApp): Promise<TestClient> {
  const session = a.client();
  await session.signUp();
  return v2Client(a, session, ['generate']);
}

type Frame = Record<string, string>;
const parseFrames = (text: string): Frame[] =>
  text
    .split('\n\n')
    .filter((f) => f.trim() !== '' && !f.startsWith(':'))
    .map((f) => Object.fromEntries(f.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)])));

/** The whole event stream of a job that ends by itself (a stream left open fails the test after 10 s instead of hanging). */
async function wholeStream(t: ExecutionContext, v2: TestClient, jobId: string, lastEventId?: string) {
  const res = await fetch(`${v2.baseUrl}/api/v2/jobs/${jobId}/events`, {
    headers: { authorization: `Bearer ${v2.bearer}`, ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) },
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text().catch((error: unknown) => {
    t.fail(`the stream did not end by itself: ${String(error)}`);
    return '';
  });
  return { status: res.status, headers: res.headers, frames: parseFrames(text), text };
}

/** The first frame of a stream that stays open (a queued job), then the stream is closed. */
async function firstFrame(v2: TestClient, jobId: string, lastEventId?: string) {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), 10_000);
  try {
    const res = await fetch(`${v2.baseUrl}/api/v2/jobs/${jobId}/events`, {
      headers: { authorization: `Bearer ${v2.bearer}`, ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) },
      signal: stop.signal,
    });
    if (res.status !== 200) return { status: res.status, headers: res.headers, frames: [] as Frame[], body: await res.json() };
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString('utf8');
    }
    return { status: res.status, headers: res.headers, frames: parseFrames(text.slice(0, text.indexOf('\n\n') + 2)), body: null };
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
}

const jobCount = async (session: TestClient) => (await session.get('/generate')).body.total as number;

function suite(db: TestDatabase): void {
  const title = (name: string) => `[${db}] ${name}`;

  test(title('v2 jobs: scopes, ownership and unknown ids refuse every job route and change nothing; the queue cap is 429 queue_full with Retry-After; an over-long Idempotency-Key is 400'), async (t) => {
    const { app: a, user: session } = await schedulingApp(t, db, { MAX_ACTIVE_JOBS_PER_USER: '2' });
    const owner = await v2Client(a, session, ['generate']);
    const reader = await v2Client(a, session, ['history']);
    const other = await stranger(a);

    const key = randomUUID();
    const first = await owner.post('/jobs', { workflow: workflow(1), extra_data: { api_key_comfy_org: 'partner-1' } }, { 'idempotency-key': key });
    t.is(first.status, 201, JSON.stringify(first.body));
    t.is(first.body.status, 'queued');
    const id = first.body.id as string;
    // v2: extra_data is excluded from the idempotency comparison; the workflow is not.
    for (const extra of [{ extra_data: { api_key_comfy_org: 'partner-2' } }, {}]) {
      const again = await owner.post('/jobs', { workflow: workflow(1), ...extra }, { 'idempotency-key': key });
      t.is(again.status, 201, JSON.stringify(again.body));
      t.is(again.body.id, id, 'the first answer, replayed');
    }
    const reused = await owner.post('/jobs', { workflow: workflow(9), extra_data: { api_key_comfy_org: 'partner-1' } }, { 'idempotency-key': key });
    t.is(reused.status, 422);
    t.like(reused.body, { error: { code: 'idempotency_key_reuse' } });
    t.is(await jobCount(session), 1, 'one job for the key');

    // A UI-export graph: 422 workflow_format_ui, nothing created.
    const ui = await owner.post('/jobs', { workflow: { last_node_id: 2, last_link_id: 1, nodes: [{ id: 1, type: 'EmptyImage' }], links: [[1, 1, 0, 2, 0, 'IMAGE']], version: 0.4 } });
    t.is(ui.status, 422, JSON.stringify(ui.body));
    t.like(ui.body, { error: { code: 'workflow_format_ui' } });
    t.is(await jobCount(session), 1, 'no job for a UI-export graph');

    // An Idempotency-Key over 128 characters: refused before anything runs.
    const longKey = await owner.post('/jobs', { workflow: workflow(2) }, { 'idempotency-key': 'k'.repeat(129) });
    t.is(longKey.status, 400, JSON.stringify(longKey.body));
    t.like(longKey.body, { error: { code: 'invalid_request' } });
    t.is(await jobCount(session), 1, 'no job for the refused key');

    // Scopes: a key without `generate` reaches none of the job routes.
    for (const [what, call] of [
      ['workflow', reader.get(`/jobs/${id}/workflow`)],
      ['events', reader.get(`/jobs/${id}/events`)],
      ['cancel', reader.post(`/jobs/${id}/cancel`)],
    ] as const) {
      const res = await call;
      t.is(res.status, 403, what);
      t.like(res.body, { error: { code: 'forbidden' } }, what);
    }

    // Ownership and unknown ids: 404 not_found, never a 500.
    for (const [who, client, jobId] of [
      ['stranger', other, id],
      ['unknown id', owner, randomUUID()],
      ['not a uuid', owner, 'not-a-job'],
    ] as const) {
      for (const [what, call] of [
        ['get', () => client.get(`/jobs/${jobId}`)],
        ['workflow', () => client.get(`/jobs/${jobId}/workflow`)],
        ['events', () => client.get(`/jobs/${jobId}/events`)],
        ['cancel', () => client.post(`/jobs/${jobId}/cancel`)],
      ] as const) {
        const res = await call();
        t.is(res.status, 404, `${who} ${what}: ${JSON.stringify(res.body)}`);
        t.like(res.body, { error: { code: 'not_found', message: 'No such job' } }, `${who} ${what}`);
      }
    }
    const after = await owner.get(`/jobs/${id}`);
    t.like(after.body, { status: 'queued', completed_at: null }, 'the refused cancels changed nothing');
    t.is((await owner.get(`/jobs/${id}/workflow`)).body.format, 'api');

    // The cap of active jobs: 429 queue_full with Retry-After, nothing created.
    t.is((await owner.post('/jobs', { workflow: workflow(3) })).status, 201);
    const full = await owner.post('/jobs', { workflow: workflow(4) });
    t.is(full.status, 429, JSON.stringify(full.body));
    t.like(full.body, { error: { code: 'queue_full' } });
    t.regex(full.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/, 'Retry-After in seconds');
    t.is(await jobCount(session), 2, 'no job beyond the cap');

    // No credentials at all: 401 unauthorized on every job route, nothing created or cancelled.
    const anonymous = new TestClient(a.baseUrl, '/api/v2');
    for (const [what, call] of [
      ['submit', () => anonymous.post('/jobs', { workflow: workflow(5) })],
      ['get', () => anonymous.get(`/jobs/${id}`)],
      ['workflow', () => anonymous.get(`/jobs/${id}/workflow`)],
      ['events', () => anonymous.get(`/jobs/${id}/events`)],
      ['cancel', () => anonymous.post(`/jobs/${id}/cancel`)],
    ] as const) {
      const res = await call();
      t.is(res.status, 401, what);
      t.like(res.body, { error: { code: 'unauthorized' } }, what);
    }
    t.is(await jobCount(session), 2);
    t.is((await owner.get(`/jobs/${id}`)).body.status, 'queued');
  });

  test(title('v2 event stream: no-store headers and the place in the queue on a fresh stream, a blank Last-Event-ID is a fresh stream, more than 15 digits is 400; a finished job ends its stream, a resume after its last frame gets the final status alone'), async (t) => {
    const { app: a, user: session, userId } = await schedulingApp(t, db);
    const owner = await v2Client(a, session, ['generate']);
    const created = await owner.post('/jobs', { workflow: workflow(6) });
    t.is(created.status, 201);
    const id = created.body.id as string;

    const fresh = await firstFrame(owner, id);
    t.is(fresh.status, 200);
    t.regex(fresh.headers.get('content-type') ?? '', /^text\/event-stream/);
    t.is(fresh.headers.get('cache-control'), 'no-store');
    t.is(fresh.headers.get('x-accel-buffering'), 'no');
    t.deepEqual(fresh.frames, [{ event: 'status', data: JSON.stringify({ status: 'queued', queue_position: 0 }) }]);
    t.deepEqual((await firstFrame(owner, id, '')).frames, fresh.frames, 'a blank Last-Event-ID is no resume');

    const tooLong = await firstFrame(owner, id, '1'.repeat(16));
    t.is(tooLong.status, 400);
    t.like(tooLong.body, { error: { code: 'invalid_request' } });

    // An event of the job that v2 has no frame for (a publication) is left out of the stream.
    await reposOf(a).events.append(userId, { type: 'publish.completed', jobId: id, outputId: randomUUID(), platform: 'YOUTUBE', url: null }, new Date());

    const cancelled = await owner.post(`/jobs/${id}/cancel`);
    t.is(cancelled.status, 200);
    t.is(cancelled.body.status, 'canceled');
    const again = await owner.post(`/jobs/${id}/cancel`);
    t.is(again.status, 200, 'a finished job is answered as it is');
    t.like(again.body, { id, status: 'canceled' });

    const done = await wholeStream(t, owner, id);
    t.deepEqual(done.frames, [{ event: 'status', data: JSON.stringify({ status: 'canceled', queue_position: null }) }], 'a finished job: its status, then the end');
    const all = await wholeStream(t, owner, id, '0');
    t.deepEqual(all.frames.map((f) => [f.event, JSON.parse(f.data!).status]), [['status', 'queued'], ['status', 'canceled']]);
    const last = all.frames.at(-1)!.id!;
    t.regex(last, /^\d+$/);
    const resumed = await wholeStream(t, owner, id, last);
    t.deepEqual(resumed.frames, [{ event: 'status', data: JSON.stringify({ status: 'canceled', queue_position: null }) }], 'nothing missed but the end: the final status, once');
  });

  test(title('v2 event stream: an idle stream gets a keep-alive comment every 15 s'), async (t) => {
    const { app: a, user: session } = await schedulingApp(t, db);
    const owner = await v2Client(a, session, ['generate']);
    const created = await owner.post('/jobs', { workflow: workflow(7) });
    t.is(created.status, 201);
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), 25_000);
    t.teardown(() => {
      clearTimeout(timer);
      stop.abort();
    });
    const res = await fetch(`${a.baseUrl}/api/v2/jobs/${created.body.id}/events`, { headers: { authorization: `Bearer ${owner.bearer}` }, signal: stop.signal });
    t.is(res.status, 200);
    const reader = res.body!.getReader();
    let text = '';
    try {
      while (!text.includes(': keep-alive\n\n')) {
        const { value, done } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString('utf8');
      }
    } catch {
      // aborted: no comment within 25 s
    }
    t.true(text.includes(': keep-alive\n\n'), `a comment line while nothing happens: ${JSON.stringify(text)}`);
    t.is(parseFrames(text)[0]?.event, 'status', 'after the first frame');
  });

  // The client leaves while its stream's feed opens (here: while the bus subscription is made), so its 'close' comes
  // before the route listens for it. A resume (Last-Event-ID) of a queued job takes no other await that would notice.
  // The subscription must end at once, not when the job ends (a job that waits for hours would hold it for hours).
  test(title('v2 event stream: a client that leaves while the stream opens does not keep its subscription'), async (t) => {
    const { app: a, user: session } = await schedulingApp(t, db);
    const owner = await v2Client(a, session, ['generate']);
    const created = await owner.post('/jobs', { workflow: workflow(8) });
    t.is(created.status, 201);
    const bus = resolve(a.app.container, TOKENS.EventBus);
    const subscribe = bus.subscribe.bind(bus);
    let live = 0;
    const stop = new AbortController();
    let serverSawClose!: Promise<void>;
    bus.subscribe = async (channel, handler) => {
      const unsubscribe = await subscribe(channel, handler);
      live += 1;
      stop.abort();
      await serverSawClose;
      return async () => {
        live -= 1;
        await unsubscribe();
      };
    };
    t.teardown(() => {
      bus.subscribe = subscribe;
    });
    serverSawClose = new Promise((resolveClose) => {
      a.app.server!.once('request', (req: IncomingMessage) => req.once('close', () => setTimeout(resolveClose, 50)));
    });
    await fetch(`${a.baseUrl}/api/v2/jobs/${created.body.id}/events`, { headers: { authorization: `Bearer ${owner.bearer}`, 'last-event-id': '0' }, signal: stop.signal }).catch(() => null);
    const started = Date.now();
    while (live > 0 && Date.now() - started < 2000) await new Promise((wait) => setTimeout(wait, 20));
    t.is(live, 0, 'the feed closed when its client had left');
    t.is((await owner.get(`/jobs/${created.body.id}`)).body.status, 'queued', 'the job did not end meanwhile');
    // Node still counts the aborted request's connection as busy: the stop cuts it after its 10 s grace instead of
    // waiting for Node's 60 s header limit (a signalled process is ended with exit code 1 after 20 s).
    const stopping = Date.now();
    await a.app.stop();
    const seconds = (Date.now() - stopping) / 1000;
    t.true(seconds < 15, `stopped in ${seconds} s`);
  });

  test(title('v2 assets: scopes and unknown ids; too large is 413 payload_too_large, no file or bytes that contradict content_type 422, nothing stored; file_path names the asset; an upload a queued job reads is 409 asset_in_use; content redirects with no-store'), async (t) => {
    const { app: a, user: session } = await schedulingApp(t, db, { MAX_UPLOAD_MB: '1' });
    const owner = await v2Client(a, session, ['generate']);
    const reader = await v2Client(a, session, ['history']);
    const png = await makeImage('png', 6, 5);
    const hash = await blake3Of(png);
    const form = (fields: Record<string, string>, file?: Blob, fileName = 'part.png') => {
      const body = new FormData();
      for (const [name, value] of Object.entries(fields)) body.append(name, value);
      if (file) body.append('file', file, fileName);
      return body;
    };

    const stored = await owner.post('/assets', form({ content_type: 'image/png', file_path: 'chosen.png' }, new Blob([png], { type: 'image/png' })));
    t.is(stored.status, 201, JSON.stringify(stored.body));
    t.like(stored.body, { hash, file_path: 'chosen.png', created_new: true });
    const id = stored.body.id as string;

    const hashed = async (h: string) => (await owner.request('HEAD', `/assets/by-hash/${encodeURIComponent(h)}`)).status;
    const big = Buffer.concat([png, Buffer.alloc(1024 * 1024 + 1)]);
    const tooLarge = await owner.post('/assets', form({ content_type: 'image/png', file_path: 'big.png' }, new Blob([big], { type: 'image/png' })));
    t.is(tooLarge.status, 413);
    t.like(tooLarge.body, { error: { code: 'payload_too_large' } });
    t.is(await hashed(await blake3Of(big)), 404, 'nothing stored');
    const noFile = await owner.post('/assets', form({ content_type: 'image/png', file_path: 'none.png' }));
    t.is(noFile.status, 422);
    t.like(noFile.body, { error: { code: 'invalid_request' } });
    const other = await makeImage('png', 6, 6);
    const contradicted = await owner.post('/assets', form({ content_type: 'image/jpeg', file_path: 'liar.jpg' }, new Blob([other], { type: 'image/png' })));
    t.is(contradicted.status, 422, JSON.stringify(contradicted.body));
    t.like(contradicted.body, { error: { code: 'invalid_request' } });
    t.is(await hashed(await blake3Of(other)), 404, 'nothing stored');

    // Scopes: a key without `generate` reaches none of the asset routes; the refused delete changed nothing.
    for (const [what, call] of [
      ['get', () => reader.get(`/assets/${id}`)],
      ['content', () => reader.get(`/assets/${id}/content`)],
      ['by-hash', () => reader.request('HEAD', `/assets/by-hash/${encodeURIComponent(hash)}`)],
      ['delete', () => reader.delete(`/assets/${id}`)],
    ] as const) {
      t.is((await call()).status, 403, what);
    }
    t.is((await owner.get(`/assets/${id}`)).status, 200, 'still there');

    // No credentials at all: 401 unauthorized on every asset route, nothing stored or deleted.
    const anonymous = new TestClient(a.baseUrl, '/api/v2');
    for (const [what, call] of [
      ['upload', () => anonymous.post('/assets', form({ content_type: 'image/png', file_path: 'anon.png' }, new Blob([other], { type: 'image/png' })))],
      ['from-hash', () => anonymous.post('/assets/from-hash', { hash })],
      ['by-hash', () => anonymous.request('HEAD', `/assets/by-hash/${encodeURIComponent(hash)}`)],
      ['get', () => anonymous.get(`/assets/${id}`)],
      ['content', () => anonymous.get(`/assets/${id}/content`)],
      ['delete', () => anonymous.delete(`/assets/${id}`)],
    ] as const) {
      const res = await call();
      t.is(res.status, 401, what);
      if (what !== 'by-hash') t.like(res.body, { error: { code: 'unauthorized' } }, what);
    }
    t.is(await hashed(await blake3Of(other)), 404, 'nothing stored');
    t.is((await owner.get(`/assets/${id}`)).status, 200, 'still there');

    // Unknown ids and ids that are no UUID: 404 not_found, never a 500.
    for (const unknown of [randomUUID(), 'not-an-asset']) {
      for (const [what, call] of [
        ['get', () => owner.get(`/assets/${unknown}`)],
        ['content', () => owner.get(`/assets/${unknown}/content`)],
        ['delete', () => owner.delete(`/assets/${unknown}`)],
      ] as const) {
        const res = await call();
        t.is(res.status, 404, `${what} ${unknown}: ${JSON.stringify(res.body)}`);
        t.like(res.body, { error: { code: 'not_found' } }, `${what} ${unknown}`);
      }
    }

    const content = await owner.get(`/assets/${id}/content`);
    t.is(content.status, 302);
    t.is(content.headers.get('cache-control'), 'no-store');
    t.truthy(content.headers.get('location'));

    // A queued job reads the asset: it cannot be deleted meanwhile.
    const job = await owner.post('/jobs', { workflow: loadAsset(id) });
    t.is(job.status, 201, JSON.stringify(job.body));
    const inUse = await owner.delete(`/assets/${id}`);
    t.is(inUse.status, 409, JSON.stringify(inUse.body));
    t.like(inUse.body, { error: { code: 'asset_in_use' } });
    t.like((await owner.get(`/assets/${id}`)).body, { id, hash }, 'still there');
    t.is((await owner.post(`/jobs/${job.body.id}/cancel`)).status, 200);
    t.is((await owner.delete(`/assets/${id}`)).status, 204, 'deletable once no active job reads it');
    t.is((await owner.get(`/assets/${id}`)).status, 404);
  });
}

for (const db of DATABASES) suite(db);
