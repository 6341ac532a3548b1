import type { Mutation } from '../mutation.ts';

const PARAMETER_MAP_TEST = 'tests/unit/parameter-map.test.ts';
const USE_CASES_TEST = 'tests/unit/templates-use-cases.test.ts';
const DRAFTS_TEST = 'tests/integration/template-drafts.test.ts';
const BROWSER_TEST = 'tests/browser/admin-templates.test.ts';

export const MUTATIONS: Mutation[] = [
  {
    name: 'category rule: every category key demanded whatever the workflow offers',
    file: 'core/domain/category-inputs.ts',
    find: 'REQUIRED_BY_CATEGORY[category].filter((key) => workflowCarries(workflow, key))',
    replace: 'REQUIRED_BY_CATEGORY[category].filter((key) => workflowCarries(workflow, key) || true)',
    tests: [PARAMETER_MAP_TEST],
  },
  {
    name: 'drafts: a draft counts as offered (catalogue and generation)',
    file: 'core/domain/workflow-template.ts',
    find: 'template.isActive && template.publishedAt !== null',
    replace: 'template.isActive',
    tests: [USE_CASES_TEST, DRAFTS_TEST],
  },
  {
    name: 'drafts: the SQL catalogue list includes drafts',
    file: 'adapters/sequelize/sequelize-template-repository.ts',
    find: '{ is_active: true, published_at: { [Op.ne]: null } }',
    replace: '{ is_active: true }',
    tests: [DRAFTS_TEST, BROWSER_TEST],
  },
  {
    name: 'drafts: users may generate from a draft',
    file: 'core/use-cases/generation/active-templates.service.ts',
    find: 'return template && isOffered(template) ? forGeneration(template) : null;',
    replace: 'return template && template.isActive ? forGeneration(template) : null;',
    tests: [DRAFTS_TEST],
  },
  {
    name: 'publish: a template with an empty map may be published',
    file: 'core/use-cases/templates/publish-template.use-case.ts',
    find: 'if (Object.keys(template.parameterMap).length === 0) {',
    replace: 'if (Object.keys(template.parameterMap).length === -1) {',
    tests: [USE_CASES_TEST, DRAFTS_TEST],
  },
  {
    name: 'publish: a stored map that no longer fits is not re-checked',
    file: 'core/use-cases/templates/publish-template.use-case.ts',
    find: "if (!map.ok) return validationFailed(map.details ?? [], 'The template is not complete');",
    replace: '',
    tests: [USE_CASES_TEST],
  },
  {
    name: 'publish: users may publish and unpublish',
    file: 'adapters/http/routes/template.routes.ts',
    find: "method: 'post', path: `/templates/:id/${verb}`, summary, tag: TAG, auth: 'admin',",
    replace: "method: 'post', path: `/templates/:id/${verb}`, summary, tag: TAG, auth: 'access',",
    tests: [DRAFTS_TEST],
  },
  {
    name: 'audit: creating a template is not logged',
    file: 'core/use-cases/templates/create-template.use-case.ts',
    find: "await recordTemplateAudit(tx, this.deps, input.actorId, 'template.create', template, []);",
    replace: '',
    tests: [USE_CASES_TEST, DRAFTS_TEST],
  },
  {
    name: 'audit: edits, map changes, publishing and deactivating are not logged',
    file: 'core/use-cases/templates/revise-template.service.ts',
    find: 'await recordTemplateAudit(tx, deps, audit.actorId, audit.action(current, next), next, changedFields(current, next));',
    replace: '',
    tests: [USE_CASES_TEST, DRAFTS_TEST],
  },
  {
    name: 'audit: deleting a template is not logged',
    file: 'core/use-cases/templates/delete-template.use-case.ts',
    find: "await recordTemplateAudit(tx, this.deps, input.actorId, 'template.delete', template, []);",
    replace: '',
    tests: [USE_CASES_TEST, DRAFTS_TEST],
  },
  {
    name: 'audit: a deactivation is logged as a plain update',
    file: 'core/use-cases/templates/template-audit.service.ts',
    find: "if (changed.length === 1 && changed[0] === 'isActive')",
    replace: 'if (false)',
    tests: [USE_CASES_TEST, DRAFTS_TEST],
  },
];
