import type { Request, Response } from 'express';
import { jobView } from '../../../core/use-cases/generation/history-view.service.ts';
import type { ListTestRuns } from '../../../core/use-cases/templates/list-test-runs.use-case.ts';
import type { StartTestRun } from '../../../core/use-cases/templates/start-test-run.use-case.ts';
import type { ApiRouter } from '../api-router.ts';
import { sendFail } from '../error-table.ts';
import { ref, type JsonSchema } from '../openapi.ts';
import { jobSchema } from './generation.routes.ts';

export interface TestRunRoutesDeps {
  start: StartTestRun;
  list: ListTestRuns;
}

/** TemplateTestRunRequest: what a test run is asked with, the parameters of a generation (its template is in the path). */
export const testRunBodySchema: JsonSchema = {
  type: 'object',
  description: 'The parameters of the run, as in POST /generate (the template is the one in the path, draft or published).',
  properties: { parameters: { type: 'object', description: 'Parameter key → value, checked against the template\'s parameter map like a user\'s' } },
};

const error = (description: string) => ({ description, schema: ref('Error') });

/** An administrator's test runs of a template (ADR 043), beside the other administrator routes of templates. */
export const testRunRoutes = (deps: TestRunRoutesDeps) => (api: ApiRouter) => {
  api.add(
    {
      method: 'post',
      path: '/admin/templates/:id/test-runs',
      summary: 'Test-run a template, draft or published, charged to nobody; the job is kept out of job lists and history (ADR 043)',
      tag: 'admin',
      auth: 'admin',
      body: testRunBodySchema,
      responses: {
        202: { description: 'Queued; followed on the administrator\'s WebSocket like any job, cancelled with POST /generate/{id}/cancel', schema: jobSchema },
        400: error('Invalid parameters'),
        404: error('No such template'),
        429: error('The administrator already has MAX_ACTIVE_JOBS_PER_USER jobs queued or running, test runs included (Retry-After 10)'),
      },
    },
    async (req: Request, res: Response) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const { userId, user } = req.principal!;
      const result = await deps.start.execute({ userId, role: user.role, templateId: req.params['id'], parameters: body.parameters });
      if (!result.ok) {
        if ('retryAfterSeconds' in result && result.retryAfterSeconds) res.setHeader('Retry-After', String(result.retryAfterSeconds));
        return sendFail(res, result);
      }
      res.status(202).json(jobView(result.value, []));
    },
  );

  api.add(
    {
      method: 'get',
      path: '/admin/templates/:id/test-runs',
      summary: "The template's latest 20 test runs (every administrator's), newest first, with their outputs and signed view URLs",
      tag: 'admin',
      auth: 'admin',
      responses: { 200: { description: 'Test runs', schema: { type: 'array', items: jobSchema } }, 404: error('No such template') },
    },
    async (req: Request, res: Response) => {
      const result = await deps.list.execute({ templateId: req.params['id'] });
      if (!result.ok) return sendFail(res, result);
      res.json(result.value);
    },
  );
};
