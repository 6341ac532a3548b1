/**
 * A page of the job list (GET /generate) and the WebSocket snapshot read each job's outputs and queue estimate together:
 * one read of the outputs for the page, one read of the running jobs, one estimate per template, and only the queued
 * jobs ahead per queued job. The numbers they give are pinned by hand.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { JobRepository } from '../../core/ports/job-repository.port.ts';
import type { HistoryRepository } from '../../core/ports/history-repository.port.ts';
import { JobQueries } from '../../core/use-cases/generation/job-queries.service.ts';
import { QueueEstimates } from '../../core/use-cases/generation/queue-estimates.service.ts';
import { RunEstimates } from '../../core/use-cases/generation/run-estimates.service.ts';
import { openBackend } from '../support/backends.ts';
import { addUser, historyItem, newJob } from '../contract/fixtures.ts';

const T0 = Date.UTC(2030, 0, 1);
const at = (s: number) => new Date(T0 + s * 1000);

/** The repository with a count of each method's calls. */
function counted<T extends object>(target: T): { repo: T; calls: Record<string, number> } {
  const calls: Record<string, number> = {};
  const repo = new Proxy(target, {
    get(object, key, receiver) {
      const value = Reflect.get(object, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls[String(key)] = (calls[String(key)] ?? 0) + 1;
        return (value as (...a: unknown[]) => unknown).apply(object, args);
      };
    },
  });
  return { repo, calls };
}

test('a page of jobs: each job its own outputs and estimate, from one read of the outputs and one of the running jobs', async (t) => {
  const backend = await openBackend('memory');
  t.teardown(() => backend.dispose());
  const { users, jobs: store, history: outputs } = backend.repos;
  const [alice, bob] = [await addUser(users), await addUser(users)];
  const template = randomUUID();
  const job = async (userId: string, s: number, status: 'succeeded' | 'running' | 'queued', runS = 10): Promise<string> => {
    const id = randomUUID();
    if (!(await store.create(newJob(userId, { id, templateId: template, queueTurn: 1, createdAt: at(s) })))) throw new Error('not created');
    if (status === 'queued') return id;
    if (!(await store.transition(id, { to: 'running', runId: randomUUID(), changes: { startedAt: at(s) } }, at(s)))) throw new Error('not started');
    if (status === 'succeeded' && !(await store.transition(id, { to: 'succeeded', changes: { finishedAt: at(s + runS) } }, at(s + runS)))) throw new Error('not finished');
    return id;
  };
  // Alice's two finished jobs (10 s each: the template's estimate), with two outputs and one.
  const s1 = await job(alice, 0, 'succeeded');
  const s2 = await job(alice, 20, 'succeeded');
  for (const [jobId, fileName, s] of [[s1, 'a.png', 10], [s1, 'b.png', 10], [s2, 'c.png', 30]] as const) {
    await outputs.add(historyItem(alice, jobId, { fileName, createdAt: at(s) }));
  }
  // Bob's job running since 96 s (4 s in at 100 s: 6 s left), and his queued job ahead of Alice's three.
  await job(bob, 96, 'running');
  await job(bob, 97, 'queued');
  const q1 = await job(alice, 98, 'queued');
  const q2 = await job(alice, 99, 'queued');
  const q3 = await job(alice, 99.5, 'queued');

  const jobs = counted<JobRepository>(store);
  const history = counted<HistoryRepository>(outputs);
  const queue = new QueueEstimates({ jobs: jobs.repo, estimates: new RunEstimates(jobs.repo), clock: { now: () => at(100) }, slots: 1, order: 'arrival' });
  const queries = new JobQueries({ jobs: jobs.repo, history: history.repo, viewUrl: async (item) => `view/${item.fileName}`, queue });

  const listed = await queries.list({ userId: alice, limit: 20 });
  if (!listed.ok) return t.fail('list failed');
  t.deepEqual(
    listed.value.items.map((view) => [view.id, view.status, view.outputs.map((output) => output.viewUrl), view.position, view.etaSeconds]),
    [
      // One slot: 6 s left of Bob's running job, then 10 s per job ahead, then its own 10 s.
      [q3, 'queued', [], 3, 6 + 30 + 10],
      [q2, 'queued', [], 2, 6 + 20 + 10],
      [q1, 'queued', [], 1, 6 + 10 + 10],
      [s2, 'succeeded', ['view/c.png'], null, null],
      [s1, 'succeeded', ['view/a.png', 'view/b.png'], null, null],
    ],
  );
  // Reads of the list itself, and of what its views need: once each, the jobs ahead of all three queued jobs too.
  t.deepEqual(history.calls, { listForJobs: 1 });
  t.deepEqual(jobs.calls, { listForUser: 1, recentRunTimes: 1, runningWork: 1, queuedAhead: 1 });

  // The snapshot of active jobs gives the same numbers.
  const active = await queries.active(alice);
  t.deepEqual(
    active.map((view) => [view.id, view.position, view.etaSeconds]),
    [
      [q1, 1, 26],
      [q2, 2, 36],
      [q3, 3, 46],
    ],
  );
  // A page without queued jobs does not read the running ones.
  const [before, beforeAhead] = [jobs.calls.runningWork, jobs.calls.queuedAhead];
  const finished = await queries.list({ userId: alice, page: 2, limit: 3 });
  t.true(finished.ok);
  t.is(jobs.calls.runningWork, before);
  t.is(jobs.calls.queuedAhead, beforeAhead, 'nor the jobs ahead');
});
