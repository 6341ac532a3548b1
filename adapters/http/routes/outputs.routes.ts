import type { Request, Response } from 'express';
import type { OutputHistory } from '../../../core/use-cases/generation/output-history.service.ts';
import type { ApiRouter } from '../api-router.ts';
import { sendFail } from '../error-table.ts';
import { pageQuery, pageSchema, ref } from '../openapi.ts';

export const historyItemSchema = {
  type: 'object',
  required: ['id', 'jobId', 'templateId', 'mimeType', 'usedParameters', 'createdAt', 'expiresAt', 'viewUrl', 'fileName', 'sizeBytes'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    jobId: { type: 'string', format: 'uuid' },
    templateId: { type: ['string', 'null'] },
    mimeType: { type: 'string' },
    usedParameters: { type: 'object' },
    createdAt: { type: 'string', format: 'date-time' },
    expiresAt: { type: 'string', format: 'date-time' },
    viewUrl: { type: 'string', format: 'uri' },
    fileName: { type: 'string' },
    sizeBytes: { type: 'integer' },
    width: { type: 'integer' },
    height: { type: 'integer' },
    durationSeconds: { type: 'number' },
  },
};

/** An item of GET /my-outputs: a history item plus its template's name (added later, so optional for old clients). */
const listedOutputSchema = {
  ...historyItemSchema,
  properties: {
    ...historyItemSchema.properties,
    templateName: { type: ['string', 'null'], description: "The template's current name; null when the output has no template or the template was deleted" },
  },
};

const notFound = { description: 'Unknown or not yours', schema: ref('Error') };

export const outputsRoutes = (deps: { history: OutputHistory }) => (api: ApiRouter) => {
  api.add(
    { method: 'get', path: '/my-outputs', summary: "The caller's outputs, newest first", tag: 'outputs', auth: 'access', query: pageQuery, responses: { 200: { description: 'PaginatedHistoryResponse', schema: pageSchema(listedOutputSchema) } } },
    async (req: Request, res: Response) => {
      const result = await deps.history.list({ userId: req.principal!.userId, page: req.query.page, limit: req.query.limit });
      if (!result.ok) return sendFail(res, result);
      res.json(result.value);
    },
  );

  for (const kind of ['view', 'download'] as const) {
    const field = kind === 'view' ? 'viewUrl' : 'downloadUrl';
    api.add(
      {
        method: 'get',
        path: `/my-outputs/:id/${kind}-url`,
        summary: kind === 'view' ? 'A short-lived URL that shows the output inline' : 'A short-lived URL that downloads the output as a file',
        tag: 'outputs',
        auth: 'access',
        responses: { 200: { description: 'Signed URL', schema: { type: 'object', properties: { [field]: { type: 'string', format: 'uri' } } } }, 404: notFound },
      },
      async (req: Request, res: Response) => {
        const result = await deps.history.link({ userId: req.principal!.userId, outputId: String(req.params.id), kind });
        if (!result.ok) return sendFail(res, result);
        res.setHeader('Cache-Control', 'no-store');
        res.json({ [field]: result.value });
      },
    );
  }

  api.add(
    { method: 'delete', path: '/my-outputs/:id', summary: 'Delete an output and its file', tag: 'outputs', auth: 'access', responses: { 204: { description: 'Deleted' }, 404: notFound } },
    async (req: Request, res: Response) => {
      const result = await deps.history.delete({ userId: req.principal!.userId, outputId: String(req.params.id) });
      if (!result.ok) return sendFail(res, result);
      res.status(204).end();
    },
  );
};
