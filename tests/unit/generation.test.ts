import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { WorkflowEngine } from '../../core/ports/workflow-engine.port.ts';
import { colorTemplate, failingWorkflow, generationHarness, imageWorkflow } from '../support/generation-harness.ts';

test('a template job is charged in its own transaction, runs, stores one history item per file and completes', async (t) => {
  const h = generationHarness();
  const userId = await h.newUser(10);
  const template = colorTemplate(3);
  h.templates.set(template.id, template);

  const submitted = await h.submit.execute({ userId, isAdmin: false, templateId: template.id, parameters: { color: 0x00ff00 } });
  if (!submitted.ok) return t.fail(JSON.stringify(submitted));
  t.is(submitted.value.job.status, 'queued');
  t.is(submitted.value.job.paidCoins, 3);
  t.is(await h.balance(userId), 7);
  t.deepEqual(submitted.value.job.usedParameters, { color: 0x00ff00 });

  const outcome = await h.run.execute(await h.delivery(submitted.value.job.id));
  t.deepEqual(outcome, { action: 'ack' });
  const job = await h.jobs.findById(submitted.value.job.id);
  t.is(job!.status, 'succeeded');
  const items = await h.history.listForJob(job!.id);
  t.is(items.length, 1);
  t.is(items[0]!.mimeType, 'image/png');
  t.is(items[0]!.width, 16);
  t.true((await h.storage.head(items[0]!.storageKey))!.sizeBytes > 0);
  t.true(items[0]!.storageKey.startsWith(`outputs/${userId}/${job!.id}/`));
  const types = h.events.filter((e) => e.userId === userId).map((e) => e.event.type);
  t.deepEqual(types.filter((type) => type !== 'job.status' && type !== 'job.progress'), ['job.queued', 'job.started', 'job.output', 'job.completed']);
  t.true(types.indexOf('job.completed') > types.lastIndexOf('job.progress'));

  // Redelivery of a finished job changes nothing.
  t.deepEqual(await h.run.execute(await h.delivery(job!.id, 2)), { action: 'ack' });
  t.is((await h.history.listForJob(job!.id)).length, 1);
  t.is(await h.balance(userId), 7);
});

test('a job that fails on the engine is refunded exactly once, even when the failure is delivered twice', async (t) => {
  const h = generationHarness();
  const userId = await h.newUser(5);
  const requestId = randomUUID();
  // The seed's client order: deduct first, linked to the request, then generate.
  await h.ledger.apply({ id: randomUUID(), userId, amount: -2, reason: 'image_generation', relatedEntityId: requestId, actorId: userId, createdAt: new Date() });
  const submitted = await h.submit.execute({ userId, isAdmin: false, workflow: failingWorkflow(), requestId });
  if (!submitted.ok) return t.fail(JSON.stringify(submitted));
  t.is(submitted.value.job.paidCoins, 2, 'paid by the linked deduction');
  t.is(await h.balance(userId), 3);

  const first = await h.run.execute(await h.delivery(requestId));
  t.deepEqual(first, { action: 'ack' });
  const second = await h.run.execute(await h.delivery(requestId, 2));
  t.deepEqual(second, { action: 'ack' });
  const job = await h.jobs.findById(requestId);
  t.is(job!.status, 'failed');
  t.is(job!.error!.code, 'ENGINE.EXECUTION');
  t.is(job!.error!.nodeId, '4');
  t.is(await h.balance(userId), 5, 'the 2 coins came back once');
  const refunds = h.store.coinTransactions.filter((tx) => tx.reason === 'generation_refund');
  t.is(refunds.length, 1);
  const failed = h.events.find((e) => e.event.type === 'job.failed');
  t.is(failed!.event.refunded, 2);
  // The claimed deduction is never swept again.
  h.advance(60);
  t.is(await h.sweeper.execute(), 0);
  t.is(await h.balance(userId), 5);
});

test('a repeated requestId returns the existing job and charges nothing more; another user gets 409', async (t) => {
  const h = generationHarness();
  const userId = await h.newUser(10);
  const template = colorTemplate(4);
  h.templates.set(template.id, template);
  const requestId = randomUUID();
  const first = await h.submit.execute({ userId, isAdmin: false, templateId: template.id, requestId });
  const second = await h.submit.execute({ userId, isAdmin: false, templateId: template.id, requestId });
  t.true(first.ok && first.value.created);
  t.true(second.ok && !second.value.created);
  t.is(await h.balance(userId), 6);
  t.is((await h.outbox.pending(100)).length, 1, 'one message only');
  const other = await h.newUser(10);
  const stolen = await h.submit.execute({ userId: other, isAdmin: false, templateId: template.id, requestId });
  t.false(stolen.ok);
  t.is(!stolen.ok && stolen.code, 'CONFLICT');
});

test('too few coins is 402 and leaves no job; a rejected request refunds its linked deduction at once', async (t) => {
  const h = generationHarness();
  const userId = await h.newUser(1);
  const template = colorTemplate(5);
  h.templates.set(template.id, template);
  const short = await h.submit.execute({ userId, isAdmin: false, templateId: template.id });
  t.is(!short.ok && short.code, 'COIN.INSUFFICIENT');
  t.is((await h.outbox.pending(100)).length, 0);
  t.is(await h.balance(userId), 1);

  const requestId = randomUUID();
  await h.ledger.apply({ id: randomUUID(), userId, amount: -1, reason: 'image_generation', relatedEntityId: requestId, actorId: userId, createdAt: new Date() });
  t.is(await h.balance(userId), 0);
  const bad = await h.submit.execute({ userId, isAdmin: false, templateId: template.id, parameters: { color: -5 }, requestId });
  t.is(!bad.ok && bad.code, 'VALIDATION.FAILED');
  t.is(await h.balance(userId), 1, 'refunded at once');
  h.advance(60);
  t.is(await h.sweeper.execute(), 0, 'and never twice');
  t.is(await h.balance(userId), 1);
});

test('the sweeper refunds a linked deduction no job claimed, but never a job charge', async (t) => {
  const h = generationHarness();
  const userId = await h.newUser(10);
  const template = colorTemplate(2);
  h.templates.set(template.id, template);
  await h.submit.execute({ userId, isAdmin: false, templateId: template.id });
  await h.ledger.apply({ id: randomUUID(), userId, amount: -3, reason: 'video_generation', relatedEntityId: randomUUID(), actorId: userId, createdAt: new Date('2026-01-01T00:00:00Z') });
  t.is(await h.balance(userId), 5);
  h.advance(10);
  t.is(await h.sweeper.execute(), 0, 'not yet: 15 minutes');
  h.advance(10);
  t.is(await h.sweeper.execute(), 1);
  t.is(await h.balance(userId), 8, 'only the 3 unclaimed coins came back');
  t.is(await h.sweeper.execute(), 0);
});

test('cancelling a running job interrupts the engine and refunds once; cancelling again is 409', async (t) => {
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const engine: WorkflowEngine = {
    async run(request) {
      started();
      await new Promise<void>((resolve) => request.signal!.addEventListener('abort', () => resolve()));
      return { ok: false, error: { code: 'ENGINE.INTERRUPTED', message: 'interrupted' }, transient: false };
    },
    async check() {},
    async close() {},
  };
  const h = generationHarness({ engine });
  const userId = await h.newUser(10);
  const template = colorTemplate(4);
  h.templates.set(template.id, template);
  const submitted = await h.submit.execute({ userId, isAdmin: false, templateId: template.id });
  if (!submitted.ok) return t.fail();
  const work = h.run.execute(await h.delivery(submitted.value.job.id));
  await running;
  const cancelled = await h.cancel.execute({ userId, jobId: submitted.value.job.id });
  t.true(cancelled.ok);
  t.deepEqual(await work, { action: 'ack' });
  t.is((await h.jobs.findById(submitted.value.job.id))!.status, 'cancelled');
  t.is(await h.balance(userId), 10);
  const again = await h.cancel.execute({ userId, jobId: submitted.value.job.id });
  t.is(!again.ok && again.code, 'JOB.FINISHED');
  t.is(await h.balance(userId), 10);
  const other = await h.cancel.execute({ userId: await h.newUser(0), jobId: submitted.value.job.id });
  t.is(!other.ok && other.code, 'NOT_FOUND');
});

test('a transient engine failure is retried with backoff, then fails and refunds after the last attempt', async (t) => {
  const engine: WorkflowEngine = {
    async run() {
      return { ok: false, error: { code: 'ENGINE.UNAVAILABLE', message: 'connection refused' }, transient: true };
    },
    async check() {},
    async close() {},
  };
  const h = generationHarness({ engine, maxAttempts: 2 });
  const userId = await h.newUser(10);
  const submitted = await h.submit.execute({ userId, isAdmin: false, workflow: imageWorkflow() });
  if (!submitted.ok) return t.fail();
  const id = submitted.value.job.id;
  t.deepEqual(await h.run.execute(await h.delivery(id, 1)), { action: 'retry', delaySeconds: 1 });
  t.is((await h.jobs.findById(id))!.status, 'running');
  const last = await h.run.execute(await h.delivery(id, 2));
  t.is(last.action, 'dead');
  const job = await h.jobs.findById(id);
  t.is(job!.status, 'failed');
  t.is(job!.error!.code, 'ENGINE.UNAVAILABLE');
});

test('a raw workflow is validated before anything is queued; REQUIRE_TEMPLATE is enforced for non-admins', async (t) => {
  const h = generationHarness();
  const userId = await h.newUser(0);
  const bad = await h.submit.execute({ userId, isAdmin: false, workflow: { '1': { class_type: 'SaveImage', inputs: { images: ['9', 0] } } } });
  t.is(!bad.ok && bad.code, 'VALIDATION.FAILED');
  t.true(!bad.ok && bad.details!.some((d) => d.field === 'workflow.1.inputs.images'));
  const none = await h.submit.execute({ userId, isAdmin: false });
  t.is(!none.ok && none.details![0]!.field, 'workflow');
  t.is((await h.outbox.pending(10)).length, 0);
});

test('refundJob gives a payment back once however many callers race for it', async (t) => {
  const { refundJob } = await import('../../core/use-cases/generation/refunds.ts');
  const h = generationHarness();
  const userId = await h.newUser(10);
  const template = colorTemplate(4);
  h.templates.set(template.id, template);
  const submitted = await h.submit.execute({ userId, isAdmin: false, templateId: template.id });
  if (!submitted.ok) return t.fail();
  const deps = { jobs: h.jobs, ledger: h.ledger, claims: h.claims, uow: { run: <T>(work: () => Promise<T>) => work() }, ids: { newId: () => randomUUID() }, clock: { now: () => new Date() } };
  const refunded = await Promise.all(Array.from({ length: 5 }, () => refundJob(deps, submitted.value.job.id)));
  t.deepEqual(refunded.sort(), [0, 0, 0, 0, 4]);
  t.is(await h.balance(userId), 10);
});
