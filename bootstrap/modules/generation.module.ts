import type { Container } from 'inversify';
import { ThreadedBuiltinEngine, type ThreadedBuiltinEngineOptions } from '../../adapters/builtin-engine/threaded-builtin-engine.ts';
import { BuiltinEngine } from '../../adapters/builtin-engine/builtin-engine.ts';
import { ComfyEngine } from '../../adapters/comfyui/comfy-engine.ts';
import { generationRoutes } from '../../adapters/http/routes/generation.routes.ts';
import { outputsRoutes } from '../../adapters/http/routes/outputs.routes.ts';
import { comfyV2Routes } from '../../adapters/http/routes/comfy-v2.routes.ts';
import { comfyV2AssetsRoutes } from '../../adapters/http/routes/comfy-v2-assets.routes.ts';
import { GetUploadForUser } from '../../core/use-cases/uploads/get-upload-for-user.use-case.ts';
import { DeleteUpload, FindUploadByHash, MintUploadFromHash, UploadDownloadUrl } from '../../core/use-cases/uploads/upload-assets.use-case.ts';
import type { StoreUpload } from '../../core/use-cases/uploads/store-upload.use-case.ts';
import { testRunRoutes } from '../../adapters/http/routes/test-run.routes.ts';
import { JobEventFeed } from '../../core/use-cases/events/job-event-feed.service.ts';
import { TASK_TYPES } from '../../core/domain/messages.ts';
import type { Consumer } from '../../core/ports/queue.port.ts';
import { ActiveTemplates } from '../../core/use-cases/generation/active-templates.service.ts';
import { CancelGeneration } from '../../core/use-cases/generation/cancel-generation.use-case.ts';
import { EngineInputs } from '../../core/use-cases/generation/engine-inputs.service.ts';
import { AnnounceQueuePositions } from '../../core/use-cases/generation/announce-queue-positions.use-case.ts';
import { ExpireOverdueJobs } from '../../core/use-cases/generation/expire-overdue-jobs.use-case.ts';
import { FailDeadLetteredJob } from '../../core/use-cases/generation/fail-dead-lettered-job.use-case.ts';
import { OutputHistory } from '../../core/use-cases/generation/output-history.service.ts';
import { InputImages } from '../../core/use-cases/generation/input-images.service.ts';
import { JobControl } from '../../core/use-cases/generation/job-control.service.ts';
import { JobLifecycle } from '../../core/use-cases/generation/job-lifecycle.service.ts';
import { JobQueries } from '../../core/use-cases/generation/job-queries.service.ts';
import { PrepareGeneration } from '../../core/use-cases/generation/prepare-generation.service.ts';
import { RecentRunsCache, RunEstimates } from '../../core/use-cases/generation/run-estimates.service.ts';
import { QueueEstimates } from '../../core/use-cases/generation/queue-estimates.service.ts';
import { ServerFit } from '../../core/use-cases/generation/server-fit.service.ts';
import { ReconcileJobs } from '../../core/use-cases/generation/reconcile-jobs.use-case.ts';
import { RunGeneration } from '../../core/use-cases/generation/run-generation.use-case.ts';
import { EngineSlotWait } from '../../core/use-cases/generation/engine-slot-wait.service.ts';
import { StoreOutputs } from '../../core/use-cases/generation/store-outputs.service.ts';
import { SubmitGeneration } from '../../core/use-cases/generation/submit-generation.use-case.ts';
import { WebhookOutbox } from '../../core/use-cases/webhooks/webhook-outbox.service.ts';
import { ListTestRuns } from '../../core/use-cases/templates/list-test-runs.use-case.ts';
import { StartTestRun } from '../../core/use-cases/templates/start-test-run.use-case.ts';
import type { IdempotentResponder } from '../../adapters/http/idempotency.ts';
import type { NodeCatalog } from '../../core/ports/node-catalog.port.ts';
import type { WorkflowEngine } from '../../core/ports/workflow-engine.port.ts';
import type { JobPayment } from '../../core/use-cases/coins/job-payment.service.ts';
import type { UserEventLog } from '../../core/use-cases/events/user-event-log.service.ts';
import type { ComfyEngineConfig, Config } from '../config.ts';
import { engineSlots, idleSlotsWarning } from '../config/engine.ts';
import { FfprobeMediaInspector } from '../../adapters/media-probe/ffprobe-media-inspector.ts';
import { tracingOf } from '../tracing.ts';
import { resolve, resolveAll, TOKENS, type LifecycleBinding } from '../tokens.ts';
import { bindFeature, forApi, forWorker, type Feature, type FeaturePorts } from './feature.ts';

type BuiltinEngineConfig = Extract<Config['engine'], { driver: 'builtin' }>;

function createComfyEngine(engine: ComfyEngineConfig, tracedFetch: typeof fetch | undefined): ComfyEngine {
  return new ComfyEngine({
    ...(tracedFetch ? { fetch: tracedFetch } : {}),
    urls: engine.urls,
    ...(engine.token ? { token: engine.token } : {}),
    timeoutMs: engine.timeoutMs,
    jobsPerServer: engine.jobsPerServer,
    unavailableWaitMs: engine.unavailableWaitMs,
    failoverMs: engine.failoverMs,
    maxBackoffMs: engine.probeMs,
    catalogueRefreshMs: engine.catalogueRefreshMs,
    dispatch: engine.dispatch,
    affinityWaitMs: engine.affinityWaitMs,
  });
}

/** The builtin engine's options as production builds them (also what the engine contract suite runs it with). */
export function threadedEngineOptions(engine: BuiltinEngineConfig, config: Readonly<Config>): ThreadedBuiltinEngineOptions {
  return {
    workDir: engine.workDir,
    limits: config.generation.limits,
    timeBudgetMs: engine.timeBudgetSeconds * 1000,
    memoryMb: engine.memoryMb,
    keepIdle: config.generation.workerConcurrency,
    prewarm: config.roles.includes('worker'),
  };
}

/** TOKENS.Engine by ENGINE_DRIVER, and the node catalogue templates and raw workflows are checked against. */
function bindEngine(container: Container, config: Readonly<Config>): void {
  const { engine } = config;
  if (engine.driver === 'builtin') {
    container
      .bind(TOKENS.Engine)
      .toDynamicValue(() => new ThreadedBuiltinEngine(threadedEngineOptions(engine, config)))
      .inSingletonScope();
    // Its own instance: an API-only process reads the registry without starting engine threads.
    container.bind(TOKENS.NodeCatalog).toDynamicValue(() => new BuiltinEngine({ workDir: engine.workDir })).inSingletonScope();
    return;
  }
  container.bind(COMFY_ENGINE).toDynamicValue(() => createComfyEngine(engine, tracingOf(config).fetchFor('comfyui'))).inSingletonScope();
  container.bind(TOKENS.Engine).toDynamicValue(() => container.get<ComfyEngine>(COMFY_ENGINE));
  container.bind(TOKENS.NodeCatalog).toDynamicValue(() => container.get<ComfyEngine>(COMFY_ENGINE));
}

const COMFY_ENGINE = Symbol('ComfyEngine');
/** How long the worker keeps a template's recent run times for its job.started estimates. */
const START_ESTIMATE_TTL_MS = 5_000;

export type GenerationFeature = Feature<{ control: JobControl; queries: JobQueries; lifecycle: JobLifecycle }>;

/**
 * Generation end to end: jobs and their lifecycle, history, cancel, refunds, the worker's handler, the sweepers
 * and the reconciler. `idempotency` is looked up only for the api role's routes, `engine` only for the worker's handler.
 */
export function generationFeature(
  ports: FeaturePorts,
  config: Readonly<Config>,
  needs: { payment: JobPayment; events: UserEventLog; idempotency: () => IdempotentResponder; engine: () => WorkflowEngine; nodes?: () => NodeCatalog; storeUpload: () => StoreUpload },
): GenerationFeature {
  const { generation } = config;
  const { payment, events } = needs;
  const tracing = tracingOf(config);
  const repos = ports.repos();
  const storage = ports.storage();
  const control = new JobControl(ports.bus());
  const requestCancel = (jobId: string) => control.requestCancel(jobId);
  const metrics = ports.metrics();
  const webhooks = new WebhookOutbox({ ids: ports.ids(), clock: ports.clock() });
  const lifecycle = new JobLifecycle({ ids: ports.ids(), clock: ports.clock(), events, payment, metrics, webhooks });
  const images = new InputImages({ uploads: repos.uploads, history: repos.history });
  const history = new OutputHistory({
    history: repos.history,
    templates: repos.templates,
    storage,
    clock: ports.clock(),
    logger: ports.logger().child({ component: 'history' }),
    viewUrlTtlSeconds: config.outputs.viewUrlTtlSeconds,
    downloadUrlTtlSeconds: config.outputs.downloadUrlTtlSeconds,
  });
  const estimates = new RunEstimates(repos.jobs);
  // Jobs that run at once: the ComfyUI servers' slots, or one worker's WORKER_CONCURRENCY with the builtin engine (ADR 037).
  const slots = config.engine.driver === 'comfyui' ? engineSlots(config.engine) : generation.workerConcurrency;
  // The database queue serves owners in turn (ADR 019); RabbitMQ and SQS are FIFO: positions count in that order.
  // Several ComfyUI servers may not all run every template: a job then counts only the jobs that compete for its servers.
  const nodes = needs.nodes;
  const fit =
    config.engine.driver === 'comfyui' && config.engine.urls.length > 1 && nodes
      ? { servers: new ServerFit({ nodes, templates: repos.templates, clock: ports.clock() }), slotsPerServer: config.engine.jobsPerServer }
      : undefined;
  const queueDeps = { jobs: repos.jobs, clock: ports.clock(), slots, order: config.queue.driver === 'db' ? ('owner-turns' as const) : ('arrival' as const), fit };
  const queue = new QueueEstimates({ ...queueDeps, estimates });
  const queries = new JobQueries({ jobs: repos.jobs, history: repos.history, viewUrl: history.viewUrl, queue });
  const reconcile = new ReconcileJobs({
    uow: ports.uow(),
    jobs: repos.jobs,
    staged: repos.staged,
    storage,
    lifecycle,
    payment,
    clock: ports.clock(),
    logger: ports.logger().child({ component: 'reconciler' }),
    stalledAfterSeconds: generation.stalledJobSeconds,
    orphanedAfterSeconds: generation.orphanedOutputSeconds,
  });
  const announce = new AnnounceQueuePositions({ uow: ports.uow(), jobs: repos.jobs, queue, events, maxJobs: 500 });
  const expire = new ExpireOverdueJobs({ uow: ports.uow(), jobs: repos.jobs, lifecycle, clock: ports.clock(), logger: ports.logger().child({ component: 'deadlines' }) });

  return {
    exports: { control, queries, lifecycle },
    routes: forApi(config, () => {
      const logger = ports.logger().child({ component: 'generation' });
      const prepare = new PrepareGeneration({
        templates: new ActiveTemplates(repos.templates),
        images,
        random: Math.random,
        outputNodeTypes: generation.outputNodeTypes,
        allowedNodeTypes: generation.allowedNodeTypes,
        raw: generation.rawWorkflows,
        limits: generation.limits,
        ...(needs.nodes ? { nodes: needs.nodes() } : {}),
      });
      const common = { uow: ports.uow(), jobs: repos.jobs };
      const queueing = { images, events, ids: ports.ids(), environment: config.appEnv, maxActiveJobsPerUser: generation.maxActiveJobsPerUser, metrics };
      const submit = new SubmitGeneration({
        ...common,
        ...queueing,
        uow: tracing.unitOfWork(common.uow),
        prepare,
        payment,
        clock: ports.clock(),
        maxQueueDepth: generation.maxQueueDepth,
        estimates,
        webhooks: { outbox: webhooks, policy: config.webhooks.policy },
      });
      const cancel = new CancelGeneration({ ...common, lifecycle, logger, requestCancel });
      const idempotency = needs.idempotency();
      return [
        generationRoutes({ submit, cancel, queries, idempotency }),
        // An administrator's run of a template before users may (ADR 043): the submit's path without its payment.
        testRunRoutes({
          start: new StartTestRun({ ...queueing, uow: tracing.unitOfWork(common.uow), templates: repos.templates, prepare, clock: ports.clock() }),
          list: new ListTestRuns({ templates: repos.templates, jobs: repos.jobs, queries }),
        }),
        outputsRoutes({ history }),
        comfyV2Routes({
          submit,
          cancel,
          queries,
          idempotency,
          feed: new JobEventFeed({ bus: ports.bus(), store: repos.events, jobs: repos.jobs }),
          retentionMs: config.outputs.retentionDays * 24 * 3600_000,
        }),
        comfyV2AssetsRoutes({
          store: needs.storeUpload(),
          get: new GetUploadForUser({ uploads: repos.uploads }),
          byHash: new FindUploadByHash({ uploads: repos.uploads }),
          fromHash: new MintUploadFromHash({ uploads: repos.uploads, storage, ids: ports.ids(), clock: ports.clock() }),
          download: new UploadDownloadUrl({ uploads: repos.uploads, storage, ttlSeconds: config.outputs.downloadUrlTtlSeconds }),
          remove: new DeleteUpload({ uploads: repos.uploads, jobs: repos.jobs, storage }),
          history,
          maxUploadBytes: generation.maxUploadBytes,
          urlTtlSeconds: config.outputs.downloadUrlTtlSeconds,
          now: () => ports.clock().now(),
        }),
      ];
    }),
    scheduled: [
      { name: 'output-retention-sweep', roles: ['api'], everyMs: 60_000, run: () => history.sweepExpired() },
      { name: 'job-reconciler', roles: ['api', 'worker'], everyMs: 60_000, run: () => reconcile.execute() },
      // Start deadlines are seconds long: a job past its deadline ends within this period even when no worker is free (ADR 037).
      // Debounced by its period: a job's owner hears of its new position at most once per pass (ADR 037).
      { name: 'queue-position-announcer', roles: ['api'], everyMs: 10_000, run: () => announce.execute() },
      { name: 'start-deadline-sweep', roles: ['api', 'worker'], everyMs: 5_000, run: () => expire.execute() },
    ],
    // Generation's own handler; other features (publishing) have theirs.
    handlers: forWorker(config, () => {
      const logger = ports.logger().child({ component: 'worker' });
      const outputs = new StoreOutputs({
        uow: ports.uow(),
        events,
        staged: repos.staged,
        storage: tracing.storage(storage),
        lifecycle,
        ids: ports.ids(),
        clock: ports.clock(),
        logger,
        retentionDays: config.outputs.retentionDays,
        viewUrl: history.viewUrl,
        media: new FfprobeMediaInspector(),
      });
      const engine = tracing.engine(needs.engine());
      const onCancel = (jobId: string, abort: () => void): (() => void) => control.onCancel(jobId, abort);
      const slots = new EngineSlotWait({ engine, jobs: repos.jobs, clock: ports.clock(), logger, visibilitySeconds: generation.visibilitySeconds, onCancel });
      const run = new RunGeneration({
        uow: ports.uow(),
        jobs: repos.jobs,
        lifecycle,
        events,
        engine,
        inputs: new EngineInputs({ images, storage }),
        outputs,
        clock: ports.clock(),
        logger,
        maxAttempts: generation.maxAttempts,
        visibilitySeconds: generation.visibilitySeconds,
        onCancel,
        metrics,
        slots,
        // Each start's job.started estimate: the run history read at most every few seconds per template, not per job.
        estimates: new QueueEstimates({ ...queueDeps, estimates: new RecentRunsCache(estimates, ports.clock(), START_ESTIMATE_TTL_MS) }),
      });
      const deadLetters = new FailDeadLetteredJob({ uow: ports.uow(), lifecycle, logger, requestCancel });
      return [{ taskType: 'generation', handle: (message) => run.execute(message), onDeadLetter: (message, reason) => deadLetters.execute(message, reason) }];
    }),
  };
}

/** Returns the feature, whose lifecycle the admin console's cancel shares. */
export function bindGeneration(container: Container, config: Readonly<Config>): () => GenerationFeature {
  bindEngine(container, config);
  const engine = () => resolve(container, TOKENS.Engine);
  // Only where jobs run: an API process serves without the GPU servers, and must not look unhealthy without them.
  if (config.roles.includes('worker')) {
    container.bind(TOKENS.HealthCheck).toDynamicValue(() => ({ name: 'engine', check: async () => (await engine().check()) ?? undefined }));
  }
  const feature = bindFeature(container, 'generation', (ports) =>
    generationFeature(ports, config, {
      payment: resolve(container, TOKENS.JobPayment),
      events: resolve(container, TOKENS.UserEventLog),
      idempotency: () => resolve(container, TOKENS.Idempotency),
      engine,
      nodes: () => resolve(container, TOKENS.NodeCatalog),
      storeUpload: () => resolve(container, TOKENS.StoreUpload),
    }),
  );
  container.bind(TOKENS.ActiveJobsSnapshot).toDynamicValue(() => {
    const { queries } = feature().exports;
    return (userId: string) => queries.active(userId);
  });
  container.bind(TOKENS.Lifecycle).toDynamicValue(() => workerLifecycle(container, config, feature().exports.control));
  return feature;
}

function workerLifecycle(container: Container, config: Readonly<Config>, control: JobControl): LifecycleBinding {
  let consumer: Consumer | null = null;
  return {
    name: 'generation-worker',
    roles: ['worker'],
    async start() {
      await control.start();
      const idle = idleSlotsWarning(config.engine, config.generation.workerConcurrency);
      if (idle) resolve(container, TOKENS.Logger).warn(idle);
      // One consumer for every task type (SQS keeps them on one queue: a consumer of some types would hand the others back).
      const handlers = new Map(resolveAll(container, TOKENS.TaskHandlers).flat().map((binding) => [binding.taskType as string, binding]));
      const missing = TASK_TYPES.filter((taskType) => !handlers.has(taskType));
      if (missing.length > 0) throw new Error(`no worker handler bound for task type(s) ${missing.join(', ')}`);
      const metrics = resolve(container, TOKENS.JobMetrics);
      consumer = await tracingOf(config).queue(resolve(container, TOKENS.Queue)).consume(
        {
          taskTypes: [...TASK_TYPES],
          environment: config.appEnv,
          concurrency: config.generation.workerConcurrency,
          maxAttempts: config.generation.maxAttempts,
          visibilitySeconds: config.generation.visibilitySeconds,
          onDeadLetter: async (message, reason) => {
            await handlers.get(message.taskType)?.onDeadLetter(message, reason);
            metrics.deadLettered(message.taskType);
          },
        },
        async (message) => handlers.get(message.taskType)?.handle(message) ?? { action: 'dead', reason: `no handler for task type ${message.taskType}` },
      );
    },
    async stop() {
      await consumer?.stop();
      consumer = null;
      await control.stop();
      await resolve(container, TOKENS.Engine).close();
    },
  };
}
