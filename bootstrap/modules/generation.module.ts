import type { Container } from 'inversify';
import { BuiltinEngine } from '../../adapters/builtin-engine/builtin-engine.ts';
import type { RouteModule } from '../../adapters/http/http-app.ts';
import { generationRoutes } from '../../adapters/http/routes/generation.routes.ts';
import { outputsRoutes } from '../../adapters/http/routes/outputs.routes.ts';
import { SequelizeDeductionClaims } from '../../adapters/sequelize/sequelize-deduction-claims.ts';
import { SequelizeHistoryRepository } from '../../adapters/sequelize/sequelize-history-repository.ts';
import { SequelizeJobRepository } from '../../adapters/sequelize/sequelize-job-repository.ts';
import type { DeductionClaims } from '../../core/ports/deduction-claims.port.ts';
import type { InputImageSource, TemplateSource, UserEventPublisher } from '../../core/ports/generation-sources.port.ts';
import type { HistoryRepository } from '../../core/ports/history-repository.port.ts';
import type { JobRepository } from '../../core/ports/job-repository.port.ts';
import type { ObjectStorage } from '../../core/ports/object-storage.port.ts';
import type { Outbox } from '../../core/ports/outbox.port.ts';
import type { Consumer, MessageQueue } from '../../core/ports/queue.port.ts';
import type { TemplateRepository } from '../../core/ports/template-repository.port.ts';
import type { UploadRepository } from '../../core/ports/upload-repository.port.ts';
import type { EventBus } from '../../core/ports/user-events.port.ts';
import type { WorkflowEngine } from '../../core/ports/workflow-engine.port.ts';
import { CancelGeneration } from '../../core/use-cases/generation/cancel-generation.use-case.ts';
import { OutputHistory } from '../../core/use-cases/generation/history.use-case.ts';
import { JobControl } from '../../core/use-cases/generation/job-control.ts';
import { JobQueries } from '../../core/use-cases/generation/job-queries.use-case.ts';
import { RunGeneration } from '../../core/use-cases/generation/run-generation.use-case.ts';
import { SubmitGeneration } from '../../core/use-cases/generation/submit-generation.use-case.ts';
import { SweepUnclaimedDeductions } from '../../core/use-cases/generation/sweep-unclaimed-deductions.use-case.ts';
import type { ExecuteIdempotently } from '../../core/use-cases/idempotency/execute-idempotently.use-case.ts';
import type { Config } from '../config.ts';
import { TOKENS, type ActiveJobsSnapshot, type LifecycleBinding } from '../tokens.ts';
import { portsOf } from './ports.ts';
import { periodic } from './periodic.ts';

export const GENERATION = {
  Jobs: Symbol.for('JobRepository'),
  History: Symbol.for('HistoryRepository'),
  Claims: Symbol.for('DeductionClaims'),
  Engine: Symbol.for('WorkflowEngine'),
  JobControl: Symbol.for('JobControl'),
  OutputHistory: Symbol.for('OutputHistory'),
  JobQueries: Symbol.for('JobQueries'),
  RunGeneration: Symbol.for('RunGeneration'),
} as const;

function createEngine(config: Readonly<Config>): WorkflowEngine {
  if (config.engine.driver === 'builtin') return new BuiltinEngine({ workDir: config.engine.workDir });
  throw new Error(`ENGINE_DRIVER=${config.engine.driver} is not available in this build (only builtin)`);
}

/** Generation end to end: jobs, history, the worker, cancel, refunds and the sweepers. */
export function bindGeneration(container: Container, config: Readonly<Config>): void {
  const ports = portsOf(container);
  const get = <T>(token: symbol) => container.get<T>(token);
  container.bind(GENERATION.Jobs).toDynamicValue(() => new SequelizeJobRepository(ports.db())).inSingletonScope();
  container.bind(GENERATION.History).toDynamicValue(() => new SequelizeHistoryRepository(ports.db())).inSingletonScope();
  container.bind(GENERATION.Claims).toDynamicValue(() => new SequelizeDeductionClaims(ports.db())).inSingletonScope();
  container.bind(GENERATION.Engine).toDynamicValue(() => createEngine(config)).inSingletonScope();
  container.bind(GENERATION.JobControl).toDynamicValue(() => new JobControl(get<EventBus>(TOKENS.EventBus))).inSingletonScope();

  const refundDeps = () => ({
    jobs: get<JobRepository>(GENERATION.Jobs),
    ledger: ports.ledger(),
    claims: get<DeductionClaims>(GENERATION.Claims),
    uow: ports.uow(),
    ids: ports.ids(),
    clock: ports.clock(),
  });
  const events = () => get<UserEventPublisher>(TOKENS.PublishUserEvent);
  const images = (): InputImageSource => {
    const uploads = get<UploadRepository>(TOKENS.UploadRepository);
    const history = get<HistoryRepository>(GENERATION.History);
    return {
      async find(userId, id) {
        const upload = await uploads.findForUser(id, userId);
        if (upload) return { id, storageKey: upload.storageKey, mimeType: upload.mimeType, kind: 'upload' };
        const output = await history.findForUser(id, userId);
        return output ? { id, storageKey: output.storageKey, mimeType: output.mimeType, kind: 'output' } : null;
      },
      async markUsed(image, at) {
        if (image.kind === 'upload') await uploads.markUsed(image.id, at);
      },
    };
  };
  const templates = (): TemplateSource => {
    const repository = get<TemplateRepository>(TOKENS.TemplateRepository);
    return {
      async findActive(templateId) {
        const template = await repository.findById(templateId);
        if (!template || !template.isActive) return null;
        return { id: template.id, version: template.version, workflow: template.workflow, parameterMap: template.parameterMap, cost: template.cost, outputType: template.outputType };
      },
    };
  };

  container
    .bind(GENERATION.OutputHistory)
    .toDynamicValue(
      () =>
        new OutputHistory({
          history: get<HistoryRepository>(GENERATION.History),
          storage: get<ObjectStorage>(TOKENS.ObjectStorage),
          clock: ports.clock(),
          logger: ports.logger().child({ component: 'history' }),
          viewUrlTtlSeconds: config.outputs.viewUrlTtlSeconds,
          downloadUrlTtlSeconds: config.outputs.downloadUrlTtlSeconds,
        }),
    )
    .inSingletonScope();
  const outputHistory = () => get<OutputHistory>(GENERATION.OutputHistory);
  container
    .bind(GENERATION.JobQueries)
    .toDynamicValue(() => new JobQueries({ jobs: get<JobRepository>(GENERATION.Jobs), history: get<HistoryRepository>(GENERATION.History), viewUrl: outputHistory().viewUrl }))
    .inSingletonScope();
  container.bind<ActiveJobsSnapshot>(TOKENS.ActiveJobsSnapshot).toDynamicValue(() => {
    const queries = get<JobQueries>(GENERATION.JobQueries);
    return (userId: string) => queries.active(userId);
  });
  container
    .bind(GENERATION.RunGeneration)
    .toDynamicValue(() => {
      const control = get<JobControl>(GENERATION.JobControl);
      return new RunGeneration({
        ...refundDeps(),
        engine: get<WorkflowEngine>(GENERATION.Engine),
        storage: get<ObjectStorage>(TOKENS.ObjectStorage),
        history: get<HistoryRepository>(GENERATION.History),
        images: images(),
        events: events(),
        logger: ports.logger().child({ component: 'worker' }),
        retentionDays: config.outputs.retentionDays,
        maxAttempts: config.generation.maxAttempts,
        visibilitySeconds: config.generation.visibilitySeconds,
        viewUrl: outputHistory().viewUrl,
        onCancel: (jobId, abort) => control.onCancel(jobId, abort),
      });
    })
    .inSingletonScope();

  container.bind<RouteModule>(TOKENS.RouteModule).toDynamicValue(() => {
    const control = get<JobControl>(GENERATION.JobControl);
    const logger = ports.logger().child({ component: 'generation' });
    return generationRoutes({
      submit: new SubmitGeneration({
        ...refundDeps(),
        templates: templates(),
        images: images(),
        outbox: get<Outbox>(TOKENS.Outbox),
        events: events(),
        logger,
        random: Math.random,
        environment: config.appEnv,
        requireTemplate: config.generation.requireTemplate,
        outputNodeTypes: config.generation.outputNodeTypes,
        allowedNodeTypes: config.generation.allowedNodeTypes,
      }),
      cancel: new CancelGeneration({ ...refundDeps(), events: events(), logger, requestCancel: (jobId) => control.requestCancel(jobId) }),
      queries: get<JobQueries>(GENERATION.JobQueries),
      idempotency: get<ExecuteIdempotently>(TOKENS.Idempotency),
    });
  });
  container.bind<RouteModule>(TOKENS.RouteModule).toDynamicValue(() => outputsRoutes({ history: outputHistory() }));

  container.bind<LifecycleBinding>(TOKENS.Lifecycle).toDynamicValue(() => workerLifecycle(container, config));
  container.bind<LifecycleBinding>(TOKENS.Lifecycle).toDynamicValue(() =>
    periodic('generation-sweepers', ['api'], 60_000, ports.logger(), async () => {
      await new SweepUnclaimedDeductions({ ...refundDeps(), logger: ports.logger(), unclaimedMinutes: config.generation.unclaimedDeductionMinutes }).execute();
      await outputHistory().sweepExpired();
    }),
  );
}

function workerLifecycle(container: Container, config: Readonly<Config>): LifecycleBinding {
  let consumer: Consumer | null = null;
  return {
    name: 'generation-worker',
    roles: ['worker'],
    async start() {
      await container.get<JobControl>(GENERATION.JobControl).start();
      const run = container.get<RunGeneration>(GENERATION.RunGeneration);
      consumer = await container.get<MessageQueue>(TOKENS.Queue).consume(
        {
          taskTypes: ['generation'],
          environment: config.appEnv,
          concurrency: config.generation.workerConcurrency,
          maxAttempts: config.generation.maxAttempts,
          visibilitySeconds: config.generation.visibilitySeconds,
        },
        (message) => run.execute(message),
      );
    },
    async stop() {
      await consumer?.stop();
      consumer = null;
      await container.get<JobControl>(GENERATION.JobControl).stop();
      await container.get<WorkflowEngine>(GENERATION.Engine).close();
    },
  };
}
