import type { Request, Response } from 'express';
import type { GetCatalogueTemplate } from '../../../core/use-cases/templates/get-catalogue-template.use-case.ts';
import type { ListCatalogue } from '../../../core/use-cases/templates/list-catalogue.use-case.ts';
import type { ApiRouter } from '../api-router.ts';
import { sendFail } from '../error-table.ts';
import { ref } from '../openapi.ts';
import { catalogueDto, catalogueTemplateSchema } from '../template-dto.ts';

export interface CatalogueRoutesDeps {
  list: ListCatalogue;
  get: GetCatalogueTemplate;
}

/** The templates users may run, with their parameters but none of the node wiring. */
export const catalogueRoutes = (deps: CatalogueRoutesDeps) => (api: ApiRouter) => {
  api.add(
    {
      method: 'get', path: '/templates', summary: 'Active templates and their parameters', tag: 'templates', auth: 'access',
      responses: { 200: { description: 'Templates, oldest first', schema: { type: 'array', items: catalogueTemplateSchema } } },
    },
    async (_req: Request, res: Response) => {
      const result = await deps.list.execute();
      if (!result.ok) return sendFail(res, result);
      res.json(result.value.map(catalogueDto));
    },
  );

  api.add(
    {
      method: 'get', path: '/templates/:id', summary: 'One active template', tag: 'templates', auth: 'access',
      responses: { 200: { description: 'Template', schema: catalogueTemplateSchema }, 404: { description: 'Unknown, inactive or deleted', schema: ref('Error') } },
    },
    async (req: Request, res: Response) => {
      const result = await deps.get.execute({ id: req.params['id'] });
      if (!result.ok) return sendFail(res, result);
      res.json(catalogueDto(result.value));
    },
  );
};
