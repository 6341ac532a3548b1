import { randomUUID } from 'node:crypto';
import test from 'ava';
import { InProcessEventBus } from '../../adapters/memory/in-process-event-bus.ts';
import { JOB_CONTROL_CHANNEL } from '../../core/ports/user-events.port.ts';
import { JobControl } from '../../core/use-cases/generation/job-control.service.ts';

/** A JobControl on a real in-process bus, and a way to wait until every message published so far was handled. */
const setup = async (t: { teardown(fn: () => Promise<void>): void }) => {
  const bus = new InProcessEventBus();
  const control = new JobControl(bus);
  await control.start();
  t.teardown(() => control.stop());
  /** The bus delivers in publish order: once a probe job's cancel arrived, every earlier message did too. */
  const settled = async (): Promise<void> => {
    const probe = randomUUID();
    const arrived = new Promise<void>((resolve) => control.onCancel(probe, resolve));
    await control.requestCancel(probe);
    await arrived;
  };
  return { bus, control, settled };
};

// Pins: when an attempt ends after a newer attempt of the same job registered in this process, the newer one stays cancellable.
test('an earlier attempt unregistering does not remove the hook of the attempt that took the job over', async (t) => {
  const { control, settled } = await setup(t);
  const jobId = randomUUID();
  const aborted: string[] = [];
  const unregisterOld = control.onCancel(jobId, () => aborted.push('old'));
  const unregisterNew = control.onCancel(jobId, () => aborted.push('new'));
  unregisterOld();
  await control.requestCancel(jobId);
  await settled();
  t.deepEqual(aborted, ['new'], "the cancel reaches the newer attempt's engine call");
  unregisterNew();
  await control.requestCancel(jobId);
  await settled();
  t.deepEqual(aborted, ['new'], 'once unregistered, nothing is aborted');
});

// Pins: only a cancel of that very job aborts a running attempt (another job's cancel or another kind of message does not).
test("only a cancel message for the job aborts it: another job's cancel or another message on the channel does not", async (t) => {
  const { bus, control, settled } = await setup(t);
  const jobId = randomUUID();
  let aborted = 0;
  control.onCancel(jobId, () => (aborted += 1));
  await control.requestCancel(randomUUID());
  await bus.publish(JOB_CONTROL_CHANNEL, { type: 'progress', jobId });
  await bus.publish(JOB_CONTROL_CHANNEL, { jobId });
  await bus.publish(JOB_CONTROL_CHANNEL, { type: 'cancel', jobId: 42 });
  await settled();
  t.is(aborted, 0);
  await control.requestCancel(jobId);
  await settled();
  t.is(aborted, 1);
});
