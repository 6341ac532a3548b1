import type { Mutation } from '../mutation.ts';

const DEADLINES_TEST = 'tests/integration/start-deadlines.test.ts';
const JOB_CONTRACT = 'tests/contract/job-repository.test.ts';
const BACKPRESSURE_TEST = 'tests/integration/queue-backpressure.test.ts';
const POSITION_TEST = 'tests/integration/queue-position.test.ts';
const QUEUE_ORDER_UNIT = 'tests/unit/queue-order.test.ts';
const ESTIMATES = 'core/use-cases/generation/queue-estimates.service.ts';
const SUBMIT = 'core/use-cases/generation/submit-generation.use-case.ts';
const FULL_CHECK = '    if (full) return { ...(await this.reject(input.userId, requestId, full.failure)), retryAfterSeconds: full.retryAfterSeconds };\n';

/** Scheduling (ADR 037): start deadlines (the expired status's one way in, the checks that end a job past its deadline, its refund), backpressure, queue position and ETA. */
export const MUTATIONS: Mutation[] = [
  {
    name: 'expired transition: a running job may expire too',
    file: 'core/domain/job.ts',
    find: "  running: ['running', 'succeeded', 'failed', 'cancelled'],",
    replace: "  running: ['running', 'succeeded', 'failed', 'cancelled', 'expired'],",
    tests: [JOB_CONTRACT],
  },
  {
    name: 'deadline at take: no check before starting (an overdue job runs)',
    file: 'core/use-cases/generation/job-lifecycle.service.ts',
    find: "    if (pastStartDeadline(current, at)) return { kind: 'expired', job: (await this.end(tx, jobId, { to: 'expired' })).job };\n",
    replace: '',
    tests: [DEADLINES_TEST],
  },
  {
    name: 'deadline: a job taken exactly at its deadline still runs',
    file: 'core/domain/job.ts',
    find: 'job.startDeadline.getTime() <= now.getTime()',
    replace: 'job.startDeadline.getTime() < now.getTime()',
    tests: [DEADLINES_TEST],
  },
  {
    name: 'SQL deadline sweep: jobs not yet due are listed',
    file: 'adapters/sequelize/sequelize-job-repository.ts',
    find: "{ status: 'queued', start_deadline: { [Op.lte]: now } }",
    replace: "{ status: 'queued', start_deadline: { [Op.ne]: null } }",
    tests: [JOB_CONTRACT, DEADLINES_TEST],
  },
  {
    name: 'SQL deadline sweep: jobs of any status are listed',
    file: 'adapters/sequelize/sequelize-job-repository.ts',
    find: "{ status: 'queued', start_deadline: { [Op.lte]: now } }",
    replace: '{ start_deadline: { [Op.lte]: now } }',
    tests: [JOB_CONTRACT],
  },
  {
    name: 'memory deadline sweep: jobs not yet due are listed',
    file: 'adapters/memory/memory-job-repository.ts',
    find: "job.status === 'queued' && job.startDeadline !== null && job.startDeadline <= now",
    replace: "job.status === 'queued' && job.startDeadline !== null",
    tests: [JOB_CONTRACT, DEADLINES_TEST],
  },
  {
    name: 'refund of expired: an expired job keeps its payment',
    file: 'core/domain/job-payment.ts',
    find: "export const REFUNDED_STATUSES: readonly JobStatus[] = ['failed', 'cancelled', 'expired'];",
    replace: "export const REFUNDED_STATUSES: readonly JobStatus[] = ['failed', 'cancelled'];",
    tests: [DEADLINES_TEST],
  },
  {
    name: 'backpressure: a full queue accepts the submit',
    file: SUBMIT,
    find: FULL_CHECK,
    replace: '',
    tests: [BACKPRESSURE_TEST],
  },
  {
    name: 'backpressure: the queue limit counted one job too many',
    file: SUBMIT,
    find: '    if (queued.total < max) return null;',
    replace: '    if (queued.total <= max) return null;',
    tests: [BACKPRESSURE_TEST],
  },
  {
    name: 'backpressure: checked after the coins moved (the job is charged and created, then refused)',
    file: SUBMIT,
    find: '    const full = await this.queueFull();\n' + FULL_CHECK,
    replace: '',
    also: [{ file: SUBMIT, find: '        return created;\n      });\n', replace: '        return created;\n      });\n      const full = await this.queueFull();\n' + FULL_CHECK.replace('    ', '      ') }],
    tests: [BACKPRESSURE_TEST],
  },
  {
    name: 'deadline: any startDeadlineSeconds accepted',
    file: SUBMIT,
    find: '    if (deadlineSeconds !== null && !isDeadlineSeconds(deadlineSeconds)) {',
    replace: '    if (false) {',
    tests: [DEADLINES_TEST],
  },
  {
    name: 'SQL queue position: jobs of any status counted ahead',
    file: 'adapters/sequelize/sequelize-job-repository.ts',
    find: "    FROM generation_jobs WHERE status = 'queued'\n",
    replace: '    FROM generation_jobs\n',
    tests: [JOB_CONTRACT, POSITION_TEST],
  },
  {
    name: 'memory queue position: jobs after it in the line counted ahead',
    file: 'adapters/memory/memory-job-repository.ts',
    find: 'for (const other of line.slice(0, Math.max(0, place)))',
    replace: 'for (const other of line)',
    tests: [JOB_CONTRACT],
  },
  {
    name: 'ETA: the jobs ahead not shared among the slots',
    file: ESTIMATES,
    find: 'Math.ceil((aheadMs / Math.max(1, this.deps.slots) + own) / 1000)',
    replace: 'Math.ceil((aheadMs + own) / 1000)',
    tests: [POSITION_TEST],
  },
  {
    name: 'ETA: a running job given a queue position',
    file: ESTIMATES,
    find: "    if (job.status === 'running') {",
    replace: '    if (false) {',
    tests: [POSITION_TEST],
  },
  {
    name: 'ETA: finished jobs estimated too',
    file: ESTIMATES,
    find: "    if (job.status !== 'queued' && job.status !== 'running') return { position: null, etaSeconds: null };\n",
    replace: '',
    tests: [POSITION_TEST],
  },
  {
    name: "run estimate: no fallback to every template's median",
    file: 'core/use-cases/generation/run-estimates.service.ts',
    find: '    return own ?? median(await this.jobs.recentRunTimes(null, RUN_SAMPLE));',
    replace: '    return own;',
    tests: ['tests/unit/run-estimates.test.ts', POSITION_TEST],
  },
  {
    name: 'SQL announced position: the same position announced again',
    file: 'adapters/sequelize/sequelize-job-repository.ts',
    find: "const where: WhereOptions<JobRow> = { id, status: 'queued', [Op.or]: [{ announced_position: null }, { announced_position: { [Op.ne]: position } }] };",
    replace: "const where: WhereOptions<JobRow> = { id, status: 'queued' };",
    tests: [JOB_CONTRACT, POSITION_TEST],
  },
  {
    name: 'memory announced position: a job not queued announced',
    file: 'adapters/memory/memory-job-repository.ts',
    find: "if (this.jobs.get(id)?.status !== 'queued' || this.announced.get(id) === position) return false;",
    replace: 'if (this.announced.get(id) === position) return false;',
    tests: [JOB_CONTRACT],
  },
  {
    name: 'job.queue: an event sent on every pass, changed or not',
    file: 'core/use-cases/generation/announce-queue-positions.use-case.ts',
    find: '          if (!(await tx.jobs.announcePosition(jobId, position))) continue;\n',
    replace: '          await tx.jobs.announcePosition(jobId, position);\n',
    tests: [POSITION_TEST],
  },
  {
    name: 'queue order: the database queue counts positions in arrival order (not owners in turn)',
    file: 'bootstrap/modules/generation.module.ts',
    find: "order: config.queue.driver === 'db' ? 'owner-turns' : 'arrival' });",
    replace: "order: 'arrival' });",
    tests: [POSITION_TEST],
  },
  {
    name: 'queue order: RabbitMQ and SQS count positions with owners in turn (not FIFO)',
    file: 'bootstrap/modules/generation.module.ts',
    find: "order: config.queue.driver === 'db' ? 'owner-turns' : 'arrival' });",
    replace: "order: 'owner-turns' });",
    tests: [POSITION_TEST],
  },
  {
    name: 'queue order: arrival order is served in turns',
    file: 'core/domain/queue-order.ts',
    find: "  if (order === 'arrival') return arrived;\n",
    replace: '',
    tests: [QUEUE_ORDER_UNIT, POSITION_TEST],
  },
  {
    name: 'queue order: SQL queuedAhead ignores the order asked for (always turns)',
    file: 'adapters/sequelize/sequelize-job-repository.ts',
    find: "order === 'arrival' ? ARRIVED_AHEAD : TURNS_AHEAD",
    replace: 'TURNS_AHEAD',
    tests: [JOB_CONTRACT],
  },
  {
    name: 'queue order: SQL queuedAhead ignores the order asked for (always arrival)',
    file: 'adapters/sequelize/sequelize-job-repository.ts',
    find: "order === 'arrival' ? ARRIVED_AHEAD : TURNS_AHEAD",
    replace: 'ARRIVED_AHEAD',
    tests: [JOB_CONTRACT],
  },
  {
    name: 'queue order: memory queuedAhead ignores the order asked for',
    file: 'adapters/memory/memory-job-repository.ts',
    find: "=== 'queued'), order);",
    replace: "=== 'queued'), 'arrival');",
    tests: [JOB_CONTRACT],
  },
  {
    name: 'queue order: the announcer counts places in the order given, not the queue order',
    file: 'core/use-cases/generation/queue-estimates.service.ts',
    find: 'of serveOrder(queue, this.deps.order).entries()',
    replace: 'of [...queue].entries()',
    tests: [QUEUE_ORDER_UNIT],
  },
  {
    name: 'SQL arrival position: jobs of any status counted ahead',
    file: 'adapters/sequelize/sequelize-job-repository.ts',
    find: "  WHERE status = 'queued' AND (created_at < :createdAt",
    replace: '  WHERE (created_at < :createdAt',
    tests: [JOB_CONTRACT],
  },
  {
    name: 'SQL arrival position: a job no longer queued still given a place',
    file: 'adapters/sequelize/sequelize-job-repository.ts',
    find: "    AND EXISTS (SELECT 1 FROM generation_jobs me WHERE me.id = :id AND me.status = 'queued')\n",
    replace: '',
    tests: [JOB_CONTRACT],
  },
];
