/**
 * ADR 043 on the in-memory adapters: StartTestRun is the one path to a job nobody pays for, so it refuses anyone but
 * an administrator whatever the route in front of it checks; an administrator's run of a draft goes through the
 * worker like any job, moves no coin when it succeeds or fails, and stays out of the job list and output history.
 */
import test from 'ava';
import { failingWorkflow, generationHarness, type Harness } from '../support/generation-harness.ts';

const harness = async (t: { teardown(fn: () => Promise<void>): void }, options: Parameters<typeof generationHarness>[0] = {}): Promise<Harness> => {
  const h = await generationHarness(options);
  t.teardown(() => h.dispose());
  return h;
};

test('a user (not an administrator) is refused: no job, no queue message, no coin moved, nothing audited', async (t) => {
  const h = await harness(t);
  const userId = await h.newUser(10);
  const draft = await h.addTemplate(3, undefined, undefined, null);
  const refused = await h.testRun.execute({ userId, role: 'user', templateId: draft, parameters: { color: 1 } });
  t.like(refused, { ok: false, code: 'AUTH.FORBIDDEN' });
  t.is((await h.repos.jobs.listTestRuns(draft, 10)).length, 0);
  t.is((await h.repos.jobs.listForUser(userId, { page: 1, limit: 10 })).total, 0);
  t.is(await h.pendingMessages(), 0);
  t.is(await h.balance(userId), 10);
  t.is((await h.ledgerOf(userId)).length, 1, 'the signup bonus only');
  t.is((await h.repos.audit.list({ page: 1, limit: 10 })).total, 0);
});

test("an administrator's test run of a draft runs, moves no coin, and is in neither job list nor history; a failing one refunds nothing", async (t) => {
  const h = await harness(t);
  const adminId = await h.newUser(10, 'admin');
  const draft = await h.addTemplate(3, undefined, undefined, null);
  const started = await h.testRun.execute({ userId: adminId, role: 'admin', templateId: draft, parameters: { color: 0x00ff00 } });
  if (!started.ok) return t.fail(JSON.stringify(started));
  t.like(started.value, { status: 'queued', testRun: true, paidCoins: 0, templateId: draft });
  t.deepEqual(await h.run.execute(h.delivery(started.value.id)), { action: 'ack' });
  t.like(await h.repos.jobs.findById(started.value.id), { status: 'succeeded', paidCoins: 0, refundedCoins: 0 });
  t.is((await h.repos.history.listForJob(started.value.id)).length, 1);
  t.is((await h.repos.history.listForUser(adminId, { page: 1, limit: 10 })).total, 0);
  t.is((await h.repos.jobs.listForUser(adminId, { page: 1, limit: 10 })).total, 0);
  t.is(await h.balance(adminId), 10);
  t.is((await h.ledgerOf(adminId)).length, 1);

  const broken = await h.addTemplate(4, failingWorkflow(), {}, null);
  const failing = await h.testRun.execute({ userId: adminId, role: 'admin', templateId: broken, parameters: {} });
  if (!failing.ok) return t.fail(JSON.stringify(failing));
  await h.run.execute(h.delivery(failing.value.id));
  t.like(await h.repos.jobs.findById(failing.value.id), { status: 'failed', paidCoins: 0, refundedCoins: 0 });
  t.is(await h.balance(adminId), 10);
  t.is((await h.ledgerOf(adminId)).length, 1);
  t.deepEqual((await h.repos.audit.list({ page: 1, limit: 10 })).items.map((entry) => [entry.action, entry.details.jobId]).reverse(), [
    ['template.test_run', started.value.id],
    ['template.test_run', failing.value.id],
  ]);
});

test("test runs count towards the administrator's active jobs: past MAX_ACTIVE_JOBS_PER_USER one is refused with Retry-After, and nothing is written", async (t) => {
  const h = await harness(t, { maxActiveJobsPerUser: 1 });
  const adminId = await h.newUser(0, 'admin');
  const draft = await h.addTemplate(3, undefined, undefined, null);
  const first = await h.testRun.execute({ userId: adminId, role: 'admin', templateId: draft, parameters: {} });
  t.true(first.ok);
  const second = await h.testRun.execute({ userId: adminId, role: 'admin', templateId: draft, parameters: {} });
  t.like(second, { ok: false, code: 'JOB.TOO_MANY_ACTIVE', retryAfterSeconds: 10 });
  t.is((await h.repos.jobs.listTestRuns(draft, 10)).length, 1);
  t.is((await h.repos.audit.list({ page: 1, limit: 10 })).total, 1);
  t.like(await h.testRun.execute({ userId: adminId, role: 'admin', templateId: 'not-a-uuid' }), { ok: false, code: 'NOT_FOUND' });
});
