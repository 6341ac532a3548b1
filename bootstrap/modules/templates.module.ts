import type { Container } from 'inversify';
import { catalogueRoutes } from '../../adapters/http/routes/catalogue.routes.ts';
import { templateRoutes } from '../../adapters/http/routes/template.routes.ts';
import { READY_TEMPLATES } from '../../core/domain/ready-templates.ts';
import type { TemplateRules } from '../../core/domain/template-revision.ts';
import { CreateTemplate } from '../../core/use-cases/templates/create-template.use-case.ts';
import { DeleteTemplate } from '../../core/use-cases/templates/delete-template.use-case.ts';
import { GetCatalogueTemplate } from '../../core/use-cases/templates/get-catalogue-template.use-case.ts';
import { GetTemplateVersion } from '../../core/use-cases/templates/get-template-version.use-case.ts';
import { GetTemplate } from '../../core/use-cases/templates/get-template.use-case.ts';
import { InstallReadyTemplates } from '../../core/use-cases/templates/install-ready-templates.use-case.ts';
import { ListCatalogue } from '../../core/use-cases/templates/list-catalogue.use-case.ts';
import { ListTemplates } from '../../core/use-cases/templates/list-templates.use-case.ts';
import { PatchTemplate } from '../../core/use-cases/templates/patch-template.use-case.ts';
import { SetParameterMap } from '../../core/use-cases/templates/set-parameter-map.use-case.ts';
import type { Config } from '../config.ts';
import { resolve, TOKENS } from '../tokens.ts';
import { portsOf } from './ports.ts';

/** Workflow templates: the repository, the admin and catalogue routes, and the ready templates of a fresh install. */
export function bindTemplates(container: Container, config: Readonly<Config>): void {
  const ports = portsOf(container);
  const rules: TemplateRules = { outputNodeTypes: config.generation.outputNodeTypes, allowedNodeTypes: config.generation.allowedNodeTypes };
  const templates = () => ports.repos().templates;

  container.bind(TOKENS.GetTemplateVersion).toDynamicValue(() => new GetTemplateVersion({ templates: templates() })).inSingletonScope();

  container.bind(TOKENS.RouteModule).toDynamicValue(() => {
    const write = { uow: ports.uow(), clock: ports.clock(), rules };
    // With GPU servers, a template is checked against the nodes they have (their /object_info).
    const nodes = container.isBound(TOKENS.NodeCatalog) ? { nodes: resolve(container, TOKENS.NodeCatalog) } : {};
    return templateRoutes({
      create: new CreateTemplate({ templates: templates(), ids: ports.ids(), clock: ports.clock(), rules, ...nodes }),
      setParameterMap: new SetParameterMap(write),
      patch: new PatchTemplate({ ...write, ...nodes }),
      list: new ListTemplates({ templates: templates() }),
      get: new GetTemplate({ templates: templates() }),
      remove: new DeleteTemplate({ templates: templates(), clock: ports.clock() }),
    });
  });
  container.bind(TOKENS.RouteModule).toDynamicValue(() =>
    catalogueRoutes({ list: new ListCatalogue({ templates: templates() }), get: new GetCatalogueTemplate({ templates: templates() }) }),
  );

  container.bind(TOKENS.Lifecycle).toDynamicValue(() => ({
    name: 'ready-templates',
    roles: ['api'],
    async start() {
      if (!config.seedTemplates) return;
      const install = new InstallReadyTemplates({ uow: ports.uow(), ids: ports.ids(), clock: ports.clock(), rules, ready: READY_TEMPLATES });
      const result = await install.execute();
      if (!result.ok || !result.value.installedNow) return;
      const logger = ports.logger();
      if (result.value.installed.length > 0) logger.info('ready templates installed', { templates: result.value.installed });
      for (const skipped of result.value.skipped) logger.warn('ready template skipped: this server rejects it', skipped);
    },
    async stop() {},
  }));
}
