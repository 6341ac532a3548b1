import type { Request, Response } from 'express';
import { jobView } from '../../../core/use-cases/generation/history-view.service.ts';
import type { CancelGeneration } from '../../../core/use-cases/generation/cancel-generation.use-case.ts';
import type { JobQueries } from '../../../core/use-cases/generation/job-queries.service.ts';
import type { SubmitGeneration, SubmittedJob } from '../../../core/use-cases/generation/submit-generation.use-case.ts';
import type { ApiRouter } from '../api-router.ts';
import { sendFail } from '../error-table.ts';
import { failureResponse, idempotencyKeyHeader, idempotencyKeyValidation, type IdempotentResponder } from '../idempotency.ts';
import { pageQuery, pageSchema, ref } from '../openapi.ts';
import { historyItemSchema } from './outputs.routes.ts';

export interface GenerationRoutesDeps {
  submit: SubmitGeneration;
  cancel: CancelGeneration;
  queries: JobQueries;
  idempotency: IdempotentResponder;
}

export const jobSchema = {
  type: 'object',
  required: ['id', 'status', 'templateId', 'progress', 'statusText', 'outputs', 'error', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    status: {
      type: 'string',
      enum: ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'expired'],
      description: '`expired`: the job was still queued at its `startDeadline` and ended without running; its coins came back (like `cancelled`).',
    },
    templateId: { type: ['string', 'null'] },
    templateVersion: { type: ['integer', 'null'] },
    progress: { type: 'object', properties: { value: { type: 'number' }, max: { type: 'number' } } },
    statusText: { type: 'string' },
    outputs: { type: 'array', items: historyItemSchema },
    textOutputs: { type: 'array', items: { type: 'object', properties: { nodeId: { type: 'string' }, text: { type: 'string' } } } },
    usedParameters: { type: 'object' },
    error: { type: ['object', 'null'], properties: { code: { type: 'string' }, message: { type: 'string' }, nodeId: { type: 'string' } } },
    paidCoins: { type: 'integer' },
    refundedCoins: { type: 'integer' },
    testRun: { type: 'boolean', description: "An administrator's test run of a template (ADR 043): charged to nobody, and not in GET /generate or GET /my-outputs." },
    startDeadline: { type: ['string', 'null'], format: 'date-time', description: 'createdAt + the startDeadlineSeconds the client sent, or null: a job not started by then ends `expired`.' },
    position: {
      type: ['integer', 'null'],
      minimum: 0,
      description:
        'Queued jobs ahead of this one, every user\'s, in the order the queue hands them out: with the database queue (QUEUE_DRIVER=db) owners take turns: each job gets a turn when it is submitted, 1 + the jobs its owner then had queued or running, jobs of a lower turn go first and the jobs of one turn go in creation order (a user with jobs running waits behind users without); with RabbitMQ or SQS (FIFO) the jobs created before it. At the same instant the lower id goes first; running jobs are not counted. 0 = next to start. null unless the job is queued. Given by GET /generate/{id} and GET /generate (not by the 202 of POST /generate). With several ComfyUI servers only the jobs that compete for this job\'s servers are counted: a job runs on the servers whose catalogue (GET /object_info) has no problem with its template\'s workflow and parameter map, each enum parameter narrowed to the value the job chose (a job that chose a checkpoint needs a server that has that checkpoint, not every one the template offers); two jobs compete when they share such a server, or when either set is unknown (a raw workflow, a server that never answered, a job no server can run). What each template and choice runs on is re-read every 30 s and at once when a server\'s catalogue changes.',
    },
    etaSeconds: {
      type: ['integer', 'null'],
      minimum: 0,
      description:
        'Estimated seconds until the job is done. A run estimate is the median run time (finish - start) of the last 20 succeeded jobs of the same template that chose the same values for its enum parameters (such as a checkpoint, a size or a step count), among that template\'s last 200 successes (on the servers this job can run on, when they are told apart); else of the last 20 succeeded jobs of the same template on the servers this job can run on (each job records the ComfyUI server it was handed to), else of the last 20 succeeded jobs of the same template on any server, else of the last 20 succeeded jobs of any template, else unknown. Queued: ceil((start + own run estimate) / 1000 ms). slots = the servers this job can run on (all of them when unknown) x COMFYUI_JOBS_PER_SERVER, or WORKER_CONCURRENCY with the builtin engine; each running job on those servers (every running job with the builtin engine or one server) holds a slot for the time it has left (as for a running job below; 0 once it has outlasted its recent runs), except one waiting out a retry delay after a temporary failure: until its next attempt starts it holds no slot, and its run estimate joins the sum ahead of every queued job that would otherwise start after the retry is due (a due retry is taken before the queue); the sum of the run estimates of the queued jobs ahead (those counted in position) is then poured over the slots as they free: start = the level T at which the sum over the slots of max(0, T - the time the slot is held) equals that sum (nothing running: the sum / slots; a free slot and nothing ahead: 0; running jobs beyond the slots add their time to the sum). Running: ceil(time left / 1000 ms), time left = the median of (run time - time since it started) over the runs its run estimate is the median of (on the server it was handed to when the engine names one) that lasted longer than it has run so far, so a job past the quick runs of a template is given the rest of the slow runs (while every one lasted longer: own run estimate - time since it started); null once it has run at least as long as every one of them (no estimate, rather than 0); while it waits out a retry delay (until its next attempt starts), ceil(max(0, time until the retry) + own run estimate). null when the job is finished or an estimate it needs is unknown.',
    },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};

const submitBody = {
  type: 'object',
  description: '`workflow` (ComfyUI API format) or `templateId` is required.',
  properties: {
    workflow: { type: 'object', additionalProperties: { type: 'object', properties: { class_type: { type: 'string' }, inputs: { type: 'object' } } } },
    templateId: { type: 'string', format: 'uuid' },
    parameters: { type: 'object' },
    requestId: { type: 'string', format: 'uuid', description: 'Becomes the job id; a repeat returns the existing job. Links a prior POST /coin/deduct with this relatedEntityId.' },
    startDeadlineSeconds: {
      type: 'integer',
      minimum: 1,
      maximum: 86400,
      description:
        'Time-to-start deadline: if no worker has started the job this many seconds after submission, it ends `expired` (event `job.expired`) and is refunded in full, exactly once. A worker checks it before starting; a sweep (every few seconds) ends jobs still queued past it.',
    },
    webhook: { type: 'string', format: 'uri', description: 'Called back, signed (Standard Webhooks; GET /webhook-secret), at the moments of `webhookEvents`. https only (plain http only to hosts the operator allows).' },
    webhookEvents: { type: 'array', items: { type: 'string', enum: ['started', 'output', 'completed'] }, description: "Default ['completed']; `completed` is sent when the job succeeds, fails or is cancelled." },
  },
};

export const generationRoutes = (deps: GenerationRoutesDeps) => (api: ApiRouter) => {
  api.add(
    {
      method: 'post',
      path: '/generate',
      summary: 'Queue a generation from a template (with parameters) or a workflow',
      tag: 'generation',
      auth: 'access',
      validate: idempotencyKeyValidation,
      headers: idempotencyKeyHeader,
      body: submitBody,
      responses: {
        202: { description: 'Queued', schema: jobSchema },
        200: { description: 'The job with this requestId already exists', schema: jobSchema },
        402: { description: 'Not enough coins', schema: ref('Error') },
        429: {
          description:
            'Too many queued or running jobs of this user (MAX_ACTIVE_JOBS_PER_USER, Retry-After 10), or the queue is full (QUEUE_MAX_DEPTH queued jobs of all users or more). A full queue refuses before any coin moves; its Retry-After is the run estimate of the job at the head of the queue in whole seconds, at least 1: the median run time of the last 20 successes of its template, else of any template, else 10.',
          schema: ref('Error'),
        },
        409: { description: 'requestId used by someone else, or Idempotency-Key reused with another body', schema: ref('Error') },
      },
    },
    async (req: Request, res: Response) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      await deps.idempotency.respond(req, res, async (commitWith) => {
        // A job just created has no outputs yet: its view needs no lookup, so it can be stored in the submit's transaction.
        const created = ({ job }: SubmittedJob) => ({ status: 202, body: jobView(job, []) });
        const result = await deps.submit.execute({
          userId: req.principal!.userId,
          role: req.principal!.user.role,
          workflow: body.workflow,
          templateId: body.templateId,
          parameters: body.parameters,
          requestId: body.requestId,
          startDeadlineSeconds: body.startDeadlineSeconds,
          webhook: body.webhook,
          webhookEvents: body.webhookEvents,
          alsoCommit: commitWith(created),
        });
        if (!result.ok) {
          const refused = failureResponse(result);
          return 'retryAfterSeconds' in result && result.retryAfterSeconds ? { ...refused, headers: { 'Retry-After': String(result.retryAfterSeconds) } } : refused;
        }
        return result.value.created ? created(result.value) : { status: 200, body: await deps.queries.view(result.value.job) };
      });
    },
  );

  api.add(
    { method: 'get', path: '/generate', summary: "The caller's jobs, newest first", tag: 'generation', auth: 'access', query: pageQuery, responses: { 200: { description: 'Page of jobs', schema: pageSchema(jobSchema) } } },
    async (req: Request, res: Response) => {
      const result = await deps.queries.list({ userId: req.principal!.userId, page: req.query.page, limit: req.query.limit });
      if (!result.ok) return sendFail(res, result);
      res.json(result.value);
    },
  );

  api.add(
    { method: 'get', path: '/generate/:id', summary: 'One of the caller\'s jobs', tag: 'generation', auth: 'access', responses: { 200: { description: 'The job', schema: jobSchema }, 404: { description: 'Unknown or not yours', schema: ref('Error') } } },
    async (req: Request, res: Response) => {
      const result = await deps.queries.get({ userId: req.principal!.userId, jobId: String(req.params.id) });
      if (!result.ok) return sendFail(res, result);
      res.json(result.value);
    },
  );

  api.add(
    {
      method: 'post',
      path: '/generate/:id/cancel',
      summary: 'Cancel a queued or running job (the engine is interrupted; unused coins come back)',
      tag: 'generation',
      auth: 'access',
      responses: { 200: { description: 'Cancelled', schema: jobSchema }, 404: { description: 'Unknown or not yours', schema: ref('Error') }, 409: { description: 'Already finished', schema: ref('Error') } },
    },
    async (req: Request, res: Response) => {
      const id = String(req.params.id).toLowerCase();
      const result = await deps.cancel.execute({ userId: req.principal!.userId, jobId: id });
      if (!result.ok) return sendFail(res, result);
      res.json(await deps.queries.view(result.value));
    },
  );
};
