import type { QueueOrder } from '../../core/domain/queue-order.ts';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BuiltinEngine } from '../../adapters/builtin-engine/builtin-engine.ts';
import { InProcessEventBus } from '../../adapters/memory/in-process-event-bus.ts';
import { LocalObjectStorage } from '../../adapters/local-storage/local-object-storage.ts';
import { MemoryObjectStorage } from '../../adapters/memory/memory-object-storage.ts';
import { DEFAULT_RESOURCE_LIMITS, type ResourceLimits } from '../../core/domain/resource-limits.ts';
import type { ParameterMap } from '../../core/domain/parameter-map.ts';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';
import type { Logger } from '../../core/ports/logger.port.ts';
import type { JobMetrics } from '../../core/ports/metrics.port.ts';
import type { ObjectStorage } from '../../core/ports/object-storage.port.ts';
import type { DeliveredMessage } from '../../core/ports/queue.port.ts';
import type { UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import type { UserEvent } from '../../core/ports/user-events.port.ts';
import type { WorkflowEngine } from '../../core/ports/workflow-engine.port.ts';
import { DeductCoins } from '../../core/use-cases/coins/deduct-coins.use-case.ts';
import { UserEventLog } from '../../core/use-cases/events/user-event-log.service.ts';
import { ActiveTemplates } from '../../core/use-cases/generation/active-templates.service.ts';
import { CancelGeneration } from '../../core/use-cases/generation/cancel-generation.use-case.ts';
import { EngineInputs } from '../../core/use-cases/generation/engine-inputs.service.ts';
import { AnnounceQueuePositions } from '../../core/use-cases/generation/announce-queue-positions.use-case.ts';
import { QueueEstimates } from '../../core/use-cases/generation/queue-estimates.service.ts';
import { RunEstimates } from '../../core/use-cases/generation/run-estimates.service.ts';
import { ExpireOverdueJobs } from '../../core/use-cases/generation/expire-overdue-jobs.use-case.ts';
import { FailDeadLetteredJob } from '../../core/use-cases/generation/fail-dead-lettered-job.use-case.ts';
import { OutputHistory } from '../../core/use-cases/generation/output-history.service.ts';
import { InputImages } from '../../core/use-cases/generation/input-images.service.ts';
import { JobLifecycle } from '../../core/use-cases/generation/job-lifecycle.service.ts';
import { PrepareGeneration } from '../../core/use-cases/generation/prepare-generation.service.ts';
import { ReconcileJobs } from '../../core/use-cases/generation/reconcile-jobs.use-case.ts';
import { RunGeneration } from '../../core/use-cases/generation/run-generation.use-case.ts';
import { EngineSlotWait } from '../../core/use-cases/generation/engine-slot-wait.service.ts';
import { StoreOutputs } from '../../core/use-cases/generation/store-outputs.service.ts';
import { SubmitGeneration } from '../../core/use-cases/generation/submit-generation.use-case.ts';
import { StartTestRun } from '../../core/use-cases/templates/start-test-run.use-case.ts';
import { SweepUnclaimedDeductions } from '../../core/use-cases/coins/sweep-unclaimed-deductions.use-case.ts';
import { JobPayment } from '../../core/use-cases/coins/job-payment.service.ts';
import { openBackend, type Backend, type BackendName } from './backends.ts';

export const quietLogger: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => quietLogger };

export const imageWorkflow = (color = 0xff0000): WorkflowGraph => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 16, height: 8, batch_size: 1, color } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'test' } },
});

/** Two images of different channel counts: ImageBatch fails at run time, like ComfyUI. */
export const failingWorkflow = (): WorkflowGraph => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } },
  '2': { class_type: 'SolidMask', inputs: { value: 1, width: 8, height: 8 } },
  '3': { class_type: 'JoinImageWithAlpha', inputs: { image: ['1', 0], alpha: ['2', 0] } },
  '4': { class_type: 'ImageBatch', inputs: { image1: ['1', 0], image2: ['3', 0] } },
  '5': { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: 'fail' } },
});

export const colorMap = (): ParameterMap => ({ color: { key: 'color', type: 'integer', node_id: '1', input_name: 'color', min: 0, max: 0xffffff } }) as ParameterMap;

export interface HarnessOptions {
  backend?: BackendName;
  engine?: WorkflowEngine;
  maxAttempts?: number;
  visibilitySeconds?: number;
  /** Wraps the storage the worker and history use (fault injection). */
  storage?: (inner: ObjectStorage) => ObjectStorage;
  /** Wraps the unit of work every use case uses (fault injection). */
  uow?: (inner: UnitOfWork) => UnitOfWork;
  /** Builds the engine from the builtin one and its work folder (wrappers that watch or gate runs). */
  wrapEngine?: (builtin: BuiltinEngine, workDir: string) => WorkflowEngine;
  /** Real files on disk (local storage) instead of memory. */
  localStorage?: boolean;
  rawWorkflows?: { roles: ('user' | 'admin')[]; cost: number };
  limits?: ResourceLimits;
  maxActiveJobsPerUser?: number;
  /** The order queue positions count in (the app sets it from QUEUE_DRIVER); arrival unless given. */
  queueOrder?: QueueOrder;
  /** What the use cases count (none by default). */
  metrics?: JobMetrics;
}

export type Harness = Awaited<ReturnType<typeof generationHarness>>;

/** The generation use cases on one backend (memory by default) with the real builtin engine, wired as the generation module does. */
export async function generationHarness(options: HarnessOptions = {}) {
  const backend: Backend = await openBackend(options.backend ?? 'memory');
  const { repos } = backend;
  const uow = options.uow ? options.uow(backend.uow) : backend.uow;
  let now = new Date('2026-01-01T00:00:00Z');
  const clock = { now: () => new Date(now) };
  const ids = { newId: () => randomUUID() };
  const scratch = mkdtempSync(path.join(tmpdir(), 'mgs-harness-'));
  const baseStorage: ObjectStorage = options.localStorage
    ? new LocalObjectStorage({ dir: path.join(scratch, 'storage'), filesUrl: 'http://127.0.0.1/files', signingKey: 'k'.repeat(32), clock })
    : new MemoryObjectStorage(clock.now);
  const storage = options.storage ? options.storage(baseStorage) : baseStorage;
  const engineDir = path.join(scratch, 'engine');
  const engine = options.engine ?? (options.wrapEngine ? options.wrapEngine(new BuiltinEngine({ workDir: engineDir }), engineDir) : new BuiltinEngine({ workDir: engineDir }));
  const bus = new InProcessEventBus();
  const events = new UserEventLog({ bus, clock, logger: quietLogger });
  const metrics = options.metrics ? { metrics: options.metrics } : {};
  const payment = new JobPayment({ ids, ...metrics });
  const lifecycle = new JobLifecycle({ ids, clock, events, payment, ...metrics });
  const templates = new ActiveTemplates(repos.templates);
  const images = new InputImages({ uploads: repos.uploads, history: repos.history });
  const outputs = new OutputHistory({ history: repos.history, templates: repos.templates, storage, clock, logger: quietLogger, viewUrlTtlSeconds: 900, downloadUrlTtlSeconds: 300 });
  const cancels = new Map<string, () => void>();
  const requestCancel = async (jobId: string) => cancels.get(jobId)?.();
  const store = new StoreOutputs({ uow, events, staged: repos.staged, storage, lifecycle, ids, clock, logger: quietLogger, retentionDays: 30, viewUrl: outputs.viewUrl });
  const prepare = new PrepareGeneration({
    templates,
    images,
    random: () => 0.5,
    outputNodeTypes: [],
    allowedNodeTypes: null,
    raw: options.rawWorkflows ?? { roles: ['admin'], cost: 5 },
    limits: options.limits ?? DEFAULT_RESOURCE_LIMITS,
  });

  const queueing = { images, events, ids, environment: 'local', maxActiveJobsPerUser: options.maxActiveJobsPerUser ?? 1000, ...metrics };
  const submit = new SubmitGeneration({ uow, jobs: repos.jobs, prepare, payment, clock, ...queueing });
  const testRun = new StartTestRun({ uow, templates: repos.templates, prepare, clock, ...queueing });
  const onCancel = (jobId: string, abort: () => void): (() => void) => {
    cancels.set(jobId, abort);
    return () => cancels.delete(jobId);
  };
  const queue = new QueueEstimates({ jobs: repos.jobs, estimates: new RunEstimates(repos.jobs), clock, slots: 1, order: options.queueOrder ?? 'arrival' });
  const visibilitySeconds = options.visibilitySeconds ?? 30;
  const run = new RunGeneration({
    uow,
    jobs: repos.jobs,
    lifecycle,
    events,
    engine,
    slots: new EngineSlotWait({ engine, jobs: repos.jobs, clock, logger: quietLogger, visibilitySeconds, onCancel }),
    inputs: new EngineInputs({ images, storage }),
    outputs: store,
    clock,
    logger: quietLogger,
    maxAttempts: options.maxAttempts ?? 3,
    visibilitySeconds,
    onCancel,
    progressIntervalMs: 0,
    estimates: queue,
    ...metrics,
  });
  const cancel = new CancelGeneration({ uow, jobs: repos.jobs, lifecycle, logger: quietLogger, requestCancel });
  const sweeper = new SweepUnclaimedDeductions({ uow, deductions: repos.deductions, payment, clock, logger: quietLogger, unclaimedMinutes: 15 });
  const deductCoins = new DeductCoins({ users: repos.users, uow, payment, ids, clock });
  const deadLetters = new FailDeadLetteredJob({ uow, lifecycle, logger: quietLogger, requestCancel });
  const expire = new ExpireOverdueJobs({ uow, jobs: repos.jobs, lifecycle, clock, logger: quietLogger });
  const announce = new AnnounceQueuePositions({ uow, jobs: repos.jobs, queue, events, maxJobs: 500 });
  const reconciler = new ReconcileJobs({
    uow,
    jobs: repos.jobs,
    staged: repos.staged,
    storage,
    lifecycle,
    payment,
    clock,
    logger: quietLogger,
    stalledAfterSeconds: 30 * 60,
    orphanedAfterSeconds: 60 * 60,
  });

  return {
    backend,
    uow,
    repos,
    storage,
    engine,
    engineDir,
    /** Where local storage keeps its files (with `localStorage: true`). */
    storageDir: path.join(scratch, 'storage'),
    clock,
    submit,
    testRun,
    run,
    cancel,
    sweeper,
    deadLetters,
    expire,
    announce,
    reconciler,
    outputs,
    lifecycle,
    payment,
    advance(minutes: number) {
      now = new Date(now.getTime() + minutes * 60_000);
    },
    async newUser(coins: number, role: 'user' | 'admin' = 'user') {
      const id = randomUUID();
      await repos.users.create({ id, email: `${id}@example.com`, displayName: 'U', role, passwordHash: null, createdAt: clock.now() });
      if (coins > 0) await repos.ledger.apply({ id: randomUUID(), userId: id, amount: coins, reason: 'signup_bonus', relatedEntityId: null, actorId: null, createdAt: clock.now() });
      return id;
    },
    /** An active template (text-to-image) with the given cost; its workflow defaults to a small image with a colour parameter. */
    async addTemplate(cost: number, workflow: WorkflowGraph = imageWorkflow(), parameterMap: ParameterMap = colorMap(), publishedAt: Date | null = clock.now()) {
      const id = randomUUID();
      const at = clock.now();
      const created = await repos.templates.create({
        id,
        name: `template ${id}`,
        description: null,
        category: 'text-to-image',
        workflow,
        parameterMap,
        cost,
        outputType: 'image',
        isActive: true,
        publishedAt,
        version: 1,
        createdAt: at,
        updatedAt: at,
      });
      if (!created) throw new Error('template not created');
      return id;
    },
    async balance(userId: string) {
      return (await repos.users.findById(userId))!.coinBalance;
    },
    /** A user's deduction linked to a request, through POST /coin/deduct's use case (the seed's client order: deduct first, then generate). */
    async deduct(userId: string, amount: number, relatedEntityId: string) {
      const result = await deductCoins.execute({ userId, amount, reason: 'image_generation', relatedEntityId });
      if (!result.ok) throw new Error(`deduction refused: ${result.code}`);
    },
    /** The user's stored events, in seq order. */
    async eventsOf(userId: string): Promise<UserEvent[]> {
      return (await repos.events.listSince(userId, 0, 10_000)).map((stored) => stored.event);
    },
    async ledgerOf(userId: string) {
      return (await repos.ledger.list(userId, { page: 1, limit: 100 })).items;
    },
    /** The queue message of a job, as a worker receives it on delivery number `attempt`. */
    delivery(jobId: string, attempt = 1, extendVisibility: (seconds: number) => Promise<void> = async () => undefined): DeliveredMessage {
      return { id: jobId, taskType: 'generation', environment: 'local', body: { jobId }, attempt, extendVisibility };
    },
    /** Outbox entries not yet published (leased away for the count, the lease then ends at once). */
    async pendingMessages(): Promise<number> {
      return (await backend.outbox.lease(1000, { token: randomUUID(), until: clock.now() }, clock.now())).length;
    },
    async dispose() {
      await engine.close();
      await backend.dispose();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
