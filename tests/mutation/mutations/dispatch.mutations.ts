import type { Mutation } from '../mutation.ts';

const POLICY = 'core/domain/dispatch-policy.ts';
const POOL = 'adapters/comfyui/comfy-pool.ts';
const ENGINE = 'adapters/comfyui/comfy-engine.ts';
const SLOT_WAIT = 'core/use-cases/generation/engine-slot-wait.service.ts';
const RUN = 'core/use-cases/generation/run-generation.use-case.ts';
const POLICY_TABLE = 'tests/unit/dispatch-policy.test.ts';
const DISPATCH_TEST = 'tests/integration/comfyui-dispatch.test.ts';
const SLOT_WAIT_TEST = 'tests/integration/dispatch-slot-wait.test.ts';

/**
 * Fair and model-aware dispatch (ADR 044): the policy's round robin, its preference for loaded models and its bound;
 * the pool's bookkeeping of both and its use of the policy; the wait for a slot before a job starts (still queued,
 * ended by a cancel or the start deadline) and the run that uses that slot. The capability filter the dispatch
 * still applies is "fleet: comfyui jobs go to any server, whatever its catalogue" in engines-and-templates.
 */
export const MUTATIONS: Mutation[] = [
  {
    name: 'policy: no round robin (users in arrival order)',
    file: POLICY,
    find: 'const served = (userId: string): number => lastServed.get(userId) ?? -1;',
    replace: 'const served = (_userId: string): number => 0;',
    tests: [POLICY_TABLE, DISPATCH_TEST],
  },
  {
    name: 'policy: loaded models are not preferred',
    file: POLICY,
    find: 'const ready = jobs.find((job) => hasModelsLoaded(job, loaded));',
    replace: 'const ready = jobs[0];',
    tests: [POLICY_TABLE, DISPATCH_TEST],
  },
  {
    name: 'policy: no bound on how long a job is passed over',
    file: POLICY,
    find: 'const overdue = waiting.filter((job) => job.skippedSince !== null && now - job.skippedSince >= maxSkipMs);',
    replace: 'const overdue: WaitingJob[] = [];',
    tests: [POLICY_TABLE, DISPATCH_TEST],
  },
  {
    name: 'policy: a job with some of its models loaded counts as loaded',
    file: POLICY,
    find: 'job.models.every((model) => loaded.includes(model))',
    replace: 'job.models.length === 0 || job.models.some((model) => loaded.includes(model))',
    tests: [POLICY_TABLE],
  },
  {
    name: 'pool: the dispatch ignores the policy (arrival order)',
    file: POOL,
    find: "chooseJob(this.options.policy ?? 'fair', {",
    replace: "chooseJob('shortest-queue', {",
    tests: [DISPATCH_TEST],
  },
  {
    name: 'pool: a passed-over job’s clock never starts',
    file: POOL,
    find: 'for (const skipped of candidates.filter((w) => choice.skipped.includes(w.id))) skipped.skippedSince ??= now;',
    replace: '',
    tests: [DISPATCH_TEST],
  },
  {
    name: 'pool: the models a server ran are not remembered',
    file: POOL,
    find: 'if (waiter.models.length > 0) server.loaded = [...waiter.models];',
    replace: '',
    tests: [DISPATCH_TEST],
  },
  {
    name: 'pool: who was served is not remembered (no round robin)',
    file: POOL,
    find: 'this.lastServed.set(waiter.userId, this.served++);',
    replace: '',
    tests: [DISPATCH_TEST],
  },
  {
    name: 'pool: a slot given to a job that just gave up is kept',
    file: POOL,
    find: 'if (!handed) waiter.lease?.release();',
    replace: '',
    tests: [DISPATCH_TEST],
  },
  {
    name: 'engine: a run does not use the slot reserved for it (it waits for another)',
    file: ENGINE,
    find: 'const lease = reserved ?? (await this.pool.acquire(request.signal, request.workflow, request.userId));',
    replace: 'const lease = await this.pool.acquire(request.signal, request.workflow, request.userId);',
    tests: [DISPATCH_TEST],
  },
  {
    name: 'slot wait: a job not queued (finished) waits for a slot too',
    file: SLOT_WAIT,
    find: "if (!job || job.status !== 'queued') return null;",
    replace: 'if (!job) return null;',
    tests: [SLOT_WAIT_TEST],
  },
  {
    name: 'slot wait: a cancel does not end the wait',
    file: SLOT_WAIT,
    find: 'const unregister = this.deps.onCancel(jobId, () => controller.abort());',
    replace: 'const unregister = (): void => undefined;',
    tests: [SLOT_WAIT_TEST],
  },
  {
    name: 'slot wait: the start deadline does not end the wait',
    file: SLOT_WAIT,
    find: 'const deadline = job.startDeadline ? setTimeout(',
    replace: 'const deadline = false ? setTimeout(',
    tests: [SLOT_WAIT_TEST],
  },
  {
    name: 'slot wait: the queue message is not kept invisible while waiting',
    file: SLOT_WAIT,
    find: 'message.extendVisibility(visibilitySeconds).catch(',
    replace: 'Promise.resolve().catch(',
    tests: [SLOT_WAIT_TEST],
  },
  {
    name: 'run: a slot given to a job that does not start is kept',
    file: RUN,
    find: "if (started.kind !== 'started') slot?.release();",
    replace: '',
    tests: [SLOT_WAIT_TEST],
  },
  {
    name: 'run: the engine run is not handed the slot the job waited for',
    file: RUN,
    find: '...(slot ? { slot } : {}), ',
    replace: '',
    tests: [SLOT_WAIT_TEST],
  },
  {
    name: 'run: the engine run is not told the job’s owner',
    file: RUN,
    find: 'userId: job.userId, ...supersedes',
    replace: '...supersedes',
    tests: [SLOT_WAIT_TEST],
  },
  {
    name: 'wiring: the worker does not wait for a slot before starting a job (it shows running while it waits)',
    file: 'bootstrap/modules/generation.module.ts',
    find: '        metrics,\n        slots,\n',
    replace: '        metrics,\n',
    tests: ['tests/integration/comfyui-dispatch-app.test.ts'],
  },
  {
    name: 'traces: the wait for a slot is no span (the pool\'s first probe then belongs to no engine span)',
    file: 'adapters/opentelemetry/traced-workflow-engine.ts',
    find: 'if (inner.reserve) this.reserve = (request) => this.slot(inner.reserve!.bind(inner), request);',
    replace: 'if (inner.reserve) this.reserve = (request) => inner.reserve!(request);',
    tests: ['tests/integration/tracing.test.ts'],
  },
  {
    name: 'config: WORKER_CONCURRENCY leaves out the dispatch look-ahead',
    file: 'bootstrap/config/engine.ts',
    find: 'Math.min(64, engineSlots(engine) + engine.lookahead)',
    replace: 'Math.min(64, engineSlots(engine))',
    tests: ['tests/integration/worker-concurrency.test.ts'],
  },
];
