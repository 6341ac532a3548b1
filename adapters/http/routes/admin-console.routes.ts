import type { Request, Response } from 'express';
import type { AdminCancelJob } from '../../../core/use-cases/admin/admin-cancel-job.use-case.ts';
import type { InspectQueue } from '../../../core/use-cases/admin/inspect-queue.use-case.ts';
import type { AdminJobView, ListAllJobs } from '../../../core/use-cases/admin/list-all-jobs.use-case.ts';
import type { ListDeadLetters } from '../../../core/use-cases/admin/list-dead-letters.use-case.ts';
import type { FleetStatus } from '../../../core/use-cases/admin/fleet-status.use-case.ts';
import type { TemplateHealth } from '../../../core/use-cases/admin/template-health.use-case.ts';
import type { DeadLetterAction, SettleDeadLetter } from '../../../core/use-cases/admin/settle-dead-letter.use-case.ts';
import { jobView } from '../../../core/use-cases/generation/history-view.service.ts';
import type { ApiRouter } from '../api-router.ts';
import { sendFail } from '../error-table.ts';
import { pageQuery, pageSchema, ref, type JsonSchema } from '../openapi.ts';
import { jobSchema } from './generation.routes.ts';

export interface AdminConsoleRoutesDeps {
  jobs: ListAllJobs;
  cancel: AdminCancelJob;
  queue: InspectQueue;
  deadLetters: ListDeadLetters;
  settle: SettleDeadLetter;
  templateHealth: TemplateHealth;
  fleet: FleetStatus;
}

const messageSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'taskType', 'environment', 'jobId', 'userId', 'summary', 'reason'],
  properties: {
    id: { type: 'string' },
    taskType: { type: 'string' },
    environment: { type: 'string' },
    jobId: { type: ['string', 'null'] },
    userId: { type: ['string', 'null'] },
    summary: { type: 'string', description: 'The body as JSON, cut to 200 characters' },
    reason: { type: ['string', 'null'], description: 'Dead letters: why it went dead' },
  },
};

const adminJobSchema: JsonSchema = {
  ...jobSchema,
  required: [...jobSchema.required, 'userId', 'userEmail', 'engineServer'],
  properties: {
    ...jobSchema.properties,
    userId: { type: 'string', format: 'uuid' },
    userEmail: { type: ['string', 'null'] },
    engineServer: { type: ['integer', 'null'], minimum: 1, description: 'The ComfyUI server (place in COMFYUI_URLS, 1-based) its latest attempt was handed to, or that ran it; null before it starts and with the builtin engine' },
  },
};

const templateStatsSchema: JsonSchema = {
  type: 'object',
  required: ['templateId', 'name', 'jobs', 'succeeded', 'failed', 'cancelled', 'failureRate', 'p50RunMs', 'p95RunMs'],
  properties: {
    templateId: { type: 'string', format: 'uuid' },
    name: { type: ['string', 'null'], description: 'Null for a template deleted since' },
    jobs: { type: 'integer', description: 'Jobs created in the window' },
    succeeded: { type: 'integer' },
    failed: { type: 'integer' },
    cancelled: { type: 'integer' },
    failureRate: { type: ['number', 'null'], description: 'failed / (succeeded + failed); null while none ended either way' },
    p50RunMs: { type: ['integer', 'null'], description: 'Median run time of the succeeded jobs (nearest rank), ms' },
    p95RunMs: { type: ['integer', 'null'], description: '95th percentile run time of the succeeded jobs (nearest rank), ms' },
  },
};

const fleetSchema: JsonSchema = {
  type: 'object',
  required: ['servers', 'jobs'],
  properties: {
    servers: {
      type: 'array',
      items: {
        type: 'object',
        required: ['server', 'name', 'healthy', 'error', 'running', 'waiting', 'version', 'devices', 'models'],
        properties: {
          server: { type: 'integer', description: 'Place in COMFYUI_URLS (1-based); 1 for builtin' },
          name: { type: 'string', description: '"server N", or "builtin"' },
          healthy: { type: 'boolean' },
          error: { type: ['string', 'null'] },
          running: { type: ['integer', 'null'], description: "Prompts the server runs now (its own queue); null for builtin" },
          waiting: { type: ['integer', 'null'], description: 'Prompts waiting on the server; null for builtin' },
          version: { type: ['string', 'null'] },
          devices: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, vramTotalMiB: { type: 'integer' }, vramFreeMiB: { type: 'integer' } } } },
          models: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } }, description: 'By loader input: ckpt_name, lora_name, vae_name...' },
        },
      },
    },
    jobs: { type: 'object', required: ['queued', 'running'], properties: { queued: { type: 'integer' }, running: { type: 'integer' } } },
  },
};

const limitQuery = { limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 } };
const badLimit = { description: 'limit out of range', schema: ref('Error') };
const noDeadLetter = { description: 'No dead letter has this id (never did, or it was already redriven or discarded)', schema: ref('Error') };

const adminJobDto = ({ job, userEmail }: AdminJobView) => ({ ...jobView(job, []), userId: job.userId, userEmail, engineServer: job.engineServer });

/** The admin console's API (ADR 032): every user's jobs, the queue and its dead letters. */
export const adminConsoleRoutes = (deps: AdminConsoleRoutesDeps) => (api: ApiRouter) => {
  api.add(
    {
      method: 'get',
      path: '/admin/jobs',
      summary: "Every user's jobs in the given statuses (default queued,running), oldest first, with the owner's email",
      tag: 'admin',
      auth: 'admin',
      query: { ...pageQuery, status: { type: 'string', description: 'Comma-separated: queued, running, succeeded, failed, cancelled' } },
      responses: { 200: { description: 'A page of jobs', schema: pageSchema(adminJobSchema) }, 400: { description: 'Unknown status, or page/limit out of range', schema: ref('Error') } },
    },
    async (req: Request, res: Response) => {
      const result = await deps.jobs.execute({ status: req.query.status, page: req.query.page, limit: req.query.limit });
      if (!result.ok) return sendFail(res, result);
      res.json({ ...result.value, items: result.value.items.map(adminJobDto) });
    },
  );

  api.add(
    {
      method: 'post',
      path: '/admin/jobs/:id/cancel',
      summary: "Cancel any user's queued or running job, with the owner's refund; audit-logged",
      tag: 'admin',
      auth: 'admin',
      responses: { 200: { description: 'Cancelled', schema: jobSchema }, 404: { description: 'No such job', schema: ref('Error') }, 409: { description: 'Already finished', schema: ref('Error') } },
    },
    async (req: Request, res: Response) => {
      const result = await deps.cancel.execute({ actorId: req.principal!.userId, jobId: String(req.params.id) });
      if (!result.ok) return sendFail(res, result);
      res.json(jobView(result.value, []));
    },
  );

  api.add(
    {
      method: 'get',
      path: '/admin/queue',
      summary: 'The first waiting messages (a peek: on RabbitMQ and SQS it counts as a delivery) and their count per task type',
      tag: 'admin',
      auth: 'admin',
      query: limitQuery,
      responses: {
        200: {
          description: 'Waiting messages, oldest first',
          schema: {
            type: 'object',
            required: ['messages', 'waiting', 'complete'],
            properties: {
              messages: { type: 'array', items: messageSchema },
              waiting: { type: 'object', additionalProperties: { type: 'integer' }, description: 'Per task type, among the messages looked at' },
              complete: { type: 'boolean', description: 'True when no more messages wait beyond those listed (the counts are totals)' },
            },
          },
        },
        400: badLimit,
      },
    },
    async (req: Request, res: Response) => {
      const result = await deps.queue.execute({ limit: req.query.limit });
      if (!result.ok) return sendFail(res, result);
      res.json(result.value);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/admin/dead-letters',
      summary: 'Dead-lettered messages, oldest first, with the reason where the queue kept it',
      tag: 'admin',
      auth: 'admin',
      query: limitQuery,
      responses: { 200: { description: 'Dead letters', schema: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: messageSchema } } } }, 400: badLimit },
    },
    async (req: Request, res: Response) => {
      const result = await deps.deadLetters.execute({ limit: req.query.limit });
      if (!result.ok) return sendFail(res, result);
      res.json({ items: result.value });
    },
  );

  const settle = (action: DeadLetterAction, method: 'post' | 'delete', path: string, summary: string, done: { status: 200 | 204; description: string }) =>
    api.add(
      { method, path, summary, tag: 'admin', auth: 'admin', responses: { [done.status]: { description: done.description, ...(done.status === 200 ? { schema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } } : {}) }, 404: noDeadLetter } },
      async (req: Request, res: Response) => {
        const result = await deps.settle.execute({ actorId: req.principal!.userId, id: String(req.params.id), action });
        if (!result.ok) return sendFail(res, result);
        if (done.status === 204) res.status(204).end();
        else res.json(result.value);
      },
    );
  settle('redrive', 'post', '/admin/dead-letters/:id/redrive', 'Put a dead letter back on the queue (attempts start over); audit-logged', { status: 200, description: 'Back on the queue' });
  settle('discard', 'delete', '/admin/dead-letters/:id', 'Drop a dead letter for good; audit-logged', { status: 204, description: 'Dropped' });

  api.add(
    {
      method: 'get',
      path: '/admin/templates/stats',
      summary: "Per template: jobs of the last `hours` (default 24), failure rate, p50/p95 run time",
      tag: 'admin',
      auth: 'admin',
      query: { hours: { type: 'integer', minimum: 1, maximum: 2160, default: 24 } },
      responses: {
        200: {
          description: 'Templates with jobs in the window, by id',
          schema: { type: 'object', required: ['since', 'hours', 'templates'], properties: { since: { type: 'string', format: 'date-time' }, hours: { type: 'integer' }, templates: { type: 'array', items: templateStatsSchema } } },
        },
        400: { description: 'hours out of range', schema: ref('Error') },
      },
    },
    async (req: Request, res: Response) => {
      const result = await deps.templateHealth.execute({ hours: req.query.hours });
      if (!result.ok) return sendFail(res, result);
      res.json({ ...result.value, since: result.value.since.toISOString() });
    },
  );

  api.add(
    {
      method: 'get',
      path: '/admin/fleet',
      summary: 'The engine servers: health, their running and waiting prompts, VRAM and models; and the jobs queued and running',
      tag: 'admin',
      auth: 'admin',
      responses: { 200: { description: 'The fleet now', schema: fleetSchema } },
    },
    async (_req: Request, res: Response) => {
      const result = await deps.fleet.execute();
      if (!result.ok) return sendFail(res, result);
      res.json(result.value);
    },
  );
};
