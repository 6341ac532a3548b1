import type { Container } from 'inversify';
import { ThreadedBuiltinEngine, type ThreadedBuiltinEngineOptions } from '../../adapters/builtin-engine/threaded-builtin-engine.ts';
import { ComfyEngine } from '../../adapters/comfyui/comfy-engine.ts';
import { generationRoutes } from '../../adapters/http/routes/generation.routes.ts';
import { outputsRoutes } from '../../adapters/http/routes/outputs.routes.ts';
import { TASK_TYPES } from '../../core/domain/messages.ts';
import type { Consumer } from '../../core/ports/queue.port.ts';
import { ActiveTemplates } from '../../core/use-cases/generation/active-templates.ts';
import { CancelGeneration } from '../../core/use-cases/generation/cancel-generation.use-case.ts';
import { EngineInputs } from '../../core/use-cases/generation/engine-inputs.ts';
import { FailDeadLetteredJob } from '../../core/use-cases/generation/fail-dead-lettered-job.use-case.ts';
import { OutputHistory } from '../../core/use-cases/generation/history.use-case.ts';
import { InputImages } from '../../core/use-cases/generation/input-images.ts';
import { JobControl } from '../../core/use-cases/generation/job-control.ts';
import { JobLifecycle } from '../../core/use-cases/generation/job-lifecycle.ts';
import { JobQueries } from '../../core/use-cases/generation/job-queries.use-case.ts';
import { PrepareGeneration } from '../../core/use-cases/generation/prepare-generation.ts';
import { ReconcileJobs } from '../../core/use-cases/generation/reconcile-jobs.use-case.ts';
import { RunGeneration } from '../../core/use-cases/generation/run-generation.use-case.ts';
import { StoreOutputs } from '../../core/use-cases/generation/store-outputs.ts';
import { SubmitGeneration } from '../../core/use-cases/generation/submit-generation.use-case.ts';
import type { ComfyEngineConfig, Config } from '../config.ts';
import { resolve, resolveAll, TOKENS, type LifecycleBinding, type TaskHandlerBinding } from '../tokens.ts';
import { portsOf } from './ports.ts';

type BuiltinEngineConfig = Extract<Config['engine'], { driver: 'builtin' }>;

function createComfyEngine(engine: ComfyEngineConfig): ComfyEngine {
  return new ComfyEngine({
    urls: engine.urls,
    ...(engine.token ? { token: engine.token } : {}),
    timeoutMs: engine.timeoutMs,
    jobsPerServer: engine.jobsPerServer,
    unavailableWaitMs: engine.unavailableWaitMs,
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

/** TOKENS.Engine by ENGINE_DRIVER; with comfyui the same engine is the node catalogue templates are checked against. */
function bindEngine(container: Container, config: Readonly<Config>): void {
  const { engine } = config;
  if (engine.driver === 'builtin') {
    container
      .bind(TOKENS.Engine)
      .toDynamicValue(() => new ThreadedBuiltinEngine(threadedEngineOptions(engine, config)))
      .inSingletonScope();
    return;
  }
  container.bind(COMFY_ENGINE).toDynamicValue(() => createComfyEngine(engine)).inSingletonScope();
  container.bind(TOKENS.Engine).toDynamicValue(() => container.get<ComfyEngine>(COMFY_ENGINE));
  container.bind(TOKENS.NodeCatalog).toDynamicValue(() => container.get<ComfyEngine>(COMFY_ENGINE));
}

const COMFY_ENGINE = Symbol('ComfyEngine');

/** Generation end to end: jobs and their lifecycle, history, the worker, cancel, refunds, the sweepers and the reconciler. */
export function bindGeneration(container: Container, config: Readonly<Config>): void {
  const ports = portsOf(container);
  const get = <T>(token: symbol & { readonly __resolves?: T }): T => resolve(container, token);
  const { generation } = config;
  const single = <T>(token: symbol & { readonly __resolves?: T }, make: () => T) => container.bind(token).toDynamicValue(make).inSingletonScope();

  bindEngine(container, config);
  // Only where jobs run: an API process serves without the GPU servers, and must not look unhealthy without them.
  if (config.roles.includes('worker')) {
    container.bind(TOKENS.HealthCheck).toDynamicValue(() => ({ name: 'engine', check: async () => (await get(TOKENS.Engine).check()) ?? undefined }));
  }
  single(TOKENS.JobControl, () => new JobControl(ports.bus()));
  single(TOKENS.JobLifecycle, () => new JobLifecycle({ ids: ports.ids(), clock: ports.clock(), events: get(TOKENS.UserEventLog), payment: get(TOKENS.JobPayment) }));
  single(TOKENS.ActiveTemplates, () => new ActiveTemplates(ports.repos().templates));
  single(TOKENS.InputImages, () => new InputImages({ uploads: ports.repos().uploads, history: ports.repos().history }));
  single(TOKENS.OutputHistory, () =>
    new OutputHistory({
      history: ports.repos().history,
      storage: get(TOKENS.ObjectStorage),
      clock: ports.clock(),
      logger: ports.logger().child({ component: 'history' }),
      viewUrlTtlSeconds: config.outputs.viewUrlTtlSeconds,
      downloadUrlTtlSeconds: config.outputs.downloadUrlTtlSeconds,
    }),
  );
  single(TOKENS.JobQueries, () => new JobQueries({ jobs: ports.repos().jobs, history: ports.repos().history, viewUrl: get(TOKENS.OutputHistory).viewUrl }));
  container.bind(TOKENS.ActiveJobsSnapshot).toDynamicValue(() => {
    const queries = get(TOKENS.JobQueries);
    return (userId: string) => queries.active(userId);
  });
  const requestCancel = (jobId: string) => get(TOKENS.JobControl).requestCancel(jobId);

  single(TOKENS.RunGeneration, () => {
    const logger = ports.logger().child({ component: 'worker' });
    const storage = get(TOKENS.ObjectStorage);
    const lifecycle = get(TOKENS.JobLifecycle);
    const outputs = new StoreOutputs({
      uow: ports.uow(),
      events: get(TOKENS.UserEventLog),
      staged: ports.repos().staged,
      storage,
      lifecycle,
      ids: ports.ids(),
      clock: ports.clock(),
      logger,
      retentionDays: config.outputs.retentionDays,
      viewUrl: get(TOKENS.OutputHistory).viewUrl,
    });
    return new RunGeneration({
      uow: ports.uow(),
      jobs: ports.repos().jobs,
      lifecycle,
      events: get(TOKENS.UserEventLog),
      engine: get(TOKENS.Engine),
      inputs: new EngineInputs({ images: get(TOKENS.InputImages), storage }),
      outputs,
      clock: ports.clock(),
      logger,
      maxAttempts: generation.maxAttempts,
      visibilitySeconds: generation.visibilitySeconds,
      onCancel: (jobId, abort) => get(TOKENS.JobControl).onCancel(jobId, abort),
    });
  });

  container.bind(TOKENS.RouteModule).toDynamicValue(() => {
    const logger = ports.logger().child({ component: 'generation' });
    const prepare = new PrepareGeneration({
      templates: get(TOKENS.ActiveTemplates),
      images: get(TOKENS.InputImages),
      random: Math.random,
      outputNodeTypes: generation.outputNodeTypes,
      allowedNodeTypes: generation.allowedNodeTypes,
      raw: generation.rawWorkflows,
      limits: generation.limits,
    });
    const common = { uow: ports.uow(), jobs: ports.repos().jobs };
    return generationRoutes({
      submit: new SubmitGeneration({
        ...common,
        prepare,
        images: get(TOKENS.InputImages),
        events: get(TOKENS.UserEventLog),
        payment: get(TOKENS.JobPayment),
        ids: ports.ids(),
        clock: ports.clock(),
        environment: config.appEnv,
        maxActiveJobsPerUser: generation.maxActiveJobsPerUser,
      }),
      cancel: new CancelGeneration({ ...common, lifecycle: get(TOKENS.JobLifecycle), logger, requestCancel }),
      queries: get(TOKENS.JobQueries),
      idempotency: get(TOKENS.Idempotency),
    });
  });
  container.bind(TOKENS.RouteModule).toDynamicValue(() => outputsRoutes({ history: get(TOKENS.OutputHistory) }));

  bindGenerationHandler(container);
  container.bind(TOKENS.Lifecycle).toDynamicValue(() => workerLifecycle(container, config));

  const scheduler = ports.scheduler();
  scheduler.add({ name: 'output-retention-sweep', roles: ['api'], everyMs: 60_000, run: () => get(TOKENS.OutputHistory).sweepExpired() });
  scheduler.add({
    name: 'job-reconciler',
    roles: ['api', 'worker'],
    everyMs: 60_000,
    run: () =>
      new ReconcileJobs({
        uow: ports.uow(),
        jobs: ports.repos().jobs,
        staged: ports.repos().staged,
        storage: get(TOKENS.ObjectStorage),
        lifecycle: get(TOKENS.JobLifecycle),
        payment: get(TOKENS.JobPayment),
        clock: ports.clock(),
        logger: ports.logger().child({ component: 'reconciler' }),
        stalledAfterSeconds: generation.stalledJobSeconds,
        orphanedAfterSeconds: generation.orphanedOutputSeconds,
      }).execute(),
  });
}

function bindGenerationHandler(container: Container): void {
  const ports = portsOf(container);
  // Generation's own handler; other modules (publishing) bind theirs.
  container.bind(TOKENS.TaskHandlers).toDynamicValue(() => {
    const control = resolve(container, TOKENS.JobControl);
    const run = resolve(container, TOKENS.RunGeneration);
    const deadLetters = new FailDeadLetteredJob({
      uow: ports.uow(),
      lifecycle: resolve(container, TOKENS.JobLifecycle),
      logger: ports.logger().child({ component: 'worker' }),
      requestCancel: (jobId) => control.requestCancel(jobId),
    });
    const binding: TaskHandlerBinding = { taskType: 'generation', handle: (message) => run.execute(message), onDeadLetter: (message, reason) => deadLetters.execute(message, reason) };
    return [binding];
  });
}

function workerLifecycle(container: Container, config: Readonly<Config>): LifecycleBinding {
  let consumer: Consumer | null = null;
  return {
    name: 'generation-worker',
    roles: ['worker'],
    async start() {
      await resolve(container, TOKENS.JobControl).start();
      // One consumer for every task type (SQS keeps them on one queue: a consumer of some types would hand the others back).
      const handlers = new Map(resolveAll(container, TOKENS.TaskHandlers).flat().map((binding) => [binding.taskType as string, binding]));
      const missing = TASK_TYPES.filter((taskType) => !handlers.has(taskType));
      if (missing.length > 0) throw new Error(`no worker handler bound for task type(s) ${missing.join(', ')}`);
      consumer = await resolve(container, TOKENS.Queue).consume(
        {
          taskTypes: [...TASK_TYPES],
          environment: config.appEnv,
          concurrency: config.generation.workerConcurrency,
          maxAttempts: config.generation.maxAttempts,
          visibilitySeconds: config.generation.visibilitySeconds,
          onDeadLetter: async (message, reason) => handlers.get(message.taskType)?.onDeadLetter(message, reason),
        },
        async (message) => handlers.get(message.taskType)?.handle(message) ?? { action: 'dead', reason: `no handler for task type ${message.taskType}` },
      );
    },
    async stop() {
      await consumer?.stop();
      consumer = null;
      await resolve(container, TOKENS.JobControl).stop();
      await resolve(container, TOKENS.Engine).close();
    },
  };
}
