import type { Request, Response } from 'express';
import { isPlainObject } from '../../../core/domain/workflow-graph.ts';
import { V2_ERROR_SCHEMA } from '../comfy-v2-views.ts';
import type { CancelGeneration } from '../../../core/use-cases/generation/cancel-generation.use-case.ts';
import type { JobQueries } from '../../../core/use-cases/generation/job-queries.service.ts';
import type { SubmitGeneration, SubmittedJob } from '../../../core/use-cases/generation/submit-generation.use-case.ts';
import type { JobEventFeed } from '../../../core/use-cases/events/job-event-feed.service.ts';
import type { ApiRouter } from '../api-router.ts';
import { isTerminalEvent, originOf, v2Error, v2Frame, v2Job, v2SubmitFailure, v2Surface } from '../comfy-v2-views.ts';
import { idempotencyKeyHeader, idempotencyKeyValidation, type IdempotentResponder } from '../idempotency.ts';

export interface ComfyV2RoutesDeps {
  submit: SubmitGeneration;
  cancel: CancelGeneration;
  queries: JobQueries;
  feed: JobEventFeed;
  idempotency: IdempotentResponder;
  /** How long a job is described as kept (its `expires_at`): the outputs' retention. */
  retentionMs: number;
  /** A comment line this often keeps an idle event stream open through proxies and the SDK's 45 s idle limit. */
  heartbeatMs?: number;
}

const envelope = V2_ERROR_SCHEMA;
const output = {
  type: 'object',
  required: ['node_id', 'name', 'type', 'content_type', 'size_bytes', 'id', 'hash', 'url', 'url_expires_at'],
  properties: {
    node_id: { type: 'string' }, name: { type: 'string' }, type: { type: 'string', enum: ['image', 'video', 'audio', 'text', 'file', 'latent'] }, content_type: { type: 'string' },
    size_bytes: { type: 'integer' }, id: { type: 'string' }, hash: { type: ['string', 'null'] }, url: { type: 'string', format: 'uri' }, url_expires_at: { type: 'string', format: 'date-time' }, job_id: { type: ['string', 'null'] },
  },
};
const v2JobSchema = {
  type: 'object',
  description: 'A Comfy API v2 Job',
  required: ['id', 'status', 'created_at', 'started_at', 'completed_at', 'expires_at', 'queue_position', 'progress', 'outputs', 'error', 'urls'],
  properties: {
    id: { type: 'string' },
    status: { type: 'string', enum: ['queued', 'running', 'succeeded', 'canceling', 'canceled', 'failed', 'expired'] },
    created_at: { type: 'string', format: 'date-time' }, started_at: { type: ['string', 'null'], format: 'date-time' }, completed_at: { type: ['string', 'null'], format: 'date-time' }, expires_at: { type: 'string', format: 'date-time' },
    queue_position: { type: ['integer', 'null'] },
    progress: { type: ['object', 'null'], properties: { value: { type: 'number' }, nodes_done: { type: 'integer' }, nodes_total: { type: 'integer' }, step: { type: ['integer', 'null'] }, steps: { type: ['integer', 'null'] }, message: { type: ['string', 'null'] } } },
    outputs: { type: 'array', items: output },
    error: { type: ['object', 'null'], properties: { code: { type: 'string' }, message: { type: 'string' }, node_id: { type: ['string', 'null'] } } },
    urls: { type: 'object', properties: { self: { type: 'string' }, events: { type: 'string' }, cancel: { type: 'string' } } },
  },
};
const notFound = { description: '`not_found`: unknown or not yours', schema: envelope };
const tag = 'comfy-v2';

/** ComfyUI's UI-export format (what the SDK checks before it submits): v2 refuses it as 422 `workflow_format_ui`. */
const UI_FORMAT_KEYS = ['nodes', 'links', 'last_node_id'];
const isUiFormat = (workflow: unknown): boolean => isPlainObject(workflow) && UI_FORMAT_KEYS.every((key) => key in workflow);

/** The last seq a resuming client saw (`Last-Event-ID`), undefined when it sent none, NaN when it is not a seq. */
function lastEventId(req: Request): number | undefined {
  const raw = req.get('last-event-id');
  if (raw === undefined || raw.trim() === '') return undefined;
  return /^\d{1,15}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
}

/**
 * The Comfy API v2 job surface at /api/v2 (ADR 040), so that @comfyorg/sdk works unchanged with an API key: a v2
 * job is one of our jobs (submitted as a workflow: same pricing, payment, refunds, history and WebSocket events),
 * its outputs are v2 assets (comfy-v2-assets.routes.ts).
 */
export const comfyV2Routes = (deps: ComfyV2RoutesDeps) => (root: ApiRouter) => {
  const api = v2Surface(root);
  const view = (req: Request, found: Awaited<ReturnType<JobQueries['detail']>> & { ok: true }) => v2Job(originOf(req), found.value.job, found.value.view.outputs, deps.retentionMs, found.value.view.position ?? null);
  const detail = (req: Request) => deps.queries.detail({ userId: req.principal!.userId, jobId: String(req.params.id) });
  const sendNotFound = (res: Response, message: string) => void res.status(404).json(v2Error('not_found', message));
  const sendJob = async (req: Request, res: Response) => {
    const found = await detail(req);
    if (!found.ok) return sendNotFound(res, found.message);
    res.json(view(req, found));
  };

  api.add(
    {
      method: 'post',
      path: '/jobs',
      summary: 'Comfy API v2: run an API-format workflow (priced and paid like POST /generate with a workflow)',
      tag,
      auth: 'access',
      validate: idempotencyKeyValidation,
      headers: idempotencyKeyHeader,
      body: { type: 'object', required: ['workflow'], properties: { workflow: { type: 'object' }, extra_data: { type: 'object', properties: { api_key_comfy_org: { type: 'string' } } } } },
      responses: {
        201: { description: 'Job created and queued (a repeat with the same Idempotency-Key and body returns the same job)', schema: v2JobSchema },
        402: { description: '`insufficient_credits`', schema: envelope },
        422: { description: '`invalid_workflow` (details.problems per field), `workflow_format_ui` (a UI-export graph), or `idempotency_key_reuse` (same key, another body)', schema: envelope },
        429: { description: '`queue_full` (MAX_ACTIVE_JOBS_PER_USER, or QUEUE_MAX_DEPTH queued jobs of all users), see Retry-After', schema: envelope },
      },
    },
    async (req: Request, res: Response) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const origin = originOf(req);
      // v2: extra_data (a partner-node key) is excluded from the idempotency comparison, so the key's fingerprint
      // covers the workflow alone (a retry with a rotated partner key replays instead of 422 idempotency_key_reuse).
      req.body = { workflow: body.workflow ?? null };
      await deps.idempotency.respond(req, res, async (commitWith) => {
        if (isUiFormat(body.workflow)) return { status: 422, body: v2Error('workflow_format_ui', 'The workflow is in UI-export format (nodes, links, last_node_id): submit the API-format graph') };
        const created = ({ job }: SubmittedJob) => ({ status: 201, body: v2Job(origin, job, [], deps.retentionMs) });
        const result = await deps.submit.execute({ userId: req.principal!.userId, role: req.principal!.user.role, workflow: body.workflow ?? null, alsoCommit: commitWith(created) });
        if (result.ok) return created(result.value);
        const refused = v2SubmitFailure(result);
        return 'retryAfterSeconds' in result && result.retryAfterSeconds ? { ...refused, headers: { 'Retry-After': String(result.retryAfterSeconds) } } : refused;
      });
    },
  );

  api.add(
    { method: 'get', path: '/jobs/:id', summary: 'Comfy API v2: one of the caller\'s jobs', tag, auth: 'access', responses: { 200: { description: 'The job', schema: v2JobSchema }, 404: notFound } },
    sendJob,
  );

  api.add(
    {
      method: 'get',
      path: '/jobs/:id/workflow',
      summary: 'Comfy API v2: the API-format workflow the job ran (`format: api`)',
      tag,
      auth: 'access',
      responses: { 200: { description: 'The workflow graph', schema: { type: 'object', required: ['workflow', 'format'], properties: { workflow: { type: 'object' }, format: { type: 'string', enum: ['save', 'api'] } } } }, 404: notFound },
    },
    async (req: Request, res: Response) => {
      const found = await detail(req);
      if (!found.ok) return sendNotFound(res, found.message);
      res.json({ workflow: found.value.job.workflow, format: 'api' });
    },
  );

  api.add(
    {
      method: 'post',
      path: '/jobs/:id/cancel',
      summary: 'Comfy API v2: cancel a queued or running job (unused coins come back); a finished job is returned as it is',
      tag,
      auth: 'access',
      responses: { 200: { description: 'Current job state', schema: v2JobSchema }, 404: notFound },
    },
    async (req: Request, res: Response) => {
      const cancelled = await deps.cancel.execute({ userId: req.principal!.userId, jobId: String(req.params.id).toLowerCase() });
      if (!cancelled.ok && cancelled.code !== 'JOB.FINISHED') return sendNotFound(res, cancelled.message);
      await sendJob(req, res);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/jobs/:id/events',
      summary: 'Comfy API v2: the job\'s events as Server-Sent Events; each frame\'s id is a seq of the caller\'s event log, so `Last-Event-ID` resumes after it',
      tag,
      auth: 'access',
      headers: { 'Last-Event-ID': { type: 'string', pattern: '^[0-9]+$', description: 'Resume: replay the stored events of this job after this seq, then follow live' } },
      responses: { 200: { description: '`text/event-stream` of status, progress, output and log frames; ends after the terminal status' }, 400: { description: '`invalid_request`: Last-Event-ID is not a seq', schema: envelope }, 404: notFound },
    },
    async (req: Request, res: Response) => {
      const since = lastEventId(req);
      if (Number.isNaN(since)) return void res.status(400).json(v2Error('invalid_request', 'Last-Event-ID must be the id of a frame of this stream (a non-negative integer)'));
      const opened = await deps.feed.open({ userId: req.principal!.userId, jobId: String(req.params.id), ...(since === undefined ? {} : { since }) });
      if (!opened.ok) return sendNotFound(res, opened.message);
      const feed = opened.value;
      const origin = originOf(req);
      // A fresh stream starts from the job's current status and, while it is queued, its place in the queue.
      let position: number | null = null;
      if (since === undefined && feed.job.status === 'queued') {
        try {
          position = (await deps.queries.view(feed.job)).position ?? null;
        } catch (error) {
          await feed.close();
          throw error;
        }
      }
      // A client that left while the feed opened (its 'close' came before any listener) gets nothing; else its
      // subscription and heartbeat would last until the job ends.
      if (res.destroyed) return void (await feed.close());
      res.status(200).set({ 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
      res.flushHeaders();
      let ended = false;
      const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), deps.heartbeatMs ?? 15_000);
      const end = () => {
        if (ended) return;
        ended = true;
        clearInterval(heartbeat);
        void feed.close();
        res.end();
      };
      req.on('close', end);
      const snapshot = v2Job(origin, feed.job, [], deps.retentionMs);
      // A resumed stream starts from what it missed.
      if (since === undefined) res.write(`event: status\ndata: ${JSON.stringify({ status: snapshot.status, queue_position: position })}\n\n`);
      try {
        await feed.follow(({ seq, event }) => {
          if (ended) return;
          const frame = v2Frame(origin, seq, event);
          if (frame) res.write(frame);
          if (isTerminalEvent(event)) end();
        });
      } catch (error) {
        // The headers are out: the client sees the stream end, and resumes with the last id it got.
        end();
        throw error;
      }
      if (!ended && snapshot.completed_at !== null) {
        if (since !== undefined) res.write(`event: status\ndata: ${JSON.stringify({ status: snapshot.status, queue_position: null })}\n\n`);
        end();
      }
    },
  );
};
