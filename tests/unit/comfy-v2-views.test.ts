import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import express from 'express';
import { isTerminalEvent, outputKind, v2Envelope, v2Error, v2Frame, v2Job, v2OutputAsset, v2SubmitFailure, v2UploadAsset } from '../../adapters/http/comfy-v2-views.ts';
import { sendFail } from '../../adapters/http/error-table.ts';
import { fail } from '../../core/domain/result.ts';
import type { GenerationJob } from '../../core/domain/job.ts';
import type { HistoryView } from '../../core/domain/job-views.ts';
import type { UserEvent } from '../../core/domain/user-events.ts';
import type { Upload } from '../../core/ports/upload-repository.port.ts';

// The Comfy API v2 shapes (ADR 040) pinned field by field: what @comfyorg/sdk reads from a job, a frame of its event
// stream, an asset and an error.

const ORIGIN = 'https://media.example.com';
const CREATED = new Date('2030-01-01T00:00:00.000Z');
const ID = '0b6f3c1e-6f2a-4c55-9a51-2f7f0e0c9a11';

const job = (over: Partial<GenerationJob>): GenerationJob => ({
  id: ID,
  userId: 'u',
  templateId: null,
  templateVersion: null,
  status: 'queued',
  progress: { value: 0, max: 0 },
  statusText: '',
  workflow: {},
  usedParameters: {},
  imageRefs: [],
  outputType: 'image',
  paidCoins: 3,
  refundedCoins: 0,
  testRun: false,
  error: null,
  textOutputs: [],
  attempts: 0,
  runId: null,
  leaseUntil: null,
  startDeadline: null,
  queueTurn: 1,
  fitChoices: '',
  engineServer: null,
  retryAt: null,
  createdAt: CREATED,
  updatedAt: CREATED,
  startedAt: null,
  finishedAt: null,
  ...over,
});

const output: HistoryView = {
  id: 'out-1',
  jobId: ID,
  templateId: null,
  mimeType: 'video/mp4',
  usedParameters: {},
  createdAt: '2030-01-01T00:00:05.000Z',
  expiresAt: '2030-01-31T00:00:05.000Z',
  viewUrl: 'https://signed.example.com/x',
  fileName: 'clip_00001_.mp4',
  sizeBytes: 1234,
};

const progressOf = (over: Partial<GenerationJob>) => v2Job(ORIGIN, job(over), [], 1000).progress;

// Pins: a queued job has no progress yet; a running one reports value/max clamped to 0..1; a finished job whose
// engine reported no steps is 1 when it succeeded and 0 otherwise (never a division by zero).
test('progress: none while queued, value/max clamped to 0..1 after, 1 for a success without steps', (t) => {
  t.is(progressOf({ status: 'queued', progress: { value: 3, max: 4 } }), null);
  t.like(progressOf({ status: 'running', progress: { value: 3, max: 4 } }), { value: 0.75, step: 3, steps: 4, message: null });
  t.like(progressOf({ status: 'running', progress: { value: 9, max: 4 } }), { value: 1 });
  t.like(progressOf({ status: 'running', progress: { value: -2, max: 4 } }), { value: 0 });
  t.like(progressOf({ status: 'succeeded', progress: { value: 0, max: 0 } }), { value: 1 });
  t.like(progressOf({ status: 'failed', progress: { value: 0, max: 0 } }), { value: 0 });
  t.like(progressOf({ status: 'running', statusText: 'loading model' }), { message: 'loading model' });
});

test('a job: v2 status names, times, retention, error and links', (t) => {
  const failed = v2Job(ORIGIN, job({ status: 'failed', startedAt: new Date('2030-01-01T00:00:01.000Z'), finishedAt: new Date('2030-01-01T00:00:02.000Z'), error: { code: 'ENGINE_ERROR', message: 'out of memory', nodeId: '7' } }), [output], 60_000);
  t.like(failed, {
    status: 'failed',
    created_at: '2030-01-01T00:00:00.000Z',
    started_at: '2030-01-01T00:00:01.000Z',
    completed_at: '2030-01-01T00:00:02.000Z',
    expires_at: '2030-01-01T00:01:00.000Z',
    queue_position: null,
    error: { code: 'ENGINE_ERROR', message: 'out of memory', node_id: '7' },
    urls: { self: `/api/v2/jobs/${ID}`, events: `/api/v2/jobs/${ID}/events`, cancel: `/api/v2/jobs/${ID}/cancel` },
  });
  t.deepEqual(failed.outputs.map((o) => [o.type, o.url]), [['video', `${ORIGIN}/api/v2/assets/out-1/content`]]);
  t.like(v2Job(ORIGIN, job({ status: 'failed', error: { code: 'X', message: 'y' } }), [], 1).error, { node_id: null });
  t.is(v2Job(ORIGIN, job({ status: 'cancelled' }), [], 1).status, 'canceled');
  t.like(v2Job(ORIGIN, job({}), [], 1), { status: 'queued', started_at: null, completed_at: null, error: null, queue_position: null });
  t.is(v2Job(ORIGIN, job({}), [], 1, 4).queue_position, 4);
});

const frameOf = (event: UserEvent) => {
  const text = v2Frame(ORIGIN, 12, event);
  if (text === null) return null;
  const [id, name, data] = text.split('\n');
  return { id, name, data: JSON.parse(data!.slice('data: '.length)) as Record<string, unknown> };
};

// Pins each event's frame, as the SDK reads it: every frame carries its seq as id; progress is value/max clamped to 1
// (0 without steps); a failure names its error; events v2 has no frame for give none.
test('event frames', (t) => {
  t.deepEqual(frameOf({ type: 'job.queued', jobId: ID, position: 3 }), { id: 'id: 12', name: 'event: status', data: { status: 'queued', queue_position: 3 } });
  t.deepEqual(frameOf({ type: 'job.queued', jobId: ID })!.data, { status: 'queued', queue_position: null });
  t.deepEqual(frameOf({ type: 'job.queue', jobId: ID, position: 1, etaSeconds: 30 })!.data, { status: 'queued', queue_position: 1 });
  t.deepEqual(frameOf({ type: 'job.started', jobId: ID, attempt: 1, etaSeconds: 20 })!.data, { status: 'running', queue_position: null });
  t.deepEqual(frameOf({ type: 'job.progress', jobId: ID, value: 2, max: 8, node: '5' }), { id: 'id: 12', name: 'event: progress', data: { value: 0.25, nodes_done: 0, nodes_total: 0, current_node: '5', step: 2, steps: 8 } });
  t.like(frameOf({ type: 'job.progress', jobId: ID, value: 9, max: 8 })!.data, { value: 1, current_node: null });
  t.like(frameOf({ type: 'job.progress', jobId: ID, value: 3, max: 0 })!.data, { value: 0 });
  t.deepEqual(frameOf({ type: 'job.status', jobId: ID, text: 'loading' }), { id: 'id: 12', name: 'event: log', data: { level: 'info', message: 'loading' } });
  t.like(frameOf({ type: 'job.output', jobId: ID, output }), { name: 'event: output', data: { id: 'out-1', type: 'video', content_type: 'video/mp4', size_bytes: 1234 } });
  t.deepEqual(frameOf({ type: 'job.completed', jobId: ID, outputs: [], texts: [] })!.data, { status: 'succeeded', queue_position: null });
  t.deepEqual(frameOf({ type: 'job.failed', jobId: ID, error: { code: 'E', message: 'm' }, refunded: 3 })!.data, { status: 'failed', queue_position: null, error: { code: 'E', message: 'm' } });
  t.deepEqual(frameOf({ type: 'job.cancelled', jobId: ID, refunded: 3 })!.data, { status: 'canceled', queue_position: null });
  t.deepEqual(frameOf({ type: 'job.expired', jobId: ID, refunded: 3 })!.data, { status: 'expired', queue_position: null });
  t.is(frameOf({ type: 'publish.completed', jobId: ID, outputId: 'out-1', platform: 'youtube', url: null }), null);
});

test('terminal events are the four that end a job', (t) => {
  const terminal = (['job.completed', 'job.failed', 'job.cancelled', 'job.expired', 'job.queued', 'job.queue', 'job.started', 'job.progress', 'job.output', 'job.status'] as const).filter((type) => isTerminalEvent({ type } as UserEvent));
  t.deepEqual(terminal, ['job.completed', 'job.failed', 'job.cancelled', 'job.expired']);
});

// Pins the v2 error codes of refused submissions (the SDK branches on them). A code v2 has no name for takes its
// status from the error table and v2's code for that status (it was 500 upstream_error: QUEUE.FULL answered so until
// its row was added); only a code the table does not know is 500.
test('refused submissions map to v2 codes and statuses', (t) => {
  const problems = [{ field: 'workflow.1.inputs.width', message: 'too big' }];
  t.deepEqual(v2SubmitFailure({ code: 'VALIDATION.FAILED', message: 'bad', details: problems }), { status: 422, body: { error: { code: 'invalid_workflow', message: 'bad', details: { problems } } } });
  const table = (['IDEMPOTENCY.KEY_REUSED', 'IDEMPOTENCY.IN_PROGRESS', 'JOB.TOO_MANY_ACTIVE', 'COIN.INSUFFICIENT', 'ASSET.MISSING', 'ASSET.HASH_MISMATCH', 'ASSET.IN_USE', 'QUEUE.FULL', 'NOT_FOUND', 'AUTH.FORBIDDEN', 'CONFLICT', 'PAYLOAD.TOO_LARGE', 'RATE_LIMITED', 'UPSTREAM.TIMEOUT', 'SOMETHING.ELSE'] as const).map((code) => {
    const { status, body } = v2SubmitFailure({ code, message: 'm' });
    return [code, status, (body as { error: { code: string } }).error.code];
  });
  t.deepEqual(table, [
    ['IDEMPOTENCY.KEY_REUSED', 422, 'idempotency_key_reuse'],
    ['IDEMPOTENCY.IN_PROGRESS', 429, 'idempotency_in_progress'],
    ['JOB.TOO_MANY_ACTIVE', 429, 'queue_full'],
    ['COIN.INSUFFICIENT', 402, 'insufficient_credits'],
    ['ASSET.MISSING', 422, 'missing_asset'],
    ['ASSET.HASH_MISMATCH', 409, 'hash_mismatch'],
    ['ASSET.IN_USE', 409, 'asset_in_use'],
    ['QUEUE.FULL', 429, 'queue_full'],
    ['NOT_FOUND', 404, 'not_found'],
    ['AUTH.FORBIDDEN', 403, 'forbidden'],
    ['CONFLICT', 409, 'conflict'],
    ['PAYLOAD.TOO_LARGE', 413, 'payload_too_large'],
    ['RATE_LIMITED', 429, 'rate_limited'],
    ['UPSTREAM.TIMEOUT', 504, 'upstream_error'],
    ['SOMETHING.ELSE', 500, 'upstream_error'],
  ]);
  t.deepEqual(v2Error('not_found', 'No such job', []), { error: { code: 'not_found', message: 'No such job' } }, 'no empty details');
});

test('output kinds and assets', (t) => {
  t.deepEqual(['image/png', 'video/mp4', 'audio/wav', 'text/plain', 'application/json', 'model/gltf+json'].map(outputKind), ['image', 'video', 'audio', 'text', 'file', 'file']);
  t.deepEqual(v2OutputAsset(ORIGIN, output), {
    size_bytes: 1234,
    content_type: 'video/mp4',
    id: 'out-1',
    hash: null,
    url: `${ORIGIN}/api/v2/assets/out-1/content`,
    url_expires_at: output.expiresAt,
    job_id: ID,
    file_path: 'clip_00001_.mp4',
    created_at: output.createdAt,
    expires_at: output.expiresAt,
  });
  const upload: Upload = { id: 'up-1', userId: 'u', storageKey: 'k', mimeType: 'image/png', width: 8, height: 8, sizeBytes: 99, createdAt: CREATED, contentHash: 'blake3:ab', fileName: 'cat.png', usedAt: null };
  const urlExpiry = new Date('2030-01-01T00:10:00.000Z');
  const unused = v2UploadAsset(ORIGIN, upload, urlExpiry);
  t.false('created_new' in unused, 'created_new only where the route says whether it created the asset');
  t.true(Date.parse(unused.expires_at!) > CREATED.getTime(), 'an unused upload expires');
  t.is(v2UploadAsset(ORIGIN, { ...upload, usedAt: CREATED }, urlExpiry).expires_at, null, 'an upload a job used never expires');
  t.like(v2UploadAsset(ORIGIN, upload, urlExpiry, true), { created_new: true, hash: 'blake3:ab', file_path: 'cat.png', url_expires_at: '2030-01-01T00:10:00.000Z', job_id: null });
});

// Every 429 of the v2 surface carries Retry-After: a 409 for a key still in progress (v2's 429
// idempotency_in_progress) gets 1 s; a limiter's own value is kept; other statuses get none.
test('the v2 envelope: a 429 without Retry-After gets 1 s, one with it keeps it', async (t) => {
  const app = express();
  app.use(v2Envelope);
  app.get('/in-progress', (_req, res) => sendFail(res, fail('IDEMPOTENCY.IN_PROGRESS', 'still running')));
  app.get('/limited', (_req, res) => {
    res.setHeader('Retry-After', '17');
    sendFail(res, fail('JOB.TOO_MANY_ACTIVE', 'full'));
  });
  app.get('/reused', (_req, res) => sendFail(res, fail('IDEMPOTENCY.KEY_REUSED', 'other body')));
  const server = app.listen(0, '127.0.0.1');
  t.teardown(() => server.close());
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const inProgress = await fetch(`${base}/in-progress`);
  t.is(inProgress.status, 429);
  t.is(inProgress.headers.get('retry-after'), '1');
  t.deepEqual(await inProgress.json(), { error: { code: 'idempotency_in_progress', message: 'still running' } });
  const limited = await fetch(`${base}/limited`);
  t.is(limited.status, 429);
  t.is(limited.headers.get('retry-after'), '17');
  const reused = await fetch(`${base}/reused`);
  t.is(reused.status, 422);
  t.is(reused.headers.get('retry-after'), null);
});
