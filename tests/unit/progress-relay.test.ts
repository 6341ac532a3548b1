/**
 * ProgressRelay on the in-memory adapters: what an attempt's engine events write to the job row and to its owner's
 * event log. Thinned to one progress event per interval (the last step of a bar always goes through), fenced by the
 * attempt's run id, recorded for the job's owner only, and best effort (a failed write does not stop later ones).
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { InProcessEventBus } from '../../adapters/memory/in-process-event-bus.ts';
import type { UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import { UserEventLog } from '../../core/use-cases/events/user-event-log.service.ts';
import { ProgressRelay } from '../../core/use-cases/generation/progress-relay.service.ts';
import { imageWorkflow, quietLogger } from '../support/generation-harness.ts';
import { openBackend } from '../support/backends.ts';

const OWNER = 'owner-1';
const OTHER = 'someone-else';

async function setup(options: { failWrites?: number } = {}) {
  const backend = await openBackend('memory');
  let now = Date.parse('2026-01-01T00:00:00Z');
  const clock = { now: () => new Date(now) };
  const events = new UserEventLog({ bus: new InProcessEventBus(), clock, logger: quietLogger });
  const jobId = randomUUID();
  const runId = randomUUID();
  const { jobs } = backend.repos;
  await jobs.create({
    id: jobId, userId: OWNER, templateId: null, templateVersion: null, status: 'queued', progress: { value: 0, max: 1 }, statusText: '', workflow: imageWorkflow(),
    usedParameters: {}, imageRefs: [], outputType: 'image', paidCoins: 1, testRun: false, startDeadline: null, queueTurn: 1, fitChoices: '', createdAt: clock.now(),
  });
  startedOrThrow(await jobs.transition(jobId, { to: 'running', runId, changes: { attempts: 1, startedAt: clock.now() } }, clock.now()));
  let failures = options.failWrites ?? 0;
  const warnings: string[] = [];
  const uow: UnitOfWork = {
    ...backend.uow,
    run: (work) => {
      if (failures > 0) {
        failures -= 1;
        return Promise.reject(new Error('database unavailable'));
      }
      return backend.uow.run(work);
    },
  } as UnitOfWork;
  const logger = { ...quietLogger, warn: (message: string) => void warnings.push(message) };
  const job = (await jobs.findById(jobId))!;
  const relay = new ProgressRelay({ uow, events, clock, logger, intervalMs: 1000 }, job, runId);
  const recorded = async (userId = OWNER) => (await backend.repos.events.listSince(userId, 0, 100)).map((stored) => stored.event);
  return { backend, relay, jobId, runId, recorded, warnings, advance: (ms: number) => (now += ms), row: () => jobs.findById(jobId) };
}

function startedOrThrow(condition: boolean): void {
  if (!condition) throw new Error('setup: the job did not start');
}

test('progress is thinned to one event per interval; the last step of a bar always goes through', async (t) => {
  const { relay, jobId, recorded, advance, row } = await setup();
  relay.handle({ type: 'progress', value: 1, max: 10, nodeId: '3' });
  relay.handle({ type: 'progress', value: 2, max: 10, nodeId: '3' }); // same instant: dropped
  advance(999);
  relay.handle({ type: 'progress', value: 3, max: 10, nodeId: '3' }); // 999 ms after the last one sent: dropped
  advance(1);
  relay.handle({ type: 'progress', value: 4, max: 10 }); // 1000 ms: sent (no node given, none in the event)
  relay.handle({ type: 'progress', value: 10, max: 10, nodeId: '3' }); // the bar's end: sent at once
  relay.handle({ type: 'executing', nodeId: '4', classType: 'SaveImage' }); // not progress: nothing
  await relay.drain();
  t.deepEqual(await recorded(), [
    { type: 'job.progress', jobId, value: 1, max: 10, node: '3' },
    { type: 'job.progress', jobId, value: 4, max: 10 },
    { type: 'job.progress', jobId, value: 10, max: 10, node: '3' },
  ]);
  t.deepEqual((await row())!.progress, { value: 10, max: 10 });
  t.deepEqual(await recorded(OTHER), [], 'recorded for the owner only');
});

test('status and server reach the job row; status also its owner, ordered with progress', async (t) => {
  const { relay, jobId, recorded, row } = await setup();
  relay.handle({ type: 'status', text: 'Loading model' });
  relay.handle({ type: 'progress', value: 1, max: 2 });
  relay.handle({ type: 'server', server: 2 });
  await relay.drain();
  t.deepEqual(await recorded(), [
    { type: 'job.status', jobId, text: 'Loading model' },
    { type: 'job.progress', jobId, value: 1, max: 2 },
  ]);
  t.like(await row(), { statusText: 'Loading model', engineServer: 2, progress: { value: 1, max: 2 } });
});

test('an attempt that lost the job (another run took it) writes and reports nothing more', async (t) => {
  const { backend, relay, jobId, recorded, row, advance } = await setup();
  relay.handle({ type: 'progress', value: 1, max: 10 });
  await relay.drain();
  const at = new Date(Date.parse('2026-01-01T00:00:01Z'));
  t.true(await backend.repos.jobs.transition(jobId, { to: 'running', runId: randomUUID(), changes: { attempts: 2, statusText: 'Generating', progress: { value: 0, max: 1 } } }, at));
  advance(5000);
  relay.handle({ type: 'progress', value: 2, max: 10 });
  relay.handle({ type: 'status', text: 'stale attempt' });
  relay.handle({ type: 'server', server: 3 });
  await relay.drain();
  t.deepEqual(await recorded(), [{ type: 'job.progress', jobId, value: 1, max: 10 }]);
  const current = (await row())!;
  t.deepEqual(current.progress, { value: 0, max: 1 });
  t.is(current.statusText, 'Generating');
  t.not(current.engineServer, 3);
});

test('a failed write is logged and the writes after it still happen', async (t) => {
  const { relay, jobId, recorded, warnings, advance } = await setup({ failWrites: 1 });
  relay.handle({ type: 'progress', value: 1, max: 10 });
  advance(1000);
  relay.handle({ type: 'progress', value: 2, max: 10 });
  await relay.status('Saving');
  await relay.drain();
  t.deepEqual(await recorded(), [
    { type: 'job.progress', jobId, value: 2, max: 10 },
    { type: 'job.status', jobId, text: 'Saving' },
  ]);
  t.deepEqual(warnings, ['progress not recorded']);
});
