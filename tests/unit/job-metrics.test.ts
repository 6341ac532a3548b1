import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { JobMetrics } from '../../core/ports/metrics.port.ts';
import type { UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import { failingWorkflow, generationHarness, type HarnessOptions } from '../support/generation-harness.ts';

/** A JobMetrics that writes down every call, as `name:argument,argument` (times come from the harness's clock, which stands still during a run). */
function recorder(): JobMetrics & { calls: string[]; take(): string[] } {
  const calls: string[] = [];
  const note = (name: string) => (...args: unknown[]) => void calls.push(`${name}:${args.map(String).join(',')}`);
  return {
    calls,
    take: () => calls.splice(0),
    jobSubmitted: note('jobSubmitted'),
    jobStarted: note('jobStarted'),
    jobEnded: note('jobEnded'),
    queueWait: note('queueWait'),
    runTime: note('runTime'),
    uploadTime: note('uploadTime'),
    coinsCharged: note('coinsCharged'),
    coinsRefunded: note('coinsRefunded'),
    deadLettered: note('deadLettered'),
    webhookAttempt: note('webhookAttempt'),
  };
}

const harness = async (t: { teardown(fn: () => Promise<void>): void }, options: HarnessOptions) => {
  const h = await generationHarness(options);
  t.teardown(() => h.dispose());
  return h;
};

test('coins are counted by reason once their transaction commits: charges, refused and overpaid requests, failed and cancelled jobs, unclaimed deductions', async (t) => {
  const metrics = recorder();
  const h = await harness(t, { metrics });
  const userId = await h.newUser(50);
  const templateId = await h.addTemplate(3);

  const refused = randomUUID();
  await h.deduct(userId, 1, refused);
  const bad = await h.submit.execute({ userId, role: 'user', templateId, parameters: { color: -5 }, requestId: refused });
  t.false(bad.ok);
  t.deepEqual(metrics.take(), ['coinsCharged:1,image_generation', 'coinsRefunded:1,request_refused']);

  const generous = randomUUID();
  await h.deduct(userId, 10, generous);
  const paid = await h.submit.execute({ userId, role: 'user', templateId, requestId: generous });
  t.true(paid.ok);
  t.deepEqual(metrics.take(), ['coinsCharged:10,image_generation', 'coinsRefunded:7,overpaid', `jobSubmitted:${templateId}`]);

  const cancelled = await h.cancel.execute({ userId, jobId: generous });
  t.true(cancelled.ok);
  t.deepEqual(metrics.take(), ['coinsRefunded:3,job_cancelled', `jobEnded:${templateId},cancelled`]);

  const failing = await h.addTemplate(2, failingWorkflow(), {});
  const submitted = await h.submit.execute({ userId, role: 'user', templateId: failing });
  if (!submitted.ok) return t.fail(JSON.stringify(submitted));
  t.deepEqual(metrics.take(), ['coinsCharged:2,image_generation', `jobSubmitted:${failing}`]);
  t.deepEqual(await h.run.execute(h.delivery(submitted.value.job.id)), { action: 'ack' });
  t.deepEqual(metrics.take(), [`jobStarted:${failing}`, 'queueWait:0', 'runTime:0', 'coinsRefunded:2,job_failed', `jobEnded:${failing},failed`]);

  await h.deduct(userId, 4, randomUUID());
  h.advance(20);
  t.is(await h.sweeper.execute(), 1);
  t.deepEqual(metrics.take(), ['coinsCharged:4,image_generation', 'coinsRefunded:4,unclaimed_deduction']);
});

test('a job that succeeds counts its start, queue wait, run, upload and end; a later attempt counts no queue wait', async (t) => {
  const metrics = recorder();
  const h = await harness(t, { metrics });
  const userId = await h.newUser(10);
  const templateId = await h.addTemplate(3);
  const first = await h.submit.execute({ userId, role: 'user', templateId });
  const second = await h.submit.execute({ userId, role: 'user', templateId });
  if (!first.ok || !second.ok) return t.fail('not submitted');
  metrics.take();
  h.advance(2);
  t.deepEqual(await h.run.execute(h.delivery(first.value.job.id)), { action: 'ack' });
  t.deepEqual(metrics.take(), [`jobStarted:${templateId}`, 'queueWait:120', 'runTime:0', `jobEnded:${templateId},succeeded`, 'uploadTime:0']);
  t.deepEqual(await h.run.execute(h.delivery(second.value.job.id, 2)), { action: 'ack' });
  t.deepEqual(metrics.take(), [`jobStarted:${templateId}`, 'runTime:0', `jobEnded:${templateId},succeeded`, 'uploadTime:0']);
  t.deepEqual(await h.run.execute(h.delivery(first.value.job.id, 2)), { action: 'ack' });
  t.deepEqual(metrics.take(), [], 'a redelivered finished job counts nothing');
});

test('nothing is counted for a transaction that rolls back', async (t) => {
  const metrics = recorder();
  let failNext = false;
  const rollingBack = (inner: UnitOfWork): UnitOfWork => ({
    run: (work) =>
      inner.run(async (tx) => {
        const value = await work(tx);
        if (failNext) throw new Error('the commit failed');
        return value;
      }),
  });
  const h = await harness(t, { metrics, uow: rollingBack });
  const userId = await h.newUser(10);
  const templateId = await h.addTemplate(3);
  failNext = true;
  await t.throwsAsync(h.submit.execute({ userId, role: 'user', templateId }), { message: 'the commit failed' });
  t.is(await h.balance(userId), 10, 'the charge rolled back');
  t.deepEqual(metrics.calls, []);
  failNext = false;
  t.true((await h.submit.execute({ userId, role: 'user', templateId })).ok);
  t.deepEqual(metrics.take(), ['coinsCharged:3,image_generation', `jobSubmitted:${templateId}`]);
});
