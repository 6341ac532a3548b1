import type { GenerationJob } from '../../domain/job.ts';
import { isUuid } from '../../domain/ids.ts';
import { fail, ok, type Result } from '../../domain/result.ts';
import type { UserRole } from '../../domain/user.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { TemplateRepository } from '../../ports/template-repository.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import { forGeneration } from '../generation/active-templates.service.ts';
import type { PrepareGeneration } from '../generation/prepare-generation.service.ts';
import { turnForJob, queueJob, type QueueJobDeps } from '../generation/queue-job.service.ts';
import { ACTIVE_JOBS_RETRY_AFTER_SECONDS, type SubmitFailure } from '../generation/submit-generation.use-case.ts';

export interface StartTestRunDeps extends QueueJobDeps {
  uow: UnitOfWork;
  templates: TemplateRepository;
  prepare: PrepareGeneration;
  clock: Clock;
}

export interface StartTestRunInput {
  userId: string;
  role: UserRole;
  templateId: unknown;
  parameters?: unknown;
}

/**
 * POST /admin/templates/{id}/test-runs (ADR 043): an administrator runs a template, draft or published, active or
 * not, before users may. The job takes the normal path (queue, worker, engine, outputs, events to the
 * administrator's sockets, cancel) but is charged to nobody: no coin moves when it is queued, and none when it
 * ends, since it was paid nothing. It is flagged as a test run, which keeps it out of the administrator's job
 * list and history; the template's test runs list it. Starting one is audit-logged with the job.
 */
export class StartTestRun {
  constructor(private readonly deps: StartTestRunDeps) {}

  async execute(input: StartTestRunInput): Promise<Result<GenerationJob> | SubmitFailure> {
    // The one way to a job nobody pays for: administrators only, whatever the route in front of it checks.
    if (input.role !== 'admin') return fail('AUTH.FORBIDDEN', 'Only administrators may test-run a template');
    if (!isUuid(input.templateId)) return fail('NOT_FOUND', 'No such template');
    const template = await this.deps.templates.findById(input.templateId.toLowerCase());
    if (!template) return fail('NOT_FOUND', 'No such template');
    const prepared = await this.deps.prepare.ofTemplate(input.userId, forGeneration(template), input.parameters);
    if (!prepared.ok) return prepared;
    const jobId = this.deps.ids.newId();
    const job = await this.deps.uow.run(async (tx) => {
      const queueTurn = await turnForJob(tx, this.deps, input.userId);
      if (queueTurn === null) return null;
      const at = this.deps.clock.now();
      const queued = await queueJob(tx, this.deps, { jobId, userId: input.userId, prepared: prepared.value, paidCoins: 0, testRun: true, startDeadline: null, queueTurn, at });
      if (!queued) throw new Error(`test run ${jobId}: the new job id is taken`);
      await tx.audit.record({
        id: this.deps.ids.newId(),
        actorId: input.userId,
        action: 'template.test_run',
        targetUserId: null,
        details: { templateId: template.id, name: template.name, version: template.version, jobId },
        createdAt: at,
      });
      return queued;
    });
    if (job) return ok(job);
    const max = this.deps.maxActiveJobsPerUser;
    return { ...fail('JOB.TOO_MANY_ACTIVE', `You have ${max} jobs queued or running, the most one user may have; start the test run again when one has finished`), retryAfterSeconds: ACTIVE_JOBS_RETRY_AFTER_SECONDS };
  }
}
