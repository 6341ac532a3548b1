import type { Request, Response } from 'express';
import type { PeekQueue } from '../../../core/use-cases/diagnostics/peek-queue.use-case.ts';
import type { ProbeCache } from '../../../core/use-cases/diagnostics/probe-cache.use-case.ts';
import type { ProbeStorage } from '../../../core/use-cases/diagnostics/probe-storage.use-case.ts';
import type { PublishTestMessage } from '../../../core/use-cases/diagnostics/publish-test-message.use-case.ts';
import type { Logger } from '../../../core/ports/logger.port.ts';
import type { ApiRouter } from '../api-router.ts';
import { sendError, sendFail } from '../error-table.ts';
import { ref } from '../openapi.ts';

export interface DiagnosticsRoutesDeps {
  peek: PeekQueue;
  publish: PublishTestMessage;
  storage: ProbeStorage;
  cache: ProbeCache;
  logger: Logger;
}

const roundTrip = {
  type: 'object',
  required: ['ok', 'latencyMs'],
  properties: { ok: { type: 'boolean', const: true }, latencyMs: { type: 'integer' } },
};

/** API.md §10. Mounted only when diagnostics are on (off in production unless ENABLE_TEST_ENDPOINTS=true). */
export const diagnosticsRoutes = (deps: DiagnosticsRoutesDeps) => (api: ApiRouter) => {
  api.add(
    {
      method: 'get',
      path: '/test/sqs-peek-messages',
      summary: 'Messages waiting on the queue, without consuming them (any QUEUE_DRIVER)',
      tag: 'diagnostics',
      auth: 'admin',
      query: { max: { type: 'integer', minimum: 1, maximum: 100, default: 10 } },
      responses: {
        200: {
          description: 'Waiting messages, oldest first',
          schema: {
            type: 'object',
            required: ['messages'],
            properties: { messages: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, body: {}, attributes: { type: 'object' } } } } },
          },
        },
        400: { description: 'max out of range', schema: ref('Error') },
      },
    },
    async (req: Request, res: Response) => {
      const result = await deps.peek.execute({ max: req.query.max });
      if (!result.ok) return sendFail(res, result);
      res.json({ messages: result.value.map(({ id, body, attributes }) => ({ id, body, attributes })) });
    },
  );

  api.add(
    {
      method: 'post',
      path: '/test/sqs-queue-stack-test',
      summary: 'Put a test message on the queue (TaskType "diagnostic" unless given; never a type workers handle)',
      tag: 'diagnostics',
      auth: 'admin',
      body: {
        type: 'object',
        properties: { body: {}, attributes: { type: 'object', properties: { TaskType: { type: 'string' }, Environment: { type: 'string' } }, additionalProperties: false } },
      },
      responses: { 202: { description: 'Published', schema: { type: 'object', required: ['messageId'], properties: { messageId: { type: 'string' } } } } },
    },
    async (req: Request, res: Response) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const result = await deps.publish.execute({ body: body.body, attributes: body.attributes });
      if (!result.ok) return sendFail(res, result);
      res.status(202).json({ messageId: result.value.messageId });
    },
  );

  const probe = (path: string, what: string, run: () => Promise<{ latencyMs: number }>) =>
    api.add(
      {
        method: 'post',
        path,
        summary: `A ${what} round trip`,
        tag: 'diagnostics',
        auth: 'admin',
        responses: { 200: { description: 'The round trip worked', schema: roundTrip }, 502: { description: 'A step failed (the cause is logged)', schema: ref('Error') } },
      },
      async (req: Request, res: Response) => {
        try {
          const { latencyMs } = await run();
          res.json({ ok: true, latencyMs });
        } catch (error) {
          deps.logger.warn(`diagnostics: ${path} failed`, { requestId: req.requestId, cause: error instanceof Error ? error.message : String(error) });
          sendError(res, 502, `The ${what} round trip failed`);
        }
      },
    );
  probe('/test/storage', 'storage put/get/delete', () => deps.storage.execute());
  probe('/test/cache', 'cache set/get/delete', () => deps.cache.execute());
};
