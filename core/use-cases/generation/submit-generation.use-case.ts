import { chargeReason, type GenerationJob, type ImageRef } from '../../domain/job.ts';
import { checkConformance, renderWorkflow } from '../../domain/render-workflow.ts';
import { fail, ok, validationFailed, type Fail, type Result } from '../../domain/result.ts';
import { isPlainObject, validateWorkflowGraph } from '../../domain/workflow-graph.ts';
import type { WorkflowGraph } from '../../domain/workflow-graph.types.ts';
import type { CoinLedger } from '../../ports/coin-ledger.port.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { DeductionClaims } from '../../ports/deduction-claims.port.ts';
import type { InputImageSource, TemplateSource, UserEventPublisher } from '../../ports/generation-sources.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { JobRepository } from '../../ports/job-repository.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { Outbox } from '../../ports/outbox.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import { refundDeduction } from './refunds.ts';
import { isUuid } from '../../domain/ids.ts';

export interface SubmitGenerationDeps {
  jobs: JobRepository;
  ledger: CoinLedger;
  claims: DeductionClaims;
  templates: TemplateSource;
  images: InputImageSource;
  outbox: Outbox;
  events: UserEventPublisher;
  uow: UnitOfWork;
  ids: IdGenerator;
  clock: Clock;
  logger: Logger;
  random: () => number;
  environment: string;
  requireTemplate: boolean;
  outputNodeTypes: readonly string[];
  allowedNodeTypes: readonly string[] | null;
}

export interface SubmitGenerationInput {
  userId: string;
  isAdmin: boolean;
  workflow?: unknown;
  templateId?: unknown;
  parameters?: unknown;
  requestId?: unknown;
}

interface Prepared {
  workflow: WorkflowGraph;
  usedParameters: Record<string, unknown>;
  imageRefs: ImageRef[];
  templateId: string | null;
  templateVersion: number | null;
  cost: number;
  outputType: 'image' | 'video';
}

const VIDEO_NODES = new Set(['SaveVideo', 'SaveWEBM', 'VHS_VideoCombine']);

class Rollback extends Error {
  constructor(readonly outcome: 'taken' | 'insufficient') {
    super(outcome);
  }
}

/** POST /generate: one transaction charges (or claims a linked deduction), creates the job and queues its message. */
export class SubmitGeneration {
  constructor(private readonly deps: SubmitGenerationDeps) {}

  async execute(input: SubmitGenerationInput): Promise<Result<{ job: GenerationJob; created: boolean }>> {
    const requestId = isUuid(input.requestId) ? input.requestId.toLowerCase() : null;
    if (input.requestId !== undefined && input.requestId !== null && requestId === null) {
      return validationFailed([{ field: 'requestId', message: 'must be a UUID' }]);
    }
    if (requestId) {
      const existing = await this.deps.jobs.findById(requestId);
      if (existing) return this.existing(existing, input.userId);
    }
    const prepared = await this.prepare(input);
    if (!prepared.ok) return this.reject(input.userId, requestId, prepared);

    const jobId = requestId ?? this.deps.ids.newId();
    try {
      // outbox.add() wakes the relay once the transaction commits; nothing to do here.
      const job = await this.deps.uow.run(() => this.create(jobId, input.userId, requestId, prepared.value));
      await this.publish(job, { type: 'job.queued', jobId: job.id });
      return ok({ job, created: true });
    } catch (error) {
      if (!(error instanceof Rollback)) throw error;
      if (error.outcome === 'taken') {
        const existing = await this.deps.jobs.findById(jobId);
        if (existing) return this.existing(existing, input.userId);
        throw new Error(`job ${jobId} was taken but cannot be found`);
      }
      return this.reject(input.userId, requestId, fail('COIN.INSUFFICIENT', 'Not enough coins for this template'));
    }
  }

  private existing(job: GenerationJob, userId: string): Result<{ job: GenerationJob; created: boolean }> {
    return job.userId === userId ? ok({ job, created: false }) : fail('CONFLICT', 'requestId is already in use');
  }

  /** A rejected request gives back the deduction the client made for it, at once (the seed's client order). */
  private async reject(userId: string, requestId: string | null, failure: Fail): Promise<Fail> {
    if (requestId) {
      const linked = await this.deps.claims.findUnclaimed(userId, requestId);
      if (linked) await refundDeduction(this.deps, { ...linked, userId, relatedEntityId: requestId });
    }
    return failure;
  }

  private async create(jobId: string, userId: string, requestId: string | null, prepared: Prepared): Promise<GenerationJob> {
    const { jobs, ledger, claims, outbox, ids, clock, images } = this.deps;
    const now = clock.now();
    let linkedPaid = 0;
    const linked = requestId ? await claims.findUnclaimed(userId, requestId) : null;
    if (linked && (await claims.claim(linked.id, 'job', jobId, now))) linkedPaid = linked.amount;
    // A linked deduction smaller than the template's cost is topped up, never silently accepted.
    const due = Math.max(0, prepared.cost - linkedPaid);
    // The charge comes first: it is the one step that can refuse, and on adapters without rollback
    // (the in-memory ones) nothing must have been written when it does.
    if (due > 0) {
      const charge = await ledger.apply({
        id: ids.newId(),
        userId,
        amount: -due,
        reason: chargeReason(prepared.outputType),
        relatedEntityId: jobId,
        actorId: userId,
        createdAt: now,
      });
      if (!charge.ok) throw new Rollback('insufficient');
      // Claimed at once, so the unclaimed-deduction sweeper can never mistake it for a client's deduction.
      await claims.claim(charge.transaction.id, 'job', jobId, now);
    }
    const job: GenerationJob = {
      id: jobId,
      userId,
      templateId: prepared.templateId,
      templateVersion: prepared.templateVersion,
      status: 'queued',
      progress: { value: 0, max: 1 },
      statusText: 'Queued',
      workflow: prepared.workflow,
      usedParameters: prepared.usedParameters,
      imageRefs: prepared.imageRefs,
      outputType: prepared.outputType,
      paidCoins: linkedPaid + due,
      refundedCoins: 0,
      error: null,
      textOutputs: [],
      attempts: 0,
      createdAt: now,
      updatedAt: now,
      startedAt: null,
      finishedAt: null,
    };
    if (!(await jobs.create(job))) throw new Rollback('taken');
    await outbox.add({
      id: ids.newId(),
      createdAt: now,
      message: {
        taskType: 'generation',
        environment: this.deps.environment,
        messageId: jobId,
        body: { jobId, userId, workflow: prepared.workflow, outputType: prepared.outputType },
      },
    });
    for (const ref of prepared.imageRefs) {
      const image = await images.find(userId, ref.id);
      if (image) await images.markUsed(image, now);
    }
    return job;
  }

  private async prepare(input: SubmitGenerationInput): Promise<Result<Prepared>> {
    const { workflow, templateId, parameters } = input;
    if (workflow === undefined && templateId === undefined) {
      return validationFailed([{ field: 'workflow', message: 'workflow or templateId is required' }]);
    }
    if (workflow !== undefined && !isPlainObject(workflow)) {
      return validationFailed([{ field: 'workflow', message: 'must be a ComfyUI API-format workflow object' }]);
    }
    const graphOptions = { outputNodeTypes: this.deps.outputNodeTypes, ...(this.deps.allowedNodeTypes ? { allowedNodeTypes: this.deps.allowedNodeTypes } : {}) };
    if (templateId === undefined) {
      if (this.deps.requireTemplate && !input.isAdmin) {
        return validationFailed([{ field: 'templateId', message: 'is required: this service only runs templates' }]);
      }
      if (parameters !== undefined) return validationFailed([{ field: 'parameters', message: 'only apply together with templateId' }]);
      const graph = validateWorkflowGraph(workflow, graphOptions);
      if (!graph.ok) return graph;
      const outputType = Object.values(graph.value).some((node) => VIDEO_NODES.has(node.class_type)) ? 'video' : 'image';
      return ok({ workflow: graph.value, usedParameters: {}, imageRefs: [], templateId: null, templateVersion: null, cost: 0, outputType });
    }
    if (!isUuid(templateId)) return validationFailed([{ field: 'templateId', message: 'must be a UUID' }]);
    const template = await this.deps.templates.findActive(templateId.toLowerCase());
    if (!template) return validationFailed([{ field: 'templateId', message: 'no active template with this id' }]);

    let rendered;
    if (workflow !== undefined) {
      if (parameters !== undefined) return validationFailed([{ field: 'parameters', message: 'send either workflow or parameters with a templateId, not both' }]);
      const graph = validateWorkflowGraph(workflow, graphOptions);
      if (!graph.ok) return graph;
      rendered = checkConformance(template, graph.value, this.deps.random);
    } else {
      rendered = renderWorkflow(template, parameters, this.deps.random);
    }
    if (!rendered.ok) return rendered;
    // The template may predate a tightened ALLOWED_NODE_TYPES; the rendered graph is what runs.
    const final = validateWorkflowGraph(rendered.value.workflow, graphOptions);
    if (!final.ok) return final;
    for (const ref of rendered.value.imageRefs) {
      if (!(await this.deps.images.find(input.userId, ref.id))) {
        return validationFailed([{ field: `parameters.${ref.key}`, message: 'is not one of your uploads or outputs' }]);
      }
    }
    return ok({
      workflow: final.value,
      usedParameters: rendered.value.usedParameters,
      imageRefs: rendered.value.imageRefs,
      templateId: template.id,
      templateVersion: template.version,
      cost: template.cost,
      outputType: template.outputType,
    });
  }

  private async publish(job: GenerationJob, event: { type: string; jobId: string; [field: string]: unknown }): Promise<void> {
    try {
      await this.deps.events.execute({ userId: job.userId, event });
    } catch (error) {
      this.deps.logger.warn('event not published', { jobId: job.id, type: event.type, error });
    }
  }
}
