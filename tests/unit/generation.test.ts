import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { WorkflowEngine } from '../../core/ports/workflow-engine.port.ts';
import { failingWorkflow, generationHarness, imageWorkflow, type Harness } from '../support/generation-harness.ts';

const harness = async (t: { teardown(fn: () => Promise<void>): void }, options: Parameters<typeof generationHarness>[0] = {}): Promise<Harness> => {
  const h = await generationHarness(options);
  t.teardown(() => h.dispose());
  return h;
};

const types = (events: { type: string }[]) => events.map((event) => event.type);

test('a template job is charged in its own transaction, runs, stores one history item per file and completes', async (t) => {
  const h = await harness(t);
  const userId = await h.newUser(10);
  const templateId = await h.addTemplate(3);

  const submitted = await h.submit.execute({ userId, role: 'user', templateId, parameters: { color: 0x00ff00 } });
  if (!submitted.ok) return t.fail(JSON.stringify(submitted));
  t.is(submitted.value.job.status, 'queued');
  t.is(submitted.value.job.paidCoins, 3);
  t.is(await h.balance(userId), 7);
  t.deepEqual(submitted.value.job.usedParameters, { color: 0x00ff00 });

  const outcome = await h.run.execute(h.delivery(submitted.value.job.id));
  t.deepEqual(outcome, { action: 'ack' });
  const job = await h.repos.jobs.findById(submitted.value.job.id);
  t.is(job!.status, 'succeeded');
  const items = await h.repos.history.listForJob(job!.id);
  t.is(items.length, 1);
  t.is(items[0]!.mimeType, 'image/png');
  t.is(items[0]!.width, 16);
  t.true((await h.storage.head(items[0]!.storageKey))!.sizeBytes > 0);
  t.true(items[0]!.storageKey.startsWith(`outputs/${userId}/${job!.id}/`));
  t.deepEqual(await h.repos.staged.listForRun(job!.runId!), [], 'nothing left staged');
  const seen = types(await h.eventsOf(userId)).filter((type) => type !== 'job.status' && type !== 'job.progress');
  t.deepEqual(seen, ['job.queued', 'job.started', 'job.output', 'job.completed']);

  // Redelivery of a finished job changes nothing.
  t.deepEqual(await h.run.execute(h.delivery(job!.id, 2)), { action: 'ack' });
  t.is((await h.repos.history.listForJob(job!.id)).length, 1);
  t.is(await h.balance(userId), 7);
});

test('a job that fails on the engine is refunded exactly once, even when the failure is delivered twice', async (t) => {
  const h = await harness(t);
  const userId = await h.newUser(5);
  const templateId = await h.addTemplate(2, failingWorkflow(), {});
  const requestId = randomUUID();
  await h.deduct(userId, 2, requestId);
  const submitted = await h.submit.execute({ userId, role: 'user', templateId, requestId });
  if (!submitted.ok) return t.fail(JSON.stringify(submitted));
  t.is(submitted.value.job.paidCoins, 2, 'paid by the linked deduction');
  t.is(await h.balance(userId), 3);

  t.deepEqual(await h.run.execute(h.delivery(requestId)), { action: 'ack' });
  t.deepEqual(await h.run.execute(h.delivery(requestId, 2)), { action: 'ack' });
  const job = await h.repos.jobs.findById(requestId);
  t.is(job!.status, 'failed');
  t.is(job!.error!.code, 'ENGINE.EXECUTION');
  t.is(job!.error!.nodeId, '4');
  t.is(job!.refundedCoins, 2);
  t.is(await h.balance(userId), 5, 'the 2 coins came back once');
  t.is((await h.ledgerOf(userId)).filter((row) => row.reason === 'generation_refund').length, 1);
  const failed = (await h.eventsOf(userId)).find((event) => event.type === 'job.failed');
  t.is(failed?.type === 'job.failed' && failed.refunded, 2);
  // The claimed deduction is never swept again.
  h.advance(60);
  t.is(await h.sweeper.execute(), 0);
  t.is(await h.balance(userId), 5);
});

test('a repeated requestId returns the existing job and charges nothing more; another user gets 409', async (t) => {
  const h = await harness(t);
  const userId = await h.newUser(10);
  const templateId = await h.addTemplate(4);
  const requestId = randomUUID();
  const first = await h.submit.execute({ userId, role: 'user', templateId, requestId });
  const second = await h.submit.execute({ userId, role: 'user', templateId, requestId: requestId.toUpperCase() });
  t.true(first.ok && first.value.created);
  t.true(second.ok && !second.value.created);
  t.is(await h.balance(userId), 6);
  t.is(await h.pendingMessages(), 1, 'one message only');
  const other = await h.newUser(10);
  const stolen = await h.submit.execute({ userId: other, role: 'user', templateId, requestId });
  t.is(!stolen.ok && stolen.code, 'CONFLICT');
});

// Pins: a requestId must be a UUID (it becomes the job id); anything else is refused, not dropped for a fresh id.
test('a requestId that is not a UUID is refused: no job, no charge, no event', async (t) => {
  const h = await harness(t);
  const userId = await h.newUser(10);
  const templateId = await h.addTemplate(4);
  for (const requestId of ['not-a-uuid', 42, '', `${randomUUID()}x`]) {
    const refused = await h.submit.execute({ userId, role: 'user', templateId, requestId });
    t.is(!refused.ok && refused.code, 'VALIDATION.FAILED', JSON.stringify(requestId));
    t.deepEqual(!refused.ok && refused.details?.map((detail) => detail.field), ['requestId']);
  }
  t.is(await h.balance(userId), 10);
  t.deepEqual((await h.repos.jobs.listForUser(userId, { page: 1, limit: 10 })).items, []);
  t.is(await h.pendingMessages(), 0);
  t.deepEqual(await h.eventsOf(userId), []);
});

test('too few coins is 402 and leaves nothing behind; the linked deduction comes back at once (no key, memory)', async (t) => {
  const h = await harness(t);
  const userId = await h.newUser(2);
  const templateId = await h.addTemplate(3);
  const requestId = randomUUID();
  await h.deduct(userId, 1, requestId);
  t.is(await h.balance(userId), 1);
  const short = await h.submit.execute({ userId, role: 'user', templateId, requestId });
  t.is(!short.ok && short.code, 'COIN.INSUFFICIENT');
  t.is(await h.balance(userId), 2, 'the claim of the linked deduction rolled back with the failed charge, and the deduction was refunded');
  t.is(await h.repos.jobs.findById(requestId), null);
  t.is(await h.pendingMessages(), 0);
  t.deepEqual(types(await h.eventsOf(userId)), [], 'no job.queued for a job that does not exist');
  h.advance(60);
  t.is(await h.sweeper.execute(), 0, 'and never twice');
  t.is(await h.balance(userId), 2);
});

test('a rejected request refunds its linked deduction at once; a deduction above the price comes back at submit', async (t) => {
  const h = await harness(t);
  const userId = await h.newUser(20);
  const templateId = await h.addTemplate(3);
  const bad = randomUUID();
  await h.deduct(userId, 1, bad);
  const refused = await h.submit.execute({ userId, role: 'user', templateId, parameters: { color: -5 }, requestId: bad });
  t.is(!refused.ok && refused.code, 'VALIDATION.FAILED');
  t.is(await h.balance(userId), 20, 'refunded at once');

  const generous = randomUUID();
  await h.deduct(userId, 10, generous.toUpperCase());
  const submitted = await h.submit.execute({ userId, role: 'user', templateId, requestId: generous.toUpperCase() });
  t.true(submitted.ok);
  t.is(submitted.ok && submitted.value.job.paidCoins, 3);
  t.is(await h.balance(userId), 17, 'paid the price once: the 7 above it came back');
});

test('the sweeper refunds a linked deduction no job claimed, but never a job charge', async (t) => {
  const h = await harness(t);
  const userId = await h.newUser(10);
  const templateId = await h.addTemplate(2);
  await h.submit.execute({ userId, role: 'user', templateId });
  await h.deduct(userId, 3, randomUUID());
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
  const h = await harness(t, { engine });
  const userId = await h.newUser(10);
  const templateId = await h.addTemplate(4);
  const submitted = await h.submit.execute({ userId, role: 'user', templateId });
  if (!submitted.ok) return t.fail();
  const work = h.run.execute(h.delivery(submitted.value.job.id));
  await running;
  const cancelled = await h.cancel.execute({ userId, jobId: submitted.value.job.id });
  t.true(cancelled.ok);
  t.is(cancelled.ok && cancelled.value.refundedCoins, 4);
  t.deepEqual(await work, { action: 'ack' });
  t.is((await h.repos.jobs.findById(submitted.value.job.id))!.status, 'cancelled');
  t.is(await h.balance(userId), 10);
  const again = await h.cancel.execute({ userId, jobId: submitted.value.job.id });
  t.is(!again.ok && again.code, 'JOB.FINISHED');
  t.is(await h.balance(userId), 10);
  const other = await h.cancel.execute({ userId: await h.newUser(0), jobId: submitted.value.job.id });
  t.is(!other.ok && other.code, 'NOT_FOUND');
});

test('a transient engine failure is retried with backoff, then fails, refunds and goes to the dead letters', async (t) => {
  const engine: WorkflowEngine = {
    async run() {
      return { ok: false, error: { code: 'ENGINE.UNAVAILABLE', message: 'connection refused' }, transient: true };
    },
    async check() {},
    async close() {},
  };
  const h = await harness(t, { engine, maxAttempts: 2 });
  const userId = await h.newUser(10);
  const templateId = await h.addTemplate(3);
  const submitted = await h.submit.execute({ userId, role: 'user', templateId });
  if (!submitted.ok) return t.fail();
  const id = submitted.value.job.id;
  t.deepEqual(await h.run.execute(h.delivery(id, 1)), { action: 'retry', delaySeconds: 1 });
  t.is((await h.repos.jobs.findById(id))!.status, 'running');
  t.is(await h.balance(userId), 7, 'not refunded while a retry is pending');
  const last = await h.run.execute(h.delivery(id, 2));
  t.is(last.action, 'dead');
  const job = await h.repos.jobs.findById(id);
  t.is(job!.status, 'failed');
  t.is(job!.error!.code, 'ENGINE.UNAVAILABLE');
  t.is(await h.balance(userId), 10);
});

test('raw workflows are priced: a run of a template costs the template, another is refused for users and costs admins RAW_WORKFLOW_COST', async (t) => {
  const h = await harness(t, { rawWorkflows: { roles: ['admin'], cost: 7 } });
  const userId = await h.newUser(20);
  const adminId = await h.newUser(20, 'admin');
  await h.addTemplate(3);

  const conforming = await h.submit.execute({ userId, role: 'user', workflow: imageWorkflow(0x123456) });
  t.true(conforming.ok, JSON.stringify(conforming));
  t.is(conforming.ok && conforming.value.job.paidCoins, 3);
  t.is(conforming.ok && conforming.value.job.templateId !== null, true);
  t.is(await h.balance(userId), 17);

  const foreign = { '1': { class_type: 'EmptyImage', inputs: { width: 4, height: 4, batch_size: 1, color: 0 } }, '2': { class_type: 'PreviewImage', inputs: { images: ['1', 0] } }, '3': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'raw' } } };
  const refused = await h.submit.execute({ userId, role: 'user', workflow: foreign });
  t.is(!refused.ok && refused.code, 'VALIDATION.FAILED');
  t.is(!refused.ok && refused.details?.[0]?.field, 'workflow');
  t.is(await h.balance(userId), 17);

  const admin = await h.submit.execute({ userId: adminId, role: 'admin', workflow: foreign });
  t.true(admin.ok);
  t.is(admin.ok && admin.value.job.paidCoins, 7);
  t.is(await h.balance(adminId), 13);

  const invalid = await h.submit.execute({ userId, role: 'user', workflow: { '1': { class_type: 'SaveImage', inputs: { images: ['9', 0] } } } });
  t.true(!invalid.ok && invalid.details!.some((d) => d.field === 'workflow.1.inputs.images'));
  const none = await h.submit.execute({ userId, role: 'user' });
  t.is(!none.ok && none.details![0]!.field, 'workflow');
});

test('a refund is made once however many transactions race for it', async (t) => {
  const h = await harness(t);
  const userId = await h.newUser(10);
  const templateId = await h.addTemplate(4);
  const submitted = await h.submit.execute({ userId, role: 'user', templateId });
  if (!submitted.ok) return t.fail();
  const id = submitted.value.job.id;
  // Finished without its refund (as a job from before the lifecycle was one transaction could be).
  await h.repos.jobs.transition(id, { to: 'failed', changes: { finishedAt: h.clock.now() } }, h.clock.now());
  const refunded = await Promise.all(
    Array.from({ length: 5 }, () => h.uow.run(async (tx) => h.payment.refundJob(tx, (await tx.jobs.findById(id))!, h.clock.now()))),
  );
  t.deepEqual(refunded.sort(), [0, 0, 0, 0, 4]);
  t.is(await h.balance(userId), 10);
});

// Pins that a failure of what joins the submit (the idempotency response, say) reaches the caller as itself: the
// route tells a lost idempotency claim (409) from a broken database (500) by the error it gets.
test('an error thrown by what joins the submit is thrown as itself, and nothing is charged or queued', async (t) => {
  const h = await harness(t);
  const userId = await h.newUser(10);
  const templateId = await h.addTemplate(3);
  class ClaimTakenOver extends Error {}
  const thrown = await t.throwsAsync(h.submit.execute({ userId, role: 'user', templateId, alsoCommit: async () => { throw new ClaimTakenOver('the claim was taken over'); } }));
  t.true(thrown instanceof ClaimTakenOver);
  t.is(await h.balance(userId), 10);
  t.is(await h.pendingMessages(), 0);
});
