import { entriesOn, type Mutation } from '../mutation.ts';

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

const TEMPLATE_RULES_TEST = 'tests/unit/parameter-map.test.ts';
const RENDER_TEST = 'tests/unit/render-workflow.test.ts';
const TEMPLATES_HTTP_TEST = 'tests/integration/templates.test.ts';
const REPO_CONTRACT = 'tests/contract/template-repository.test.ts';
const PM = 'core/domain/parameter-map.ts';
const RW = 'core/domain/render-workflow.ts';
const REVISION = 'core/domain/template-revision.ts';
const SQL_REPO = 'adapters/sequelize/sequelize-template-repository.ts';
const MEMORY_REPO = 'adapters/memory/memory-template-repository.ts';
const TEMPLATE_ROUTES = 'adapters/http/routes/template.routes.ts';
const off = 'if (false as boolean) ';

/** One guard of a file deleted by a plain replacement. */
const guard = (name: string, file: string, find: string, replace: string, tests: string[]): Mutation => ({ name: `templates-admin: ${name}`, file, find, replace, tests });

/** The admin-only check of one template route, found by its summary. */
const userRoute = (route: string, summary: string): Mutation =>
  guard(`${route} open to users`, TEMPLATE_ROUTES, `summary: '${summary}', tag: TAG, auth: 'admin',`, `summary: '${summary}', tag: TAG, auth: 'access',`, [TEMPLATES_HTTP_TEST]);

/** Guards of render-workflow.ts pinned by tests/unit/render-workflow-rules.test.ts (and the render and prepare tests). */
const rw = entriesOn('templates-admin render', RW, ['tests/unit/render-workflow-rules.test.ts', RENDER_TEST, USE_CASES_TEST, 'tests/unit/prepare-generation.test.ts']);

const audit = entriesOn('templates-admin audit', 'core/use-cases/templates/template-audit.service.ts', ['tests/unit/template-audit.test.ts']);

const versionOf = entriesOn('templates-admin version', 'core/use-cases/templates/get-template-version.use-case.ts', ['tests/unit/get-template-version.test.ts']);

export const MUTATIONS: Mutation[] = [
  versionOf('an id that is no UUID is looked up', '    if (!templateId) return templateNotFound();\n', ''),
  versionOf('a missing template without a version crashes', '      if (!current) return templateNotFound();\n', '      if (!current) return ok(null as never);\n'),
  versionOf('the current version is not used when none is given', '      version = current.version;', '      version = 1;'),
  versionOf('a version number that cannot exist is read', '    if (!Number.isSafeInteger(version) || version < 1) {', '    if (false as boolean) {'),
  versionOf('a version 0 is read', '|| version < 1) {', '|| version < 0) {'),
  versionOf('a fractional version is read', '    if (!Number.isSafeInteger(version) || version < 1) {', '    if (Number.isNaN(version) || version < 1) {'),
  audit('dates are compared as objects (an equal date is a change)', 'return a instanceof Date || b instanceof Date ? a?.valueOf() !== b?.valueOf() : !sameValue(a, b);', 'return !sameValue(a, b);'),
  audit('workflows are compared by identity', ': !sameValue(a, b);', ': a !== b;'),
  audit('an activation is audited as a deactivation', "return after.isActive ? 'template.activate' : 'template.deactivate';", "return 'template.deactivate';"),
  // core/domain/render-workflow.ts
  rw('sameValue: a key the other side lacks is read from its prototype (a parsed __proto__ literal passes conformance)', 'return keys.every((k) => Object.hasOwn(b, k) && sameValue(a[k], b[k]));', 'return keys.every((k) => sameValue(a[k], b[k]));'),
  rw("a random seed may be negative when the map's min is", 'const low = Math.max(0, min);', 'const low = min;'),
  rw('a random seed may pass 32 bits when the map allows it', 'const high = Math.min(max, low + SEED_SPACE - 1);', 'const high = max;'),
  rw('a random() of 1 gives a seed one past the max', 'return Math.min(low + Math.floor(random() * (high - low + 1)), high);', 'return low + Math.floor(random() * (high - low + 1));'),
  rw("a render's links are the template's arrays (rewriting one rewrites the template)", 'inputs[name] = Array.isArray(value) ? [value[0], value[1]] : value;', 'inputs[name] = value;'),
  rw('node titles (_meta) are dropped from the rendered graph', '    if (node._meta !== undefined) copy._meta = node._meta;\n', ''),
  rw("an unset parameter reports the template's own literal object", "typeof value === 'object' && value !== null ? structuredClone(value) : value;", 'value;'),
  rw('a null parameter is checked as a value instead of taking the default', '    if (value === undefined || value === null) {\n      if (item.default', '    if (value === undefined) {\n      if (item.default'),
  rw("a submitted workflow keeping the template's literal (LoadImage's file name) is refused", '    if (!checked.ok && locate.isTemplateLiteral?.(name)) {', '    if (false as boolean) {'),
  rw('image parameters are not recorded as image refs', "    if (item.type === 'image') {\n      imageRefs.push(", '    if (false as boolean) {\n      imageRefs.push('),
  rw('every known name is listed, however many', 'return names.length > 20 ?', 'return names.length > 2000 ?'),
  rw('more than 20 known names are listed beside the count of the rest', 'const shown = names.slice(0, 20).join', 'const shown = names.join'),
  rw('a template without parameters says "known:" and nothing', "known.length > 0 ? `known: ${listNames(known)}` : 'it takes none'", '`known: ${listNames(known)}`'),
  rw('parameters that are no object are accepted', "if (parameters !== undefined && parameters !== null && !isPlainObject(parameters)) {", 'if (false as boolean) {'),
  rw('parameters null (all defaults) are refused', "if (parameters !== undefined && parameters !== null && !isPlainObject(parameters)) {", 'if (parameters !== undefined && !isPlainObject(parameters)) {'),
  rw('a parameter named like an Object member is supplied by the prototype', '(name) => (Object.hasOwn(params, name) ? params[name] : undefined),', '(name) => params[name],'),
  rw('unknown parameter names are reported past the problem cap', 'if (!Object.hasOwn(map, name) && problems.length < MAX_PROBLEMS) {', 'if (!Object.hasOwn(map, name)) {'),
  rw('conformance: a submitted graph that is no object crashes the check', "  if (!isPlainObject(submitted)) {\n    return validationFailed([{ field: 'workflow', message: 'must be an object from node id", "  if (false as boolean) {\n    return validationFailed([{ field: 'workflow', message: 'must be an object from node id"),
  rw('conformance: problems are reported past the cap', '    if (problems.length < MAX_PROBLEMS) problems.push({ field, message });', '    problems.push({ field, message });'),
  rw('mapped values report problems past the cap', 'if (problems.length < MAX_PROBLEMS) problems.push({ field: locate.field(name, item)', 'problems.push({ field: locate.field(name, item)'),
  rw('conformance: a node without inputs crashes the check', "    if (!isPlainObject(got) || !isPlainObject(got['inputs'])) {", "    if (!isPlainObject(got)) {"),
  rw('conformance: a link where a parameter takes a value passes', '        if (isLink(gotInputs[name])) add(inputField(id, name), `parameter', '        if (false as boolean) add(inputField(id, name), `parameter'),
  rw('conformance: the problem does not say which inputs may change', "mapped && mapped.size > 0 ? `only ${[...mapped.keys()].join(', ')} may change on this node` : 'no input of this node is a parameter';", "'no input of this node is a parameter';"),
  rw('conformance: an input the template sets may be left out', 'if (!Object.hasOwn(gotInputs, name)) add(inputField(id, name), `is missing;', 'if (false as boolean) add(inputField(id, name), `is missing;'),
  rw('conformance: mapped values are read from a graph with structural problems (crash on a missing node)', '  if (problems.length > 0) return validationFailed(problems);\n\n  const submittedValue', '\n  const submittedValue'),
  rw('sameValue: equal primitives are unequal', '  if (a === b) return true;\n  if (isLink(a)', '  if (isLink(a)'),
  rw('sameValue: a link source id 1 differs from "1"', 'return String(a[0]) === String(b[0]) && a[1] === b[1];', 'return a[0] === b[0] && a[1] === b[1];'),
  rw('conformance: a node id named like an Object member is checked against the prototype', "if (!Object.hasOwn(expected, id) || want === undefined) {", 'if (want === undefined) {'),
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
  // Parameter values (checkParameterValue): what reaches the workflow.
  guard('a fractional number passes as an integer', PM, 'if (typeof value === \'number\') return Number.isSafeInteger(value) ? value : null;', 'if (typeof value === \'number\') return value;', [TEMPLATE_RULES_TEST, RENDER_TEST]),
  guard('an infinite number passes as a number', PM, 'if (typeof value === \'number\') return Number.isFinite(value) ? value : null;', 'if (typeof value === \'number\') return value;', [TEMPLATE_RULES_TEST, RENDER_TEST]),
  guard('integer text that is not decimal digits passes', PM, "if (typeof value === 'string' && INTEGER_TEXT.test(value)) {", "if (typeof value === 'string') {", [TEMPLATE_RULES_TEST, RENDER_TEST]),
  guard('number text that is not a decimal number passes', PM, "if (typeof value === 'string' && NUMBER_TEXT.test(value)) {", "if (typeof value === 'string') {", [TEMPLATE_RULES_TEST, RENDER_TEST]),
  guard('a value below min passes', PM, 'if (rules.min !== undefined && value < rules.min) return bad(', off + 'return bad(', [TEMPLATE_RULES_TEST, RENDER_TEST]),
  guard('a value above max passes', PM, 'if (rules.max !== undefined && value > rules.max) return bad(', off + 'return bad(', [TEMPLATE_RULES_TEST, RENDER_TEST]),
  guard('a non-string (an object, a link) passes as a string', PM, "if (typeof value !== 'string') return bad('must be a string');", "if (typeof value !== 'string') return { ok: true, value: value as string };", [TEMPLATE_RULES_TEST, RENDER_TEST]),
  guard('a string over MAX_STRING_LENGTH passes', PM, 'if (value.length > MAX_STRING_LENGTH) {', off + '{', [TEMPLATE_RULES_TEST, RENDER_TEST]),
  guard('anything passes as a boolean', PM, "if (value === false || value === 'false') return { ok: true, value: false };\n      return bad('must be true or false');", 'return { ok: true, value: false };', [TEMPLATE_RULES_TEST, RENDER_TEST]),
  guard('an enum value outside its options passes', PM, '&& options.includes(value)) return { ok: true, value };', ') return { ok: true, value };', [TEMPLATE_RULES_TEST, RENDER_TEST]),
  guard('an image parameter that is not an id passes (a server file name)', PM, 'if (isUuid(value)) return { ok: true, value };', "if (typeof value === 'string') return { ok: true, value };", [TEMPLATE_RULES_TEST, RENDER_TEST]),
  guard('a negative seed other than -1 passes', PM, 'if (parsed === null || parsed < 0 || parsed > MAX_SEED) {', 'if (parsed === null) {', [TEMPLATE_RULES_TEST, RENDER_TEST]),
  guard("a seed outside the item's min/max passes", PM, 'return inRange(rules, parsed);', 'return { ok: true, value: parsed };', [TEMPLATE_RULES_TEST, RENDER_TEST]),
  // The parameter map (validateParameterMap, checkRules).
  guard('a parameter name that is not a field path passes', PM, 'if (!NAME_PATTERN.test(name)) {', off + '{', [TEMPLATE_RULES_TEST]),
  guard('an unknown preset is ignored', PM, "        add(`${field}.preset`, `names no known preset (known: ${PARAMETER_PRESETS.map((p) => p.key).join(', ')})`);\n", '', [TEMPLATE_RULES_TEST]),
  guard('a preset used twice passes', PM, 'if (earlier !== undefined) add(', off + 'add(', [TEMPLATE_RULES_TEST]),
  guard("an item key differing from its name passes", PM, "if (raw['key'] !== undefined && raw['key'] !== name) {", off + '{', [TEMPLATE_RULES_TEST]),
  guard("a preset under another parameter name passes", PM, '} else if (preset && name !== preset.key) {', '} else if (preset && (false as boolean)) {', [TEMPLATE_RULES_TEST]),
  guard('an item without a known type is dropped silently', PM, "      add(`${field}.type`, `must be one of ${PARAMETER_TYPES.join(', ')}`);\n", '', [TEMPLATE_RULES_TEST]),
  guard("an item contradicting its preset's type passes", PM, '} else if (preset && rawType !== preset.type) {', '} else if (preset && (false as boolean)) {', [TEMPLATE_RULES_TEST]),
  guard('a category-required parameter of the wrong type passes', PM, 'if (categoryPreset && type !== categoryPreset.type) {', 'if (categoryPreset && (false as boolean)) {', [TEMPLATE_RULES_TEST]),
  guard('an item naming a node the workflow lacks is dropped silently', PM, '} else if (!Object.hasOwn(workflow, nodeId)) {', '} else ' + off + '{', [TEMPLATE_RULES_TEST]),
  guard('an item naming an input the node lacks passes', PM, 'if (!Object.hasOwn(node.inputs, inputName)) {', off + '{', [TEMPLATE_RULES_TEST]),
  guard('an item mapping a linked input passes (rewires the graph)', PM, '} else if (isLink(node.inputs[inputName])) {', '} else ' + off + '{', [TEMPLATE_RULES_TEST]),
  guard('two items mapping one input pass', PM, 'if (owner !== undefined) add(', off + 'add(', [TEMPLATE_RULES_TEST]),
  guard('a non-string or oversized label passes', PM, 'if (label !== undefined && (typeof label !== \'string\' || label.length > MAX_LABEL_LENGTH)) {', off + '{', [TEMPLATE_RULES_TEST]),
  guard('a non-string or oversized description passes', PM, 'if (description !== undefined && (typeof description !== \'string\' || description.length > MAX_DESCRIPTION_LENGTH)) {', off + '{', [TEMPLATE_RULES_TEST]),
  guard('a non-boolean required passes', PM, "if (required !== undefined && typeof required !== 'boolean') add(", off + 'add(', [TEMPLATE_RULES_TEST]),
  guard("a default breaking the item's rules is dropped silently", PM, '      else add(`${field}.default`, checked.message);\n', '', [TEMPLATE_RULES_TEST]),
  guard('a parameter the category requires may be missing', PM, 'if (!Object.hasOwn(input, key)) add(', off + 'add(', [TEMPLATE_RULES_TEST]),
  guard('min/max on a non-numeric type pass', PM, 'if (type && !NUMERIC_TYPES.includes(type)) {', off + '{', [TEMPLATE_RULES_TEST]),
  guard('min greater than max passes', PM, 'if (min !== undefined && max !== undefined && min > max) {', off + '{', [TEMPLATE_RULES_TEST]),
  guard('an enum with an empty option list passes', PM, 'if (!Array.isArray(rawOptions) || rawOptions.length === 0 || ', 'if (!Array.isArray(rawOptions) || ', [TEMPLATE_RULES_TEST]),
  guard('an enum listing an option twice passes', PM, 'if (repeated !== undefined) {', off + '{', [TEMPLATE_RULES_TEST]),
  guard('options on a type other than enum pass', PM, '} else if (rawOptions !== undefined) {', '} else ' + off + '{', [TEMPLATE_RULES_TEST]),
  guard('the catalogue shows node ids and input names', PM, 'const { node_id: nodeId, input_name: inputName, ...visible } = item;', 'const { node_id: nodeId, input_name: inputName } = item;\n    const visible: PublicParameter = { ...item };', [TEMPLATE_RULES_TEST, USE_CASES_TEST]),
  // Rendering a job's workflow (renderWorkflow, checkConformance, sameValue).
  guard('an unknown parameter name is ignored', RW, 'if (!Object.hasOwn(map, name) && problems.length < MAX_PROBLEMS) {', off + '{', [RENDER_TEST]),
  guard('a required parameter may be left out', RW, '      else if (item.required) {', '      else ' + off + '{', [RENDER_TEST]),
  guard("a value its item refuses reaches the workflow", RW, '    if (!checked.ok) {\n      add(name, item, checked.message);\n      continue;\n    }\n    let final = checked.value;', '    let final = (checked.ok ? checked.value : value) as string | number | boolean;', [RENDER_TEST]),
  guard("a random seed ignores the item's min/max", RW, 'final = randomSeed(random, item.min, item.max);', 'final = randomSeed(random);', [RENDER_TEST]),
  guard('conformance: a node left out passes', RW, "if (!Object.hasOwn(submitted, id)) add(`workflow.${id}`", off + "add(`workflow.${id}`", [RENDER_TEST]),
  guard('conformance: a retyped node passes', RW, "if (got['class_type'] !== want.class_type) {", off + '{', [RENDER_TEST]),
  guard('conformance: a changed unmapped input passes', RW, 'else if (!sameValue(want.inputs[name], gotInputs[name])) add(', 'else ' + off + 'add(', [RENDER_TEST]),
  guard('conformance: an input the template lacks passes', RW, "if (!Object.hasOwn(want.inputs, name)) add(inputField(id, name), 'is not in the template');", off + "add(inputField(id, name), 'is not in the template');", [RENDER_TEST]),
  guard("sameValue: a link's output slot is not compared", RW, 'return String(a[0]) === String(b[0]) && a[1] === b[1];', 'return String(a[0]) === String(b[0]);', [RENDER_TEST, USE_CASES_TEST]),
  guard('sameValue: a longer array equals its prefix', RW, 'if (!Array.isArray(b) || a.length !== b.length) return false;', 'if (!Array.isArray(b)) return false;', [RENDER_TEST, USE_CASES_TEST]),
  guard('sameValue: an object with extra keys equals', RW, '    if (keys.length !== Object.keys(b).length) return false;\n', '', [RENDER_TEST, USE_CASES_TEST]),
  // Template fields (checkNewTemplate, reviseTemplate).
  guard('an empty name passes', REVISION, 'name.length >= 1 && name.length <= TEMPLATE_NAME_MAX ? good(name)', 'name.length <= TEMPLATE_NAME_MAX ? good(name)', [USE_CASES_TEST, TEMPLATES_HTTP_TEST]),
  guard('a name over TEMPLATE_NAME_MAX passes', REVISION, 'name.length >= 1 && name.length <= TEMPLATE_NAME_MAX ? good(name)', 'name.length >= 1 ? good(name)', [USE_CASES_TEST, TEMPLATES_HTTP_TEST]),
  guard('a description over TEMPLATE_DESCRIPTION_MAX passes', REVISION, "if (typeof v !== 'string' || v.length > TEMPLATE_DESCRIPTION_MAX) return bad(", "if (typeof v !== 'string') return bad(", [USE_CASES_TEST, TEMPLATES_HTTP_TEST]),
  guard('an unknown category passes', REVISION, 'category: (v) => (isCategory(v) ? good(v)', 'category: (v) => (true ? good(v as Category)', [USE_CASES_TEST, TEMPLATES_HTTP_TEST]),
  guard('a fractional cost passes', REVISION, "typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= TEMPLATE_COST_MAX", "typeof v === 'number' && v >= 0 && v <= TEMPLATE_COST_MAX", [USE_CASES_TEST, TEMPLATES_HTTP_TEST]),
  guard('a negative cost passes (users would earn coins)', REVISION, "typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= TEMPLATE_COST_MAX", "typeof v === 'number' && Number.isInteger(v) && v <= TEMPLATE_COST_MAX", [USE_CASES_TEST, TEMPLATES_HTTP_TEST]),
  guard('a cost over TEMPLATE_COST_MAX passes', REVISION, "typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= TEMPLATE_COST_MAX", "typeof v === 'number' && Number.isInteger(v) && v >= 0", [USE_CASES_TEST, TEMPLATES_HTTP_TEST]),
  guard('an unknown output type passes', REVISION, '(OUTPUT_TYPES as readonly string[]).includes(v) ? good(v as OutputType)', 'true ? good(v as OutputType)', [USE_CASES_TEST, TEMPLATES_HTTP_TEST]),
  guard('a non-boolean isActive passes', REVISION, "isActive: (v) => (typeof v === 'boolean' ? good(v) :", 'isActive: (v) => (true ? good(v as boolean) :', [USE_CASES_TEST, TEMPLATES_HTTP_TEST]),
  guard('a field required on create may be left out', REVISION, "if (required.includes(name)) problems.push({ field: name, message: 'is required' });", '', [USE_CASES_TEST, TEMPLATES_HTTP_TEST]),
  guard('the workflow may be left out on create', REVISION, "if (required.length > 0) problems.push({ field: 'workflow', message: 'is required' });", '', [USE_CASES_TEST, TEMPLATES_HTTP_TEST]),
  guard("an invalid workflow's problems are dropped", REVISION, '    else problems.push(...(graph.details ?? []));\n', '', [USE_CASES_TEST, TEMPLATES_HTTP_TEST]),
  guard('a map sent by PATCH or PUT is stored unchecked (nodes or inputs the workflow lacks)', REVISION, "    const map = validateParameterMap(input['parameter_map'], next.workflow, next.category);\n    if (!map.ok) return map;", "    const map = { ok: true as const, value: input['parameter_map'] as WorkflowTemplate['parameterMap'] };", [USE_CASES_TEST, TEMPLATES_HTTP_TEST]),
  guard('a new workflow or category keeps a stored map that no longer fits', REVISION, 'if (!recheck.ok) {', 'if (!recheck.ok && (false as boolean)) {', [USE_CASES_TEST, TEMPLATES_HTTP_TEST]),
  guard('a new workflow or map overwrites the version queued jobs render', REVISION, 'next.version = current.version + (newVersion ? 1 : 0);', 'next.version = current.version;', [USE_CASES_TEST, REPO_CONTRACT]),
  guard('names differing only in case are both allowed', 'core/domain/workflow-template.ts', 'name.trim().toLowerCase();', 'name.trim();', [USE_CASES_TEST, REPO_CONTRACT, TEMPLATES_HTTP_TEST]),
  // Use cases.
  guard('a new template is published at once', 'core/use-cases/templates/create-template.use-case.ts', 'parameterMap: {}, publishedAt: null,', 'parameterMap: {}, publishedAt: now,', [USE_CASES_TEST, DRAFTS_TEST]),
  {
    name: 'templates-admin: a create the name index refused answers success',
    file: 'core/use-cases/templates/create-template.use-case.ts',
    find: '    if (!created) return templateNameTaken(fields.name);\n',
    replace: '',
    also: [{ file: 'core/use-cases/templates/create-template.use-case.ts', find: '    if (await templates.nameTaken(fields.name)) return templateNameTaken(fields.name);\n', replace: '' }],
    tests: [USE_CASES_TEST, TEMPLATES_HTTP_TEST],
  },
  guard('users get a draft or inactive template by id', 'core/use-cases/templates/get-catalogue-template.use-case.ts', 'if (!template || !isOffered(template)) return templateNotFound();', 'if (!template) return templateNotFound();', [USE_CASES_TEST, DRAFTS_TEST, TEMPLATES_HTTP_TEST]),
  guard('the catalogue lists drafts and inactive templates', 'core/use-cases/templates/list-catalogue.use-case.ts', 'list({ offeredOnly: true })', 'list()', [USE_CASES_TEST, DRAFTS_TEST, TEMPLATES_HTTP_TEST]),
  guard('a template no engine server can run may be published', 'core/use-cases/templates/publish-template.use-case.ts', 'return verdict.ok ? ok(undefined) : verdict;', 'return verdict.ok || !verdict.ok ? ok(undefined) : verdict;', [USE_CASES_TEST, 'tests/unit/template-fleet.test.ts']),
  guard('publishing a published template moves its date and logs again', 'core/use-cases/templates/publish-template.use-case.ts', 'current.publishedAt ?? this.deps.clock.now()', 'this.deps.clock.now()', [USE_CASES_TEST, DRAFTS_TEST]),
  guard('a change that changes nothing is written and audit-logged', 'core/use-cases/templates/revise-template.service.ts', '    if (!changed) return ok(current);\n', '', [USE_CASES_TEST, DRAFTS_TEST]),
  {
    name: "templates-admin: a rename onto another template's name answers success",
    file: 'core/use-cases/templates/revise-template.service.ts',
    find: "    if (outcome === 'name_taken') return templateNameTaken(next.name);\n",
    replace: '',
    also: [{ file: 'core/use-cases/templates/revise-template.service.ts', find: 'if (templateNameKey(next.name) !== templateNameKey(current.name) && (await templates.nameTaken(next.name, id))) {', replace: 'if (false as boolean) {' }],
    tests: [USE_CASES_TEST, TEMPLATES_HTTP_TEST],
  },
  guard('ready templates: a name taken by another process installing at the same moment is reported as installed by this one', 'core/use-cases/templates/install-ready-templates.use-case.ts', '          if (!(await templates.create(built.value))) throw new InstalledElsewhere();\n', '          await templates.create(built.value);\n', [USE_CASES_TEST]),
  guard('ready templates: a store failure while installing is taken for another process installing', 'core/use-cases/templates/install-ready-templates.use-case.ts', '      if (!(error instanceof InstalledElsewhere)) throw error;\n', '', [USE_CASES_TEST]),
  guard('ready templates: a template that breaks this server\'s rules is installed', 'core/use-cases/templates/install-ready-templates.use-case.ts', '          if (!built.ok) {\n', '          if (!built.ok && false) {\n', [USE_CASES_TEST]),
  guard('ready templates come back into a table that once held templates', 'core/use-cases/templates/install-ready-templates.use-case.ts', '        if ((await templates.countEver()) > 0) return;\n', '', [USE_CASES_TEST]),
  guard('test runs ignore MAX_ACTIVE_JOBS_PER_USER', TEST_RUN_USE_CASE, 'const queueTurn = await turnForJob(tx, this.deps, input.userId);\n      if (queueTurn === null) return null;', 'const queueTurn = (await turnForJob(tx, this.deps, input.userId)) ?? 1;', [TEST_RUNS_UNIT]),
  // Repositories.
  guard('SQL findById finds a deleted template', SQL_REPO, '`SELECT * FROM templates WHERE id = ? AND deleted_at IS NULL${lock}`', '`SELECT * FROM templates WHERE id = ?${lock}`', [REPO_CONTRACT]),
  guard('SQL list includes deleted templates', SQL_REPO, 'where: { deleted_at: null, ...(options.offeredOnly', 'where: { ...(options.offeredOnly', [REPO_CONTRACT]),
  {
    name: 'templates-admin: SQL update writes a deleted template',
    file: SQL_REPO,
    find: 'await templates.update(changes, { where: { id, deleted_at: null }',
    replace: 'await templates.update(changes, { where: { id }',
    also: [{ file: SQL_REPO, find: '(await templates.count({ where: { id, deleted_at: null }', replace: '(await templates.count({ where: { id }' }],
    tests: [REPO_CONTRACT],
  },
  guard("SQL update without a new version changes every version's cost", SQL_REPO, '{ where: { template_id: id, version: next.version }, ...s.options },', '{ where: { template_id: id }, ...s.options },', [REPO_CONTRACT]),
  guard("SQL soft delete keeps the name taken", SQL_REPO, 'update({ deleted_at: at, active_name: null, updated_at: at }', 'update({ deleted_at: at, updated_at: at }', [REPO_CONTRACT]),
  guard('SQL soft delete deletes a deleted template again', SQL_REPO, 'updated_at: at }, { where: { id, deleted_at: null }', 'updated_at: at }, { where: { id }', [REPO_CONTRACT]),
  guard('memory repository finds a deleted template', MEMORY_REPO, 'return template && !template.deletedAt ? template : null;', 'return template ?? null;', [REPO_CONTRACT]),
  guard("memory nameTaken counts deleted templates' names", MEMORY_REPO, "if (!template.deletedAt && template.id !== exceptId && templateNameKey(template.name) === key) return true;", "if (template.id !== exceptId && templateNameKey(template.name) === key) return true;", [REPO_CONTRACT]),
  guard('memory nameTaken counts the template being renamed', MEMORY_REPO, "if (!template.deletedAt && template.id !== exceptId && templateNameKey(template.name) === key) return true;", "if (!template.deletedAt && templateNameKey(template.name) === key) return true;", [REPO_CONTRACT, USE_CASES_TEST]),
  guard('memory list includes deleted templates', MEMORY_REPO, '.filter((template) => !template.deletedAt && (!options.offeredOnly', '.filter((template) => (!options.offeredOnly', [REPO_CONTRACT]),
  guard('memory list offered-only includes drafts and inactive templates', MEMORY_REPO, '(!options.offeredOnly || isOffered(template))', '(!options.offeredOnly || true)', [REPO_CONTRACT]),
  guard('memory update writes a deleted template', MEMORY_REPO, "    if (!this.live(next.id)) return 'not_found';\n", '', [REPO_CONTRACT]),
  guard("memory update takes another template's name", MEMORY_REPO, "    if (await this.nameTaken(next.name, next.id)) return 'name_taken';\n", '', [REPO_CONTRACT]),
  guard('memory soft delete deletes a deleted template again', MEMORY_REPO, 'const template = this.live(id);\n    if (!template) return false;', 'const template = this.templates.get(id);\n    if (!template) return false;', [REPO_CONTRACT]),
  guard('memory repository hands out its stored objects', MEMORY_REPO, 'const copy = <T>(value: T): T => structuredClone(value);', 'const copy = <T>(value: T): T => value;', [REPO_CONTRACT]),
  // Routes.
  userRoute('GET /workflow-templates/categories', 'Template categories'),
  userRoute('GET /workflow-templates/parameter-presets', 'Parameter presets, all or those of one category'),
  userRoute('POST /workflow-templates', 'Create a template (step 1: the parameter map starts empty)'),
  userRoute('PUT /workflow-templates/:id/parameter-map', 'Replace the parameter map (step 2)'),
  userRoute('PATCH /workflow-templates/:id', 'Change any fields, validated together'),
  userRoute('GET /workflow-templates', 'Every template, active or not'),
  userRoute('GET /workflow-templates/:id', 'One template'),
  userRoute('DELETE /workflow-templates/:id', 'Delete a template (its versions stay readable for job history)'),
  guard('the catalogue list open to anonymous callers', 'adapters/http/routes/catalogue.routes.ts', "summary: 'Active templates and their parameters', tag: 'templates', auth: 'access',", "summary: 'Active templates and their parameters', tag: 'templates', auth: 'public',", [TEMPLATES_HTTP_TEST]),
  guard('a catalogue entry open to anonymous callers', 'adapters/http/routes/catalogue.routes.ts', "summary: 'One active template', tag: 'templates', auth: 'access',", "summary: 'One active template', tag: 'templates', auth: 'public',", [TEMPLATES_HTTP_TEST]),
  // Presets: the bounds every map using them inherits.
  guard('the batch_size preset has no upper bound', 'core/domain/parameter-presets.ts', "description: 'How many results one run makes.', default: 1, min: 1, max: 4096,", "description: 'How many results one run makes.', default: 1, min: 1,", [TEMPLATE_RULES_TEST]),
  guard('the steps preset has no upper bound', 'core/domain/parameter-presets.ts', "default: 20, min: 1, max: 10000,", "default: 20, min: 1,", [TEMPLATE_RULES_TEST]),
  guard('the duration preset has no upper bound', 'core/domain/parameter-presets.ts', "default: 4, min: 0.5, max: 120,", "default: 4, min: 0.5,", [TEMPLATE_RULES_TEST]),
  guard('text-to-video no longer requires a duration', 'core/domain/parameter-presets.ts', "'text-to-video': Object.freeze(['prompt', 'duration']),", "'text-to-video': Object.freeze(['prompt']),", [TEMPLATE_RULES_TEST]),
  guard('the shared presets may be changed by any caller', 'core/domain/parameter-presets.ts', '    Object.freeze(value);\n', '', [TEMPLATE_RULES_TEST]),
  {
    name: 'templates-admin: an unknown preset category answers an empty list',
    file: TEMPLATE_ROUTES,
    find: 'if (!isCategory(category)) {\n        return sendFail(',
    replace: 'if (false as boolean) {\n        return sendFail(',
    also: [{ file: TEMPLATE_ROUTES, find: 'res.json(presetsForCategory(category));', replace: 'res.json(presetsForCategory(category as Parameters<typeof presetsForCategory>[0]));' }],
    tests: [TEMPLATES_HTTP_TEST],
  },
  guard('a test run is not audit-logged', TEST_RUN_USE_CASE, 'await tx.audit.record({', 'void ({', [TEST_RUNS_UNIT]),
  guard('a parameter named __proto__ is dropped without a word', PM, "    } else if (name === '__proto__') {", "    } else if (false as boolean) {", [TEMPLATE_RULES_TEST]),
  ...workflowGraphMutations(),
  ...categoryInputMutations(),
  ...parameterMapGuards(),
  ...templateRevisionMutations(),
];

/** The shape check of a workflow graph (core/domain/workflow-graph.ts), which every template and raw workflow passes before it is stored or run. */
function workflowGraphMutations(): Mutation[] {
  const file = 'core/domain/workflow-graph.ts';
  const tests = ['tests/unit/workflow-graph.test.ts'];
  const entry = entriesOn('workflow graph', file, tests);
  return [
    entry('a non-object workflow let through', "  if (!isPlainObject(input)) {\n    return validationFailed([{ field: 'workflow', message: 'must be an object", "  if (false) {\n    return validationFailed([{ field: 'workflow', message: 'must be an object"),
    entry('an array or class instance accepted as a plain object', 'return proto === Object.prototype || proto === null;', 'return true;'),
    entry('an empty graph accepted', 'if (nodeCount === 0) return validationFailed(', 'if (false) return validationFailed('),
    entry('the node count not limited', 'if (nodeCount > maxNodes) {', 'if (false) {'),
    entry('the node count limit exclusive', 'if (nodeCount > maxNodes) {', 'if (nodeCount >= maxNodes) {'),
    entry('the size not limited', 'if (size > maxBytes) {', 'if (false) {'),
    entry('the size limit exclusive', 'if (size > maxBytes) {', 'if (size >= maxBytes) {'),
    entry('2-byte characters counted as 1', 'else if (code < 0x800) bytes += 2;', 'else if (code < 0x800) bytes += 1;'),
    entry('a surrogate pair counted as two 3-byte characters', "    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {\n      bytes += 4;\n      i++;\n    } else bytes += 3;", '    else bytes += 3;'),
    entry('a node that is not an object let through', "    if (!isPlainObject(raw)) {\n      problems.add(`workflow.${id}`, 'must be an object with class_type and inputs');\n      continue;\n    }\n", ''),
    entry('an empty class_type accepted', "if (typeof classType !== 'string' || classType.trim() === '') {", "if (typeof classType !== 'string') {"),
    entry('node types outside the allowed list accepted', '} else if (allowed && !allowed.has(classType)) {', '} else if (false) {'),
    entry('non-object inputs accepted', "    if (!isPlainObject(inputs)) {\n      problems.add(`workflow.${id}.inputs`", "    if (inputs === undefined) {\n      problems.add(`workflow.${id}.inputs`"),
    entry('_meta dropped', '    if (isPlainObject(meta)) node._meta = meta;\n', ''),
    entry('an array that is not a link accepted', "      if (!isLink(value)) {\n        problems.add(", "      if (false) {\n        problems.add("),
    entry('a negative output index accepted', 'if (value[1] < 0) {', 'if (false) {'),
    entry('a link to a missing node accepted', 'if (!Object.hasOwn(copy, source)) {', 'if (false) {'),
    entry('numeric link sources not normalised to strings', '      inputs[name] = [source, value[1]];\n', ''),
    entry('cycles not looked for', '  if (!problems.full) findCycles(graph, problems);', ''),
    entry('a cycle not reported', "        problems.add(inputField(frame.id, inputName), `is part of a cycle: ${path}`);", ''),
    entry('a shared node read as a cycle (finished nodes not told apart)', 'if (state === GREY) {', 'if (state !== WHITE) {'),
    entry('a graph without an output node accepted', 'if (outputNodeIds(graph, outputTypes).length === 0) {', 'if (false) {'),
    entry('Preview nodes not counted as outputs', "classType.startsWith('Save') || BUILTIN_OUTPUT_NODE_TYPES.includes(classType) ||", "classType.startsWith('Save') ||"),
    entry('configured output node types ignored', '(extra?.includes(classType) ?? false)', 'false'),
    entry('problems not capped', 'return this.list.length >= MAX_PROBLEMS;', 'return false;'),
  ];
}

/** Which literal inputs can carry a category's prompt, image or duration (core/domain/category-inputs.ts). */
function categoryInputMutations(): Mutation[] {
  const file = 'core/domain/category-inputs.ts';
  const tests = ['tests/unit/category-inputs.test.ts'];
  const entry = entriesOn('category inputs', file, tests);
  return [
    entry('a prompt of any type', "  prompt: (classType, inputName, value) =>\n    typeof value === 'string' &&", '  prompt: (classType, inputName, value) =>'),
    entry('a prompt not on a prompt input', "(inputName === 'text' || inputName === 'prompt' ||", "(inputName === 'text' ||"),
    entry('a prompt on the value of any primitive', "(classType.startsWith('PrimitiveString') && inputName === 'value')", "(inputName === 'value')"),
    entry('any input named image carries an image', "typeof value === 'string' && classType.startsWith('LoadImage') && inputName === 'image'", "typeof value === 'string' && inputName === 'image'"),
    entry('an image of any type', "image: (classType, inputName, value) => typeof value === 'string' && classType", 'image: (classType, inputName, value) => classType'),
    entry('a duration of any type', "  duration: (classType, inputName, value) =>\n    typeof value === 'number' &&", '  duration: (classType, inputName, value) =>'),
    entry('frame counts not read as durations', "['length', 'duration', 'seconds', 'frames', 'num_frames', 'video_frames']", "['length', 'duration', 'seconds']"),
    entry("any node's amount read as a duration", "(classType === 'RepeatImageBatch' && inputName === 'amount')", "(inputName === 'amount')"),
  ];
}

/** The rest of parameter-map.ts, guard by guard (tests/unit/parameter-map.test.ts; checkParameterValue also through rendering). */
function parameterMapGuards(): Mutation[] {
  const value = entriesOn('templates-admin parameter map', PM, [TEMPLATE_RULES_TEST, RENDER_TEST]);
  const map = entriesOn('templates-admin parameter map', PM, [TEMPLATE_RULES_TEST]);
  return [
    value("the options message lists every option", "options.slice(0, 20).map(", "options.map("),
    value("the options message hides how many more there are", "options.length > 20 ? `${shown} and ${options.length - 20} more` : shown", "shown"),
    value("integer text beyond the safe range passes", "    return Number.isSafeInteger(parsed) ? parsed : null;", "    return parsed;"),
    value("number text beyond the finite range passes", "    return Number.isFinite(parsed) ? parsed : null;", "    return parsed;"),
    value("a non-integer is range-checked as an integer", "return parsed === null ? bad('must be an integer') : inRange(rules, parsed);", "return inRange(rules, parsed as number);"),
    value("a non-number is range-checked as a number", "return parsed === null ? bad('must be a number') : inRange(rules, parsed);", "return inRange(rules, parsed as number);"),
    value("the text \"true\" is refused as a boolean", "if (value === true || value === 'true') return", "if (value === true) return"),
    value("the text \"false\" is refused as a boolean", "if (value === false || value === 'false') return", "if (value === false) return"),
    value("the random seed -1 is refused", "      if (parsed === RANDOM_SEED) return { ok: true, value: parsed };\n", ""),
    value("a seed that is no integer passes", "parsed === null || parsed < 0 || parsed > MAX_SEED", "parsed! < 0 || parsed! > MAX_SEED"),
    value("any string is a parameter type", "typeof value === 'string' && (PARAMETER_TYPES as readonly string[]).includes(value);", "typeof value === 'string';"),
    map("an array or text passes as a map", "  if (!isPlainObject(input)) {\n    return validationFailed([{ field: 'parameter_map'", "  if (input === null) {\n    return validationFailed([{ field: 'parameter_map'"),
    map("problems are not capped at MAX_PROBLEMS", "if (problems.length < MAX_PROBLEMS) problems.push(", "problems.push("),
    map("an unknown category passes", "  if (!isCategory(category)) add('category',", "  if (false as boolean) add('category',"),
    map("an item that is not an object is read as one", "    if (!isPlainObject(raw)) {\n      add(field, 'must be an object with key, type, node_id and input_name');\n      continue;\n    }\n", ""),
    map("an item without a preset names an unknown preset", "if (raw['preset'] !== undefined) {", "if (true as boolean) {"),
    map("the first user of a preset is not recorded", "else presetUsers.set(preset.key, name);", "else presetUsers.get(preset.key);"),
    map("a category-required item of the wrong type is checked as that type", "        type = undefined;\n", ""),
    map("a numeric node_id is refused", "typeof raw['node_id'] === 'number' ? String(raw['node_id']) : raw['node_id']", "raw['node_id']"),
    map("an empty node_id is looked up", "if (typeof nodeId !== 'string' || nodeId === '') {", "if (typeof nodeId !== 'string') {"),
    map("a missing node_id is looked up", "if (typeof nodeId !== 'string' || nodeId === '') {", "if (nodeId === '') {"),
    map("an empty input_name is looked up", "if (typeof inputName !== 'string' || inputName === '') {", "if (typeof inputName !== 'string') {"),
    map("a missing input_name is looked up", "if (typeof inputName !== 'string' || inputName === '') {", "if (inputName === '') {"),
    map("an input of a node the workflow lacks is looked up", "} else if (typeof nodeId === 'string' && Object.hasOwn(workflow, nodeId)) {", "} else if (typeof nodeId === 'string') {"),
    map("the first item mapping an input is not recorded", "else mappedInputs.set(slot, name);", ""),
    map("node id and input name run together (a false \"already mapped\")", "const slot = `${nodeId}\\u0000${inputName}`;", "const slot = `${nodeId}${inputName}`;"),
    map("a valid location is dropped", "        location = { nodeId, inputName };\n", ""),
    map("an explicit null default is checked as a value", "if (rawDefault !== undefined && rawDefault !== null && rules) {", "if (rawDefault !== undefined && rules) {"),
    map("a default is checked without trusted rules", "rawDefault !== null && rules) {\n      const checked = checkParameterValue(rules, rawDefault);", "rawDefault !== null) {\n      const checked = checkParameterValue(rules!, rawDefault);"),
    map("a default is kept as written, not coerced", "if (checked.ok) fallback = checked.value;", "if (checked.ok) fallback = rawDefault as ParameterValue;"),
    map("an item with problems is still mapped", "    if (!type || !location || !rules) continue;\n", ""),
    map("an item without a label carries label undefined", "if (typeof label === 'string') item.label = label;", "item.label = label as string;"),
    map("an item without a description carries description undefined", "if (typeof description === 'string') item.description = description;", "item.description = description as string;"),
    map("an item without a default carries default undefined", "if (fallback !== undefined) item.default = fallback;", "item.default = fallback!;"),
    map("an item without required carries required undefined", "if (typeof required === 'boolean') item.required = required;", "item.required = required as boolean;"),
    map("an item without min carries min undefined", "if (rules.min !== undefined) item.min = rules.min;", "item.min = rules.min!;"),
    map("an item without max carries max undefined", "if (rules.max !== undefined) item.max = rules.max;", "item.max = rules.max!;"),
    map("an item without options carries options undefined", "if (rules.options !== undefined) item.options = rules.options;", "item.options = rules.options!;"),
    map("an item without a preset carries preset undefined", "if (preset) item.preset = preset.key;", "item.preset = preset?.key as string;"),
    map("required keys are looked up for an unknown category", "  if (isCategory(category)) {\n    for (const key of requiredKeysFor", "  if (true as boolean) {\n    for (const key of requiredKeysFor"),
    map("a preset's min and max are not applied", "const value = raw[name] ?? preset?.[name];", "const value = raw[name];"),
    map("an infinite bound passes", "if (typeof value !== 'number' || !Number.isFinite(value)) {", "if (typeof value !== 'number') {"),
    map("a default is checked against rules with a non-numeric bound", "      add(`${field}.${name}`, 'must be a number');\n      sound = false;\n", "      add(`${field}.${name}`, 'must be a number');\n"),
    map("a default is checked against bounds of a non-numeric type", "      add(`${field}.${name}`, 'applies only to integer, number and seed parameters');\n      sound = false;\n", "      add(`${field}.${name}`, 'applies only to integer, number and seed parameters');\n"),
    map("a default is checked against min greater than max", "must not be greater than max (${min} > ${max})`);\n    sound = false;\n", "must not be greater than max (${min} > ${max})`);\n"),
    map("a preset's options are not applied", "const rawOptions = raw['options'] ?? preset?.options;", "const rawOptions = raw['options'];"),
    map("options that are not a list are read as one", "if (!Array.isArray(rawOptions) || rawOptions.length === 0 || ", "if (rawOptions.length === 0 || "),
    map("options of any type pass", " || !rawOptions.every((o) => typeof o === 'string' || (typeof o === 'number' && Number.isFinite(o)))", ""),
    map("an infinite option passes", "(typeof o === 'number' && Number.isFinite(o))", "typeof o === 'number'"),
    map("a default is checked against bad or repeated options", "lists ${JSON.stringify(repeated)} twice`);\n        sound = false;\n", "lists ${JSON.stringify(repeated)} twice`);\n"),
    map("the map shares the given (or the preset's) options list", "options = [...(rawOptions as (string | number)[])];", "options = rawOptions as (string | number)[];"),
    map("a default is checked against options that are not trusted", "      add(`${field}.options`, 'an enum needs a non-empty list of strings or numbers');\n      sound = false;\n", "      add(`${field}.options`, 'an enum needs a non-empty list of strings or numbers');\n"),
    map("a default is checked against options on a non-enum", "    add(`${field}.options`, 'applies only to enum parameters');\n    sound = false;\n", "    add(`${field}.options`, 'applies only to enum parameters');\n"),
    map("rules are given when they cannot be trusted", "if (!sound || !type) return undefined;", "if (!type) return undefined;"),
    map("the catalogue of an item naming a node the workflow lacks throws", "const literal = workflow[nodeId]?.inputs[inputName];", "const literal = workflow[nodeId]!.inputs[inputName];"),
    map("the catalogue shows the literal over the item's own default", "if (visible.default === undefined && !visible.required && ", "if (!visible.required && "),
    map("the catalogue shows a default for a required parameter", "!visible.required && item.type !== 'seed'", "item.type !== 'seed'"),
    map("the catalogue shows a seed's literal as its default", "item.type !== 'seed' && item.type !== 'image'", "item.type !== 'image'"),
    map("the catalogue shows an image's file name as its default", "&& item.type !== 'image' && literal !== undefined", "&& literal !== undefined"),
    map("the catalogue shows a literal that breaks the rules", "if (checked.ok) visible.default = checked.value;", "visible.default = checked.ok ? checked.value : (literal as ParameterValue);"),
    map("withClassTypes of an item naming a node the workflow lacks throws", "class_type: workflow[item.node_id]?.class_type ?? null", "class_type: workflow[item.node_id]!.class_type"),
    map("withClassTypes gives class_type undefined for a node the workflow lacks", "class_type: workflow[item.node_id]?.class_type ?? null", "class_type: workflow[item.node_id]?.class_type as string"),
  ];
}

/** core/domain/template-revision.ts beyond the field limits above: trimming, defaults, what counts as a change and a new version, the re-check of a stored map. */
function templateRevisionMutations(): Mutation[] {
  const entry = entriesOn('template revision', REVISION, [USE_CASES_TEST, TEMPLATES_HTTP_TEST]);
  return [
    entry('a name is stored untrimmed', "const name = typeof v === 'string' ? v.trim() : '';", "const name = typeof v === 'string' ? v : '';"),
    entry('a null description is refused', '    if (v === null) return good(null);\n', ''),
    entry('a description that is not a string passes', "if (typeof v !== 'string' || v.length > TEMPLATE_DESCRIPTION_MAX) return bad(", "if (typeof v === 'string' && v.length > TEMPLATE_DESCRIPTION_MAX) return bad("),
    entry('a blank description is stored, not cleared', "return good(v.trim() === '' ? null : v);", 'return good(v);'),
    entry('name not required on create', "const REQUIRED_ON_CREATE: readonly ScalarField[] = ['name', 'category', 'cost', 'outputType'];", "const REQUIRED_ON_CREATE: readonly ScalarField[] = ['category', 'cost', 'outputType'];"),
    entry('category not required on create', "const REQUIRED_ON_CREATE: readonly ScalarField[] = ['name', 'category', 'cost', 'outputType'];", "const REQUIRED_ON_CREATE: readonly ScalarField[] = ['name', 'cost', 'outputType'];"),
    entry('cost not required on create', "const REQUIRED_ON_CREATE: readonly ScalarField[] = ['name', 'category', 'cost', 'outputType'];", "const REQUIRED_ON_CREATE: readonly ScalarField[] = ['name', 'category', 'outputType'];"),
    entry('output type not required on create', "const REQUIRED_ON_CREATE: readonly ScalarField[] = ['name', 'category', 'cost', 'outputType'];", "const REQUIRED_ON_CREATE: readonly ScalarField[] = ['name', 'category', 'cost'];"),
    entry("the server's output node types not applied", '  ...(rules.outputNodeTypes ? { outputNodeTypes: rules.outputNodeTypes } : {}),\n', ''),
    entry("the server's allowed node types not applied", '  ...(rules.allowedNodeTypes ? { allowedNodeTypes: rules.allowedNodeTypes } : {}),\n', ''),
    entry('a create body that is not an object is read as one', '  if (!isPlainObject(input)) return notAnObject();\n  const checked = checkFields(input, rules, REQUIRED_ON_CREATE);', '  const checked = checkFields((input ?? {}) as Record<string, unknown>, rules, REQUIRED_ON_CREATE);'),
    entry('a patch body that is not an object is read as one', '  if (!isPlainObject(input)) return notAnObject();\n  const checked = checkFields(input, rules, []);', '  const checked = checkFields((input ?? {}) as Record<string, unknown>, rules, []);'),
    entry('a new template without description holds undefined, not null', 'description: fields.description ?? null,', 'description: fields.description,'),
    entry('a new template is inactive unless told', 'isActive: fields.isActive ?? true', 'isActive: fields.isActive ?? false'),
    entry('the same workflow sent again is a new version', 'const workflowChanged = fields.workflow !== undefined && !sameValue(fields.workflow, current.workflow);', 'const workflowChanged = fields.workflow !== undefined;'),
    entry('an equal workflow sent again replaces the stored one', '  if (!workflowChanged) next.workflow = current.workflow;\n', ''),
    entry('a new category does not re-check the stored map', '} else if ((workflowChanged || categoryChanged) && Object.keys(current.parameterMap).length > 0) {', '} else if (workflowChanged && Object.keys(current.parameterMap).length > 0) {'),
    entry('an empty stored map is re-checked (blocks a new workflow before step 2)', '} else if ((workflowChanged || categoryChanged) && Object.keys(current.parameterMap).length > 0) {', '} else if (workflowChanged || categoryChanged) {'),
    entry('a map that no longer fits a new category is blamed on the workflow', "const what = workflowChanged ? 'workflow' : 'category';", "const what = 'workflow';"),
    entry('the same map sent again is a new version', 'mapChanged = !sameValue(map.value, current.parameterMap);', 'mapChanged = true;'),
    entry('a change of name, description, category, cost, output type or activity is not saved', '(Object.keys(SCALAR_CHECKS) as ScalarField[]).some((name) => next[name] !== current[name]);', 'false;'),
    entry('a PUT without a map changes nothing instead of being refused', 'reviseTemplate(current, { parameter_map: map === undefined ? null : map }, rules);', 'reviseTemplate(current, { parameter_map: map }, rules);'),
  ];
}
