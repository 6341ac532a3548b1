import test from 'ava';
import type { Logger } from '../../core/ports/logger.port.ts';
import type { DeliveredMessage } from '../../core/ports/queue.port.ts';
import type { UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import type { JobRepository } from '../../core/ports/job-repository.port.ts';
import { ExpireOverdueJobs } from '../../core/use-cases/generation/expire-overdue-jobs.use-case.ts';
import { FailDeadLetteredJob } from '../../core/use-cases/generation/fail-dead-lettered-job.use-case.ts';
import type { JobLifecycle } from '../../core/use-cases/generation/job-lifecycle.service.ts';

// The two sweeps that end a job without running it (a dead-lettered message, a missed start deadline): what they
// ask of the lifecycle (whose guarded transition decides, and refunds), and what they do with its answer.

const JOB = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const uow = { run: (work: (tx: unknown) => Promise<unknown>) => work({ tx: true }) } as unknown as UnitOfWork;

const recordingLogger = () => {
  const lines: [string, string, Record<string, unknown> | undefined][] = [];
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) => void lines.push([level, message, fields]);
  return { lines, logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error'), child: () => undefined } as unknown as Logger };
};

const message = (body: unknown): DeliveredMessage => ({ id: 'm1', taskType: 'generation', environment: 'test', body, attempt: 3, extendVisibility: async () => undefined });

const deadLetters = (ended: boolean, options: { cancelFails?: boolean } = {}) => {
  const ends: [string, unknown][] = [];
  const cancels: string[] = [];
  const lifecycle = { end: async (_tx: unknown, jobId: string, ending: unknown) => (ends.push([jobId, ending]), { ended, refunded: ended ? 5 : 0 }) } as unknown as JobLifecycle;
  const { lines, logger } = recordingLogger();
  const requestCancel = async (jobId: string) => {
    cancels.push(jobId);
    if (options.cancelFails) throw new Error('bus down');
  };
  return { ends, cancels, lines, useCase: new FailDeadLetteredJob({ uow, lifecycle, logger, requestCancel }) };
};

// Pins: a dead-lettered job ends failed (the lifecycle refunds it) and any attempt still running is told to stop;
// a job that had already ended is left alone, with no cancel sent; a message that names no job touches nothing.
test('a dead letter ends its job failed and cancels a running attempt; an ended job and a message without a job are left alone', async (t) => {
  const live = deadLetters(true);
  await live.useCase.execute(message({ jobId: JOB.toUpperCase() }), 'handler gave up');
  t.deepEqual(live.ends, [[JOB, { to: 'failed', error: { code: 'JOB.DEAD_LETTERED', message: 'Gave up on this job: handler gave up' } }]]);
  t.deepEqual(live.cancels, [JOB]);
  t.like(live.lines.find(([, text]) => text === 'dead-lettered job failed and refunded')?.[2], { jobId: JOB, refunded: 5 });

  const done = deadLetters(false);
  await done.useCase.execute(message({ jobId: JOB }), 'consumers kept dying');
  t.is(done.ends.length, 1);
  t.deepEqual(done.cancels, [], 'no cancel for a job that had already ended');
  t.deepEqual(done.lines, []);

  const none = deadLetters(true);
  await none.useCase.execute(message({ text: 'not a generation' }), 'x');
  t.deepEqual([none.ends, none.cancels], [[], []]);
});

// Pins: a cancel that cannot be sent does not fail the dead-lettering (which would hand the message back to run this
// again); it is logged.
test('a cancel that cannot be sent is logged, and the dead letter still goes through', async (t) => {
  const failing = deadLetters(true, { cancelFails: true });
  await t.notThrowsAsync(failing.useCase.execute(message({ jobId: JOB }), 'gave up'));
  t.like(failing.lines.find(([, text]) => text === 'cancel not broadcast')?.[2], { jobId: JOB, error: 'Error: bus down' });
});

test('the start-deadline sweep counts and logs only the jobs it ended', async (t) => {
  const listed = ['a', 'b', 'c'].map((id) => ({ id }));
  const endsWith = (ended: Record<string, boolean>) => {
    const { lines, logger } = recordingLogger();
    const calls: unknown[] = [];
    const lifecycle = { end: async (_tx: unknown, jobId: string, ending: unknown) => (calls.push([jobId, ending]), { ended: ended[jobId] ?? false, refunded: 0 }) } as unknown as JobLifecycle;
    const jobs = { listPastStartDeadline: async (_at: Date, max: number) => listed.slice(0, max) } as unknown as JobRepository;
    return { lines, calls, sweep: new ExpireOverdueJobs({ uow, jobs, lifecycle, clock: { now: () => new Date(0) }, logger }) };
  };
  const some = endsWith({ a: true, c: true });
  t.is(await some.sweep.execute(), 2, 'b was taken by a worker meanwhile');
  t.deepEqual(some.calls, [['a', { to: 'expired' }], ['b', { to: 'expired' }], ['c', { to: 'expired' }]]);
  t.deepEqual(some.lines.map(([level, text, fields]) => [level, text, fields]), [['info', 'queued jobs expired past their start deadline', { count: 2 }]]);
  const none = endsWith({});
  t.is(await none.sweep.execute(), 0);
  t.deepEqual(none.lines, [], 'nothing logged when nothing expired');
  t.is(await endsWith({ a: true, b: true, c: true }).sweep.execute(1), 1, 'at most max jobs a pass');
});
