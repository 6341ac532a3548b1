import test from 'ava';
import type { WorkflowEngine } from '../../core/ports/workflow-engine.port.ts';
import { BACKENDS } from '../support/backends.ts';
import { generationHarness } from '../support/generation-harness.ts';

const tiny = { '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } }, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } } };

/** An engine on which someone cancels the run (Interrupt pressed on a ComfyUI server); `meanwhile` runs first. */
const cancelledOnEngine = (meanwhile: () => Promise<void> = async () => undefined): WorkflowEngine => ({
  run: async () => {
    await meanwhile();
    return { ok: false, error: { code: 'ENGINE.CANCELLED', message: 'Cancelled on ComfyUI server 1 (interrupted there)' }, transient: false };
  },
  check: async () => undefined,
  close: async () => undefined,
});

/** An engine whose run is interrupted though nobody cancelled the job (the engine restarted, say). */
const interruptedOnEngine: WorkflowEngine = {
  run: async () => ({ ok: false, error: { code: 'ENGINE.INTERRUPTED', message: 'Interrupted before SaveImage #2 finished' }, transient: false }),
  check: async () => undefined,
  close: async () => undefined,
};

for (const backend of BACKENDS) {
  test(`[${backend}] a run the engine interrupted while the attempt still holds the job is retried, not failed or refunded`, async (t) => {
    const h = await generationHarness({ backend, engine: interruptedOnEngine });
    t.teardown(() => h.dispose());
    const adminId = await h.newUser(10, 'admin');
    const submitted = await h.submit.execute({ userId: adminId, role: 'admin', workflow: tiny });
    if (!submitted.ok) return t.fail(JSON.stringify(submitted));
    t.like(await h.run.execute(h.delivery(submitted.value.job.id)), { action: 'retry' });
    t.like(await h.repos.jobs.findById(submitted.value.job.id), { status: 'running', refundedCoins: 0, error: null });
    t.is(await h.balance(adminId), 5);
  });

  test(`[${backend}] a run cancelled on the engine ends the job cancelled and refunded once, not retried`, async (t) => {
    const h = await generationHarness({ backend, engine: cancelledOnEngine() });
    t.teardown(() => h.dispose());
    const adminId = await h.newUser(10, 'admin');
    const submitted = await h.submit.execute({ userId: adminId, role: 'admin', workflow: tiny });
    if (!submitted.ok) return t.fail(JSON.stringify(submitted));
    t.deepEqual(await h.run.execute(h.delivery(submitted.value.job.id)), { action: 'ack' });
    t.like(await h.repos.jobs.findById(submitted.value.job.id), { status: 'cancelled', refundedCoins: 5 });
    t.is(await h.balance(adminId), 10);
    t.like((await h.eventsOf(adminId)).find((event) => event.type === 'job.cancelled'), { refunded: 5 });
  });

  test(`[${backend}] a cancel on the engine reported by an attempt that lost the job (taken over meanwhile) changes nothing`, async (t) => {
    let jobId = '';
    const h = await generationHarness({
      backend,
      engine: cancelledOnEngine(async () => {
        // Another delivery took the job over while this attempt's run was going on.
        await h.repos.jobs.transition(jobId, { to: 'running', runId: 'the-other-attempt' }, h.clock.now());
      }),
    });
    t.teardown(() => h.dispose());
    const adminId = await h.newUser(10, 'admin');
    const submitted = await h.submit.execute({ userId: adminId, role: 'admin', workflow: tiny });
    if (!submitted.ok) return t.fail(JSON.stringify(submitted));
    jobId = submitted.value.job.id;
    t.deepEqual(await h.run.execute(h.delivery(jobId)), { action: 'ack' });
    t.like(await h.repos.jobs.findById(jobId), { status: 'running', runId: 'the-other-attempt', refundedCoins: 0 });
    t.is(await h.balance(adminId), 5);
  });
}
