/**
 * Start deadlines (ADR 037) on every backend, through the generation use cases with the real builtin engine: a
 * queued job not started by its deadline ends `expired` and is refunded once, whether a worker takes it (checked
 * before starting: it never runs) or the sweep finds it first, and also when the two race.
 */
import test, { type ExecutionContext } from 'ava';
import type { UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import { setTimeout as delay } from 'node:timers/promises';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';
import { BACKENDS } from '../support/backends.ts';
import { DATABASES } from '../support/databases.ts';
import { RAW_COST, schedulingApp, submitRaw } from '../support/scheduling-app.ts';
import { generationHarness, type Harness, type HarnessOptions } from '../support/generation-harness.ts';

const PRICE = 5;

async function setup(t: ExecutionContext, options: HarnessOptions) {
  const h = await generationHarness(options);
  t.teardown(() => h.dispose());
  const userId = await h.newUser(20);
  const templateId = await h.addTemplate(PRICE);
  return { h, userId, templateId };
}

async function submitWithDeadline(h: Harness, userId: string, templateId: string, startDeadlineSeconds: number): Promise<string> {
  const submitted = await h.submit.execute({ userId, role: 'user', templateId, parameters: { color: 1 }, startDeadlineSeconds });
  if (!submitted.ok) throw new Error(`submit refused: ${submitted.code}`);
  return submitted.value.job.id;
}

/** The job's refunds in the user's ledger (generation_refund rows related to it). */
const refundsOf = async (h: Harness, userId: string, jobId: string) => (await h.ledgerOf(userId)).filter((row) => row.reason === 'generation_refund' && row.relatedEntityId === jobId).map((row) => row.amount);

/** The expired job's outcome, the same however it expired: refunded once, announced once, never started. */
async function assertExpiredOnce(t: ExecutionContext, h: Harness, userId: string, jobId: string, balance = 20) {
  const job = (await h.repos.jobs.findById(jobId))!;
  t.is(job.status, 'expired');
  t.is(job.refundedCoins, PRICE);
  t.is(job.startedAt, null);
  t.is(job.attempts, 0);
  t.is(await h.balance(userId), balance);
  t.deepEqual(await refundsOf(h, userId, jobId), [PRICE]);
  const events = (await h.eventsOf(userId)).filter((event) => event.jobId === jobId).map((event) => event.type === 'job.expired' ? { type: event.type, refunded: event.refunded } : { type: event.type });
  t.deepEqual(events, [{ type: 'job.queued' }, { type: 'job.expired', refunded: PRICE }]);
  t.deepEqual(await h.repos.history.listForUser(userId, { page: 1, limit: 10 }).then((page) => page.total), 0);
}

for (const backend of BACKENDS) {
  test(`[${backend}] a job taken after its start deadline is ended expired and refunded, and never runs`, async (t) => {
    const { h, userId, templateId } = await setup(t, { backend });
    const jobId = await submitWithDeadline(h, userId, templateId, 60);
    t.is(await h.balance(userId), 20 - PRICE);
    t.deepEqual((await h.repos.jobs.findById(jobId))!.startDeadline, new Date(h.clock.now().getTime() + 60_000));
    h.advance(1); // exactly at the deadline: too late
    t.deepEqual(await h.run.execute(h.delivery(jobId)), { action: 'ack' });
    await assertExpiredOnce(t, h, userId, jobId);
    t.deepEqual(await h.run.execute(h.delivery(jobId, 2)), { action: 'ack' }, 'a redelivery changes nothing');
    await assertExpiredOnce(t, h, userId, jobId);
  });

  test(`[${backend}] a job taken before its start deadline runs and keeps its payment`, async (t) => {
    const { h, userId, templateId } = await setup(t, { backend });
    const jobId = await submitWithDeadline(h, userId, templateId, 60);
    h.advance(59 / 60);
    t.deepEqual(await h.run.execute(h.delivery(jobId)), { action: 'ack' });
    t.is((await h.repos.jobs.findById(jobId))!.status, 'succeeded');
    t.is(await h.balance(userId), 20 - PRICE);
    h.advance(5);
    t.is(await h.expire.execute(), 0, 'a started job never expires');
  });

  test(`[${backend}] the sweep expires jobs still queued past their deadline, once; a later delivery does not run them`, async (t) => {
    const { h, userId, templateId } = await setup(t, { backend });
    const overdue = await submitWithDeadline(h, userId, templateId, 30);
    const inTime = await submitWithDeadline(h, userId, templateId, 600);
    const plain = (await h.submit.execute({ userId, role: 'user', templateId, parameters: { color: 2 } }));
    if (!plain.ok) throw new Error('plain submit refused');
    h.advance(0.25);
    t.is(await h.expire.execute(), 0, 'not yet due');
    h.advance(0.5);
    t.is(await h.expire.execute(), 1);
    t.is(await h.expire.execute(), 0, 'the next sweep finds nothing');
    t.is((await h.repos.jobs.findById(inTime))!.status, 'queued');
    t.is((await h.repos.jobs.findById(plain.value.job.id))!.status, 'queued');
    t.deepEqual(await h.run.execute(h.delivery(overdue)), { action: 'ack' });
    await assertExpiredOnce(t, h, userId, overdue, 20 - 2 * PRICE);
  });

  test(`[${backend}] take and sweep racing on one overdue job: it is expired and refunded exactly once`, async (t) => {
    // The race, injected: the sweep has listed the job; before its transaction runs, a worker takes the same job.
    let beforeNextUnitOfWork: (() => Promise<unknown>) | null = null;
    const racing = (inner: UnitOfWork): UnitOfWork => ({
      ...inner,
      run: async (work) => {
        const hook = beforeNextUnitOfWork;
        beforeNextUnitOfWork = null;
        if (hook) await hook();
        return inner.run(work);
      },
    });
    const { h, userId, templateId } = await setup(t, { backend, uow: racing });
    const jobId = await submitWithDeadline(h, userId, templateId, 10);
    h.advance(1);
    let took: unknown = null;
    beforeNextUnitOfWork = async () => (took = await h.run.execute(h.delivery(jobId)));
    t.is(await h.expire.execute(), 0, 'the worker expired it first: the sweep writes nothing');
    t.deepEqual(took, { action: 'ack' });
    await assertExpiredOnce(t, h, userId, jobId);

    // And truly at once (on MariaDB, on two connections): still once.
    const second = await submitWithDeadline(h, userId, templateId, 10);
    h.advance(1);
    const [taken, swept] = await Promise.all([h.run.execute(h.delivery(second)), h.expire.execute()]);
    t.deepEqual(taken, { action: 'ack' });
    t.true(swept === 0 || swept === 1);
    await assertExpiredOnce(t, h, userId, second);
  });
}

for (const db of DATABASES) {
  test(`[${db}] POST /generate takes startDeadlineSeconds (1 to 86400), shows startDeadline, and the scheduled sweep expires the job`, async (t) => {
    const { app, user } = await schedulingApp(t, db);
    for (const bad of [0, 86_401, 1.5, '60']) {
      const refused = await submitRaw(user, { startDeadlineSeconds: bad });
      t.is(refused.status, 400, `startDeadlineSeconds ${JSON.stringify(bad)}`);
      t.deepEqual(refused.body.details, [{ field: 'startDeadlineSeconds', message: 'must be an integer from 1 to 86400' }]);
    }
    t.is((await user.get('/auth/profile')).body.coinBalance, 100, 'a refused submit charged nothing');
    const submitted = await submitRaw(user, { startDeadlineSeconds: 1 });
    t.is(submitted.status, 202);
    t.is(Date.parse(submitted.body.startDeadline) - Date.parse(submitted.body.createdAt), 1000);
    t.is((await submitRaw(user)).body.startDeadline, null);
    t.is((await user.get('/auth/profile')).body.coinBalance, 100 - 2 * RAW_COST);

    await delay(1100);
    await resolve(app.app.container, TOKENS.Scheduler).runNow('start-deadline-sweep');
    const job = (await user.get(`/generate/${submitted.body.id}`)).body;
    t.like(job, { status: 'expired', statusText: 'Expired before it started', refundedCoins: RAW_COST });
    t.is((await user.get('/auth/profile')).body.coinBalance, 100 - RAW_COST);
    t.is((await user.post(`/generate/${submitted.body.id}/cancel`)).status, 409, 'an expired job is finished');
  });
}
