import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import test from 'ava';
import { InProcessEventBus } from '../../adapters/memory/in-process-event-bus.ts';
import { MemoryObjectStorage } from '../../adapters/memory/memory-object-storage.ts';
import type { MediaFacts } from '../../core/ports/media-inspector.port.ts';
import type { ObjectStorage } from '../../core/ports/object-storage.port.ts';
import type { EngineOutputFile } from '../../core/ports/workflow-engine.port.ts';
import { outputKey } from '../../core/domain/job.ts';
import { JobPayment } from '../../core/use-cases/coins/job-payment.service.ts';
import { UserEventLog } from '../../core/use-cases/events/user-event-log.service.ts';
import { JobLifecycle } from '../../core/use-cases/generation/job-lifecycle.service.ts';
import { StoreOutputs, uniqueFileNames } from '../../core/use-cases/generation/store-outputs.service.ts';
import { newJob } from '../contract/fixtures.ts';
import { openBackend } from '../support/backends.ts';
import { quietLogger } from '../support/generation-harness.ts';

// StoreOutputs on its own, on the memory backend: which engine files become outputs, their names, the media facts
// the stored file adds, the expiry, the texts, the "Uploading results" step, the completing transaction, and discard.

const DAY = 86_400_000;
const NOW = new Date('2026-03-01T12:00:00Z');

const file = (fileName: string, over: Partial<EngineOutputFile> = {}): EngineOutputFile => ({
  nodeId: '9',
  fileName,
  mimeType: 'image/png',
  kind: 'output',
  open: async () => Readable.from([Buffer.from(`bytes of ${fileName}`)]),
  ...over,
});

async function setup(options: { facts?: MediaFacts; storage?: (inner: ObjectStorage) => ObjectStorage; read?: boolean } = {}) {
  const { repos, uow } = await openBackend('memory');
  const clock = { now: () => new Date(NOW) };
  const ids = { newId: () => randomUUID() };
  const events = new UserEventLog({ bus: new InProcessEventBus(), clock, logger: quietLogger });
  const lifecycle = new JobLifecycle({ ids, clock, events, payment: new JobPayment({ ids }) });
  const memory = new MemoryObjectStorage(clock.now);
  const storage = options.storage ? options.storage(memory) : memory;
  const inspected: string[] = [];
  // `read`: the inspector reads the stored file, as the ffprobe one does.
  const media = {
    inspect: async (open: () => Promise<unknown>, mimeType: string) => {
      if (options.read) await open();
      return inspected.push(mimeType), options.facts ?? {};
    },
  };
  const store = new StoreOutputs({ uow, events, staged: repos.staged, storage, lifecycle, ids, clock, logger: quietLogger, retentionDays: 7, viewUrl: async (item) => `http://view/${item.id}`, media });
  const userId = randomUUID();
  await repos.users.create({ id: userId, email: `${userId}@example.com`, displayName: 'U', role: 'user', passwordHash: null, createdAt: NOW });
  const runId = randomUUID();
  const job = newJob(userId);
  await repos.jobs.create(job);
  if (!(await repos.jobs.transition(job.id, { to: 'running', runId, changes: { attempts: 1, startedAt: NOW } }, NOW))) throw new Error('not started');
  const running = (await repos.jobs.findById(job.id))!;
  const outputs = async () => (await repos.history.listForUser(userId, { page: 1, limit: 100 })).items.sort((a, b) => a.fileName.localeCompare(b.fileName));
  return { repos, uow, store, memory, job: running, runId, userId, inspected, outputs };
}

test('saved files are the outputs and previews are left out; a job with previews only keeps its previews', async (t) => {
  const saved = await setup();
  t.is(await saved.store.complete(saved.job, saved.runId, [file('preview.png', { kind: 'temp' }), file('result.png')], []), 'succeeded');
  t.deepEqual((await saved.outputs()).map((item) => item.fileName), ['result.png']);
  const previews = await setup();
  t.is(await previews.store.complete(previews.job, previews.runId, [file('a.png', { kind: 'temp' }), file('b.png', { kind: 'temp' })], []), 'succeeded');
  t.deepEqual((await previews.outputs()).map((item) => item.fileName), ['a.png', 'b.png']);
});

test('file names are made unique within a job, before the extension, and every file is stored under its own key', async (t) => {
  t.deepEqual(uniqueFileNames(['x.png', 'x.png', 'x.png', 'x-2.png']), ['x.png', 'x-2.png', 'x-3.png', 'x-2-2.png']);
  t.deepEqual(uniqueFileNames(['a.b.png', 'a.b.png']), ['a.b.png', 'a.b-2.png']);
  t.deepEqual(uniqueFileNames(['noext', 'noext']), ['noext', 'noext-2']);
  t.deepEqual(uniqueFileNames(['.hidden', '.hidden']), ['.hidden', '.hidden-2'], 'a leading dot is part of the name, not an extension');
  const app = await setup();
  t.is(await app.store.complete(app.job, app.runId, [file('x.png', { nodeId: '1' }), file('x.png', { nodeId: '2' })], []), 'succeeded');
  const stored = await app.outputs();
  t.deepEqual(stored.map((item) => item.fileName), ['x-2.png', 'x.png']);
  t.not(stored[0]!.storageKey, stored[1]!.storageKey);
  for (const item of stored) t.truthy(await app.memory.get(item.storageKey), `${item.fileName} is in storage`);
});

test("the stored file's facts fill in what the engine did not say; what the engine said wins; outputs expire after the retention days", async (t) => {
  const app = await setup({ facts: { width: 640, height: 360, durationSeconds: 4.5 } });
  const files = [
    file('clip.mp4', { mimeType: 'video/mp4' }),
    file('partial.mp4', { mimeType: 'video/mp4', width: 320, height: 240 }),
    file('sized.mp4', { mimeType: 'video/mp4', width: 320, height: 240, durationSeconds: 2 }),
    file('still.png', { width: 8, height: 8 }),
  ];
  t.is(await app.store.complete(app.job, app.runId, files, []), 'succeeded');
  const [clip, partial, sized, still] = await app.outputs();
  t.like(clip, { width: 640, height: 360, durationSeconds: 4.5 });
  t.like(partial, { width: 320, height: 240, durationSeconds: 4.5 }, 'the engine said the size, the file the duration');
  t.like(sized, { width: 320, height: 240, durationSeconds: 2 });
  t.like(still, { width: 8, height: 8, durationSeconds: null });
  t.deepEqual(app.inspected, ['video/mp4', 'video/mp4'], 'only the files that lacked facts were read');
  t.is(clip!.expiresAt.getTime(), NOW.getTime() + 7 * DAY);
});

test('texts are kept on the job; the upload step is announced; the completion commits with what joins it, or not at all', async (t) => {
  const app = await setup();
  const joined: string[] = [];
  const done = await app.store.complete(app.job, app.runId, [file('r.png')], [{ nodeId: '4', text: 'a caption' }], async (tx) => {
    joined.push((await tx.jobs.findById(app.job.id))!.status);
  });
  t.is(done, 'succeeded');
  t.deepEqual(joined, ['succeeded'], 'it runs inside the completing transaction, after the job succeeded');
  t.deepEqual((await app.repos.jobs.findById(app.job.id))!.textOutputs, [{ nodeId: '4', text: 'a caption' }]);
  const texts = (await app.repos.events.listSince(app.userId, 0, 100)).filter((event) => event.event.type === 'job.status').map((event) => (event.event as { text: string }).text);
  t.true(texts.includes('Uploading results'), JSON.stringify(texts));

  const failing = await setup();
  await t.throwsAsync(failing.store.complete(failing.job, failing.runId, [file('r.png')], [], async () => {
    throw new Error('the ack failed');
  }), { message: 'the ack failed' });
  t.is((await failing.repos.jobs.findById(failing.job.id))!.status, 'running', 'a failure of what joins rolls the completion back');
  t.deepEqual(await failing.outputs(), []);
});

test('discard deletes every staged file of the run it can, and a file whose delete fails stays staged for the reconciler', async (t) => {
  const broken = new Set<string>();
  const app = await setup({
    storage: (inner) => ({
      ...inner,
      put: inner.put.bind(inner),
      get: inner.get.bind(inner),
      delete: async (key: string) => {
        if ([...broken].some((name) => key.endsWith(name))) throw new Error('delete failed');
        return inner.delete(key);
      },
    }) as ObjectStorage,
  });
  const keys = ['a.png', 'b.png', 'c.png'].map((name) => `users/${app.userId}/${app.job.id}/${app.runId}/${name}`);
  for (const storageKey of keys) {
    await app.memory.put(storageKey, Readable.from([Buffer.from('x')]), { contentType: 'image/png' });
    await app.repos.staged.add({ storageKey, jobId: app.job.id, runId: app.runId, createdAt: NOW });
  }
  broken.add('a.png');
  await app.store.discard(app.runId);
  t.deepEqual((await app.repos.staged.listForRun(app.runId)).map((entry) => entry.storageKey), [keys[0]]);
  t.truthy(await app.memory.get(keys[0]!));
  t.is(await app.memory.get(keys[1]!), null);
  t.is(await app.memory.get(keys[2]!), null);
});

// Pins that an output already recorded for the job (a file of that name) is not silently skipped: the completion fails
// and rolls back, so no attempt's file goes unlisted while the job reads as succeeded.
test('an output name the job already has fails the completion: the job stays running, nothing is half-recorded', async (t) => {
  const app = await setup();
  const earlier = { id: randomUUID(), jobId: app.job.id, userId: app.userId, templateId: null, storageKey: `outputs/${app.userId}/${app.job.id}/old-r.png`, fileName: 'r.png', mimeType: 'image/png', sizeBytes: 3, width: null, height: null, durationSeconds: null, usedParameters: {}, createdAt: NOW, expiresAt: new Date(NOW.getTime() + DAY) };
  t.true(await app.repos.history.add(earlier));
  await t.throwsAsync(app.store.complete(app.job, app.runId, [file('r.png')], [], async () => undefined), { message: /already recorded/ });
  t.is((await app.repos.jobs.findById(app.job.id))!.status, 'running');
  t.deepEqual((await app.outputs()).map((item) => item.id), [earlier.id]);
});

// Pins that an attempt that lost its job while it stored its files (cancelled during the upload, after its files were
// staged) makes nothing of them: it is told 'lost', what joins the completion (the queue's ack) does not commit, and
// the files it stored are deleted.
test('an attempt whose job was cancelled during its upload is lost: nothing joins, no output is listed, its files are deleted', async (t) => {
  const app = await setup();
  const cancelledWhileUploading = file('r.png', {
    open: async () => {
      if (!(await app.repos.jobs.transition(app.job.id, { to: 'cancelled', changes: { finishedAt: NOW } }, NOW))) throw new Error('not cancelled');
      return Readable.from([Buffer.from('bytes')]);
    },
  });
  const joined: string[] = [];
  t.is(await app.store.complete(app.job, app.runId, [cancelledWhileUploading], [], async () => void joined.push('ack')), 'lost');
  t.deepEqual(joined, []);
  t.deepEqual(await app.outputs(), []);
  t.deepEqual(await app.repos.staged.listForRun(app.runId), []);
  t.is(await app.memory.get(outputKey(app.userId, app.job.id, app.runId, 'r.png')), null);
  t.is((await app.repos.jobs.findById(app.job.id))!.status, 'cancelled');
});

// Pins that a stored file gone before its facts could be read fails the completion with a message that says so.
test('a stored file that is gone when its facts are read fails the completion, saying which', async (t) => {
  const app = await setup({ read: true, storage: (inner) => Object.assign(Object.create(inner) as ObjectStorage, { get: async () => null }) });
  await t.throwsAsync(app.store.complete(app.job, app.runId, [file('r.mp4', { mimeType: 'video/mp4' })], []), { message: /^stored output outputs\/.*-r\.mp4 is gone$/ });
  t.is((await app.repos.jobs.findById(app.job.id))!.status, 'running');
});
