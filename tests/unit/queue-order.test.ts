/** The order queues hand out waiting jobs (core/domain/queue-order.ts), pinned by hand, and the announcer's positions in it. */
import test from 'ava';
import { serveOrder, type QueueOrder } from '../../core/domain/queue-order.ts';
import { QueueEstimates } from '../../core/use-cases/generation/queue-estimates.service.ts';
import type { RunEstimates } from '../../core/use-cases/generation/run-estimates.service.ts';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
/**
 * id, owner, second of creation, turn stored at submit (1 + the owner's queued and running jobs then); listed out of
 * order on purpose. B had two jobs running when it sent b1; A's a1 had started when it sent a0, so a0 shares a2's turn.
 */
const JOBS = [
  { id: 'a3', userId: 'A', createdAt: at(5), queueTurn: 3, templateId: null, fitChoices: '' },
  { id: 'b1', userId: 'B', createdAt: at(3), queueTurn: 3, templateId: null, fitChoices: '' },
  { id: 'a1', userId: 'A', createdAt: at(1), queueTurn: 1, templateId: null, fitChoices: '' },
  { id: 'c1', userId: 'C', createdAt: at(9), queueTurn: 1, templateId: null, fitChoices: '' },
  { id: 'a2', userId: 'A', createdAt: at(2), queueTurn: 2, templateId: null, fitChoices: '' },
  { id: 'b2', userId: 'B', createdAt: at(5), queueTurn: 4, templateId: null, fitChoices: '' },
  { id: 'a0', userId: 'A', createdAt: at(5), queueTurn: 2, templateId: null, fitChoices: '' },
];

const ORDERS: Record<QueueOrder, string[]> = {
  // Creation time, the lower id first at the same instant (a0 < a3 < b2 at second 5).
  arrival: ['a1', 'a2', 'b1', 'a0', 'a3', 'b2', 'c1'],
  // By stored turn, each turn in arrival order. Turn 1: a1@1, c1@9; turn 2: a2@2, a0@5; turn 3: b1@3, a3@5; turn 4: b2@5.
  'owner-turns': ['a1', 'c1', 'a2', 'a0', 'b1', 'a3', 'b2'],
};

for (const [order, expected] of Object.entries(ORDERS) as [QueueOrder, string[]][]) {
  test(`serveOrder ${order}: pinned`, (t) => {
    const before = JOBS.map((job) => job.id);
    t.deepEqual(serveOrder(JOBS, order).map((job) => job.id), expected);
    t.deepEqual(JOBS.map((job) => job.id), before, 'the input is left alone');
  });

  test(`QueueEstimates.ofQueue ${order}: positions are places in that order, whatever order the jobs are given in`, async (t) => {
    const estimates = { runs: async () => [1_000] } as unknown as RunEstimates;
    const queue = new QueueEstimates({ jobs: { queuedAhead: async (jobs: readonly unknown[]) => jobs.map(() => []) }, estimates, clock: { now: () => at(0) }, slots: 1, order });
    const positions = await queue.ofQueue(JOBS);
    t.deepEqual(Object.fromEntries(positions.map((p) => [p.jobId, p.position])), Object.fromEntries(expected.map((id, i) => [id, i])));
    t.deepEqual(positions.map((p) => p.etaSeconds), [1, 2, 3, 4, 5, 6, 7], 'each ETA adds the run estimates ahead (1 s each, one slot)');
  });
}
