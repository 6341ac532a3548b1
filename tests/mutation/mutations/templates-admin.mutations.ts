import type { Mutation } from '../mutation.ts';

const PARAMETER_MAP_TEST = 'tests/unit/parameter-map.test.ts';
const USE_CASES_TEST = 'tests/unit/templates-use-cases.test.ts';
const DRAFTS_TEST = 'tests/integration/template-drafts.test.ts';
const BROWSER_TEST = 'tests/browser/admin-templates.test.ts';
const TEST_RUNS_UNIT = 'tests/unit/template-test-runs.test.ts';
const TEST_RUNS_TEST = 'tests/integration/template-test-runs.test.ts';
const JOBS_CONTRACT = 'tests/contract/job-repository.test.ts';
const HISTORY_CONTRACT = 'tests/contract/history-repository.test.ts';
const TEST_RUN_USE_CASE = 'core/use-cases/templates/start-test-run.use-case.ts';
const ROLE_CHECK = "if (input.role !== 'admin') return fail('AUTH.FORBIDDEN'";

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
  {
    name: 'test runs: the use case starts one for any role (a free generation for users)',
    file: TEST_RUN_USE_CASE,
    find: ROLE_CHECK,
    replace: "if (false) return fail('AUTH.FORBIDDEN'",
    tests: [TEST_RUNS_UNIT],
  },
  {
    name: 'test runs: neither the route nor the use case keeps users out of POST test-runs',
    file: 'adapters/http/routes/test-run.routes.ts',
    find: "auth: 'admin',\n      body: testRunBodySchema,",
    replace: "auth: 'access',\n      body: testRunBodySchema,",
    also: [{ file: TEST_RUN_USE_CASE, find: ROLE_CHECK, replace: "if (false) return fail('AUTH.FORBIDDEN'" }],
    tests: [TEST_RUNS_TEST],
  },
  {
    name: "test runs: users may list a template's test runs and their outputs",
    file: 'adapters/http/routes/test-run.routes.ts',
    find: "auth: 'admin',\n      responses: { 200: { description: 'Test runs'",
    replace: "auth: 'access',\n      responses: { 200: { description: 'Test runs'",
    tests: [TEST_RUNS_TEST],
  },
  {
    name: "test runs: a test run is paid the template's price (and refunded when it fails)",
    file: TEST_RUN_USE_CASE,
    find: 'paidCoins: 0, testRun: true',
    replace: 'paidCoins: prepared.value.price, testRun: true',
    tests: [TEST_RUNS_UNIT, TEST_RUNS_TEST],
  },
  {
    name: 'test runs: the SQL job list shows test runs',
    file: 'adapters/sequelize/sequelize-job-repository.ts',
    find: "const mine = 'FROM generation_jobs WHERE user_id = ? AND test_run = 0';",
    replace: "const mine = 'FROM generation_jobs WHERE user_id = ?';",
    tests: [JOBS_CONTRACT, TEST_RUNS_TEST],
  },
  {
    name: 'test runs: the memory job list shows test runs',
    file: 'adapters/memory/memory-job-repository.ts',
    find: 'job.userId === userId && !job.testRun',
    replace: 'job.userId === userId',
    tests: [JOBS_CONTRACT, TEST_RUNS_UNIT],
  },
  {
    name: 'test runs: the SQL output history shows test-run outputs',
    file: 'adapters/sequelize/sequelize-history-repository.ts',
    find: 'const mine = `FROM history_items WHERE user_id = ? AND job_id NOT IN ${TEST_RUN_JOBS}`;',
    replace: 'const mine = `FROM history_items WHERE user_id = ?`;',
    tests: [HISTORY_CONTRACT, TEST_RUNS_TEST],
  },
  {
    name: 'test runs: the memory output history shows test-run outputs',
    file: 'adapters/memory/memory-history-repository.ts',
    find: 'item.userId === userId && !this.jobs.get(item.jobId)?.testRun',
    replace: 'item.userId === userId',
    tests: [HISTORY_CONTRACT, TEST_RUNS_UNIT],
  },
  {
    name: 'history names: the templates of the page not asked for',
    file: 'core/use-cases/generation/output-history.service.ts',
    find: 'await this.deps.templates.namesOf([...new Set(page.items.flatMap((item) => (item.templateId ? [item.templateId] : [])))]);',
    replace: 'await this.deps.templates.namesOf([]);',
    tests: ['tests/integration/output-history-details.test.ts'],
  },
  {
    name: 'SQL template names: a deleted template still named',
    file: 'adapters/sequelize/sequelize-template-repository.ts',
    find: '`SELECT id, name FROM templates WHERE deleted_at IS NULL AND id ${wanted.sql}`',
    replace: '`SELECT id, name FROM templates WHERE id ${wanted.sql}`',
    tests: ['tests/contract/template-repository.test.ts'],
  },
  {
    name: 'memory template names: a deleted template still named',
    file: 'adapters/memory/memory-template-repository.ts',
    find: '      if (template && !template.deletedAt) names.set(id, template.name);',
    replace: '      if (template) names.set(id, template.name);',
    tests: ['tests/contract/template-repository.test.ts'],
  },
];
