import type { Container } from 'inversify';
import { catalogueRoutes } from '../../adapters/http/routes/catalogue.routes.ts';
import { templateRoutes } from '../../adapters/http/routes/template.routes.ts';
import { READY_TEMPLATES } from '../../core/domain/ready-templates.ts';
import type { TemplateRules } from '../../core/domain/template-revision.ts';
import type { NodeCatalog } from '../../core/ports/node-catalog.port.ts';
import { CreateTemplate } from '../../core/use-cases/templates/create-template.use-case.ts';
import { DeleteTemplate } from '../../core/use-cases/templates/delete-template.use-case.ts';
import { GetCatalogueTemplate } from '../../core/use-cases/templates/get-catalogue-template.use-case.ts';
import { GetTemplateVersion } from '../../core/use-cases/templates/get-template-version.use-case.ts';
import { GetTemplate } from '../../core/use-cases/templates/get-template.use-case.ts';
import { InstallReadyTemplates } from '../../core/use-cases/templates/install-ready-templates.use-case.ts';
import { ListCatalogue } from '../../core/use-cases/templates/list-catalogue.use-case.ts';
import { ListTemplates } from '../../core/use-cases/templates/list-templates.use-case.ts';
import { RecheckTemplates } from '../../core/use-cases/templates/recheck-templates.use-case.ts';
import { PatchTemplate } from '../../core/use-cases/templates/patch-template.use-case.ts';
import { PublishTemplate } from '../../core/use-cases/templates/publish-template.use-case.ts';
import { SetParameterMap } from '../../core/use-cases/templates/set-parameter-map.use-case.ts';
import type { Config } from '../config.ts';
import { resolve, TOKENS, type LifecycleBinding } from '../tokens.ts';
import { bindFeature, forApi, type Feature, type FeaturePorts } from './feature.ts';

export type TemplatesFeature = Feature<{ templateVersion: GetTemplateVersion; readyTemplates: LifecycleBinding; fleetWatch: LifecycleBinding }>;

/**
 * Workflow templates: the admin and catalogue routes, and the ready templates of a fresh install. `nodes` is the
 * engine's node catalogue (each ComfyUI server's /object_info, or the builtin registry), which a template is checked against.
 */
export function templatesFeature(ports: FeaturePorts, config: Readonly<Config>, needs: { nodes: () => NodeCatalog | null }): TemplatesFeature {
  const rules: TemplateRules = { outputNodeTypes: config.generation.outputNodeTypes, allowedNodeTypes: config.generation.allowedNodeTypes };
  const { templates } = ports.repos();
  const install = new InstallReadyTemplates({ uow: ports.uow(), ids: ports.ids(), clock: ports.clock(), rules, ready: READY_TEMPLATES });
  const logger = ports.logger();
  const readyTemplates: LifecycleBinding = {
    name: 'ready-templates',
    roles: ['api'],
    async start() {
      if (!config.seedTemplates) return;
      const result = await install.execute();
      if (!result.ok || !result.value.installedNow) return;
      if (result.value.installed.length > 0) logger.info('ready templates installed', { templates: result.value.installed });
      for (const skipped of result.value.skipped) logger.warn('ready template skipped: this server rejects it', skipped);
    },
    async stop() {},
  };
  // A server that came back with other models or nodes: active templates are checked again and problems logged.
  let unsubscribe: (() => void) | undefined;
  // The catalogue is resolved only when asked: building this feature must not start the engine.
  const lazyNodes: NodeCatalog = { catalogues: async () => (await needs.nodes()?.catalogues()) ?? null };
  const recheck = new RecheckTemplates({ templates, nodes: lazyNodes, logger: logger.child({ component: 'templates' }) });
  const fleetWatch: LifecycleBinding = {
    name: 'template-fleet-recheck',
    roles: ['api'],
    async start() {
      const catalog = needs.nodes();
      if (!catalog?.onCatalogueChange) return;
      unsubscribe = catalog.onCatalogueChange(() => {
        recheck.execute().catch((error: unknown) => logger.error('template re-check failed', { error: String(error) }));
      });
    },
    async stop() {
      unsubscribe?.();
    },
  };
  return {
    exports: { templateVersion: new GetTemplateVersion({ templates }), readyTemplates, fleetWatch },
    routes: forApi(config, () => {
      const catalog = needs.nodes();
      const nodes = catalog ? { nodes: catalog } : {};
      const write = { uow: ports.uow(), clock: ports.clock(), ids: ports.ids(), rules };
      return [
        templateRoutes({
          create: new CreateTemplate({ templates, ...write, ...nodes }),
          setParameterMap: new SetParameterMap({ ...write, ...nodes }),
          patch: new PatchTemplate({ ...write, ...nodes }),
          list: new ListTemplates({ templates, ...nodes }),
          get: new GetTemplate({ templates, ...nodes }),
          remove: new DeleteTemplate(write),
          publish: new PublishTemplate({ ...write, ...nodes }),
        }),
        catalogueRoutes({ list: new ListCatalogue({ templates }), get: new GetCatalogueTemplate({ templates }) }),
      ];
    }),
    scheduled: [],
  };
}

export function bindTemplates(container: Container, config: Readonly<Config>): void {
  const feature = bindFeature(container, 'templates', (ports) =>
    templatesFeature(ports, config, { nodes: () => (container.isBound(TOKENS.NodeCatalog) ? resolve(container, TOKENS.NodeCatalog) : null) }),
  );
  container.bind(TOKENS.GetTemplateVersion).toDynamicValue(() => feature().exports.templateVersion);
  container.bind(TOKENS.Lifecycle).toDynamicValue(() => feature().exports.readyTemplates);
  container.bind(TOKENS.Lifecycle).toDynamicValue(() => feature().exports.fleetWatch);
}
