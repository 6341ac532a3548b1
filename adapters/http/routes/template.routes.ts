import type { Request, Response } from 'express';
import { CATEGORIES, isCategory, presetsForCategory } from '../../../core/domain/parameter-presets.ts';
import { validationFailed } from '../../../core/domain/result.ts';
import { isPlainObject } from '../../../core/domain/workflow-graph.ts';
import type { CreateTemplate } from '../../../core/use-cases/templates/create-template.use-case.ts';
import type { DeleteTemplate } from '../../../core/use-cases/templates/delete-template.use-case.ts';
import type { GetTemplate } from '../../../core/use-cases/templates/get-template.use-case.ts';
import type { ListTemplates } from '../../../core/use-cases/templates/list-templates.use-case.ts';
import type { PublishTemplate } from '../../../core/use-cases/templates/publish-template.use-case.ts';
import type { PatchTemplate } from '../../../core/use-cases/templates/patch-template.use-case.ts';
import type { SetParameterMap } from '../../../core/use-cases/templates/set-parameter-map.use-case.ts';
import type { ApiRouter } from '../api-router.ts';
import { sendFail } from '../error-table.ts';
import { ref } from '../openapi.ts';
import {
  createTemplateBodySchema,
  parameterMapSchema,
  parameterPresetSchema,
  patchTemplateBodySchema,
  templateDto,
  templateSchema,
} from '../template-dto.ts';

export interface TemplateRoutesDeps {
  create: CreateTemplate;
  setParameterMap: SetParameterMap;
  patch: PatchTemplate;
  list: ListTemplates;
  get: GetTemplate;
  remove: DeleteTemplate;
  publish: PublishTemplate;
}

const TAG = 'workflow-templates';
const error = (description: string) => ({ description, schema: ref('Error') });

/**
 * The contract's body is the map itself; `{"parameter_map": {...}}` is accepted too. That wrapper cannot be
 * mistaken for a map: a mapping item always has a node_id.
 */
const mapFromBody = (body: unknown): unknown => {
  if (!isPlainObject(body) || Object.keys(body).length !== 1) return body;
  const inner = body['parameter_map'];
  return isPlainObject(inner) && !Object.hasOwn(inner, 'node_id') ? inner : body;
};

/** Static paths are registered before `/workflow-templates/:id`, which would otherwise capture them. */
export const templateRoutes = (deps: TemplateRoutesDeps) => (api: ApiRouter) => {
  api.add(
    {
      method: 'get', path: '/workflow-templates/categories', summary: 'Template categories', tag: TAG, auth: 'admin',
      responses: { 200: { description: 'Categories', schema: { type: 'array', items: { type: 'string', enum: [...CATEGORIES] } } } },
    },
    (_req: Request, res: Response) => {
      res.json([...CATEGORIES]);
    },
  );

  api.add(
    {
      method: 'get', path: '/workflow-templates/parameter-presets', summary: 'Parameter presets, all or those of one category', tag: TAG, auth: 'admin',
      query: { category: { type: 'string', enum: [...CATEGORIES] } },
      responses: { 200: { description: 'Presets', schema: { type: 'array', items: parameterPresetSchema } }, 400: error('Unknown category') },
    },
    (req: Request, res: Response) => {
      const category: unknown = req.query['category'];
      if (category === undefined || category === '') return void res.json(presetsForCategory());
      if (!isCategory(category)) {
        return sendFail(res, validationFailed([{ field: 'category', message: `must be one of ${CATEGORIES.join(', ')}` }]));
      }
      res.json(presetsForCategory(category));
    },
  );

  api.add(
    {
      method: 'post', path: '/workflow-templates', summary: 'Create a template (step 1: the parameter map starts empty)', tag: TAG, auth: 'admin',
      body: createTemplateBodySchema,
      responses: { 201: { description: 'Created', schema: templateSchema }, 400: error('Invalid field or workflow'), 409: error('Name taken') },
    },
    async (req: Request, res: Response) => {
      const result = await deps.create.execute({ actorId: req.principal!.userId, fields: req.body });
      if (!result.ok) return sendFail(res, result);
      res.status(201).json(templateDto(result.value));
    },
  );

  api.add(
    {
      method: 'put', path: '/workflow-templates/:id/parameter-map', summary: 'Replace the parameter map (step 2)', tag: TAG, auth: 'admin',
      body: parameterMapSchema,
      responses: { 200: { description: 'Updated', schema: templateSchema }, 400: error('Invalid map'), 404: error('No such template') },
    },
    async (req: Request, res: Response) => {
      const result = await deps.setParameterMap.execute({ actorId: req.principal!.userId, id: req.params['id'], parameterMap: mapFromBody(req.body) });
      if (!result.ok) return sendFail(res, result);
      res.json(templateDto(result.value));
    },
  );

  api.add(
    {
      method: 'patch', path: '/workflow-templates/:id', summary: 'Change any fields, validated together', tag: TAG, auth: 'admin',
      body: patchTemplateBodySchema,
      responses: { 200: { description: 'Updated', schema: templateSchema }, 400: error('Invalid change'), 404: error('No such template'), 409: error('Name taken') },
    },
    async (req: Request, res: Response) => {
      const result = await deps.patch.execute({ actorId: req.principal!.userId, id: req.params['id'], changes: req.body });
      if (!result.ok) return sendFail(res, result);
      res.json(templateDto(result.value));
    },
  );

  api.add(
    {
      method: 'get', path: '/workflow-templates', summary: 'Every template, active or not', tag: TAG, auth: 'admin',
      responses: { 200: { description: 'Templates, oldest first', schema: { type: 'array', items: templateSchema } } },
    },
    async (_req: Request, res: Response) => {
      const result = await deps.list.execute();
      if (!result.ok) return sendFail(res, result);
      res.json(result.value.map(templateDto));
    },
  );

  api.add(
    {
      method: 'get', path: '/workflow-templates/:id', summary: 'One template', tag: TAG, auth: 'admin',
      responses: { 200: { description: 'Template', schema: templateSchema }, 404: error('No such template') },
    },
    async (req: Request, res: Response) => {
      const result = await deps.get.execute({ id: req.params['id'] });
      if (!result.ok) return sendFail(res, result);
      res.json(templateDto(result.value));
    },
  );

  api.add(
    {
      method: 'delete', path: '/workflow-templates/:id', summary: 'Delete a template (its versions stay readable for job history)', tag: TAG, auth: 'admin',
      responses: { 204: { description: 'Deleted' }, 404: error('No such template') },
    },
    async (req: Request, res: Response) => {
      const result = await deps.remove.execute({ actorId: req.principal!.userId, id: req.params['id'] });
      if (!result.ok) return sendFail(res, result);
      res.status(204).end();
    },
  );

  // Under /templates, beside the catalogue entry they change (issue 24); admin only, like every template write.
  for (const [verb, publish, summary] of [
    ['publish', true, 'Publish a draft template: users see and run it (when active); 400 names what is incomplete'],
    ['unpublish', false, 'Take a template back to a draft: users no longer see or run it'],
  ] as const) {
    api.add(
      {
        method: 'post', path: `/templates/:id/${verb}`, summary, tag: TAG, auth: 'admin',
        responses: { 200: { description: 'The template in its new state', schema: templateSchema }, 400: error('Incomplete template'), 404: error('No such template') },
      },
      async (req: Request, res: Response) => {
        const result = await deps.publish.execute({ actorId: req.principal!.userId, id: req.params['id'], publish });
        if (!result.ok) return sendFail(res, result);
        res.json(templateDto(result.value));
      },
    );
  }
};
