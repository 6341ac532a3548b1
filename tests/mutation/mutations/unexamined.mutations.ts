import { entriesOn, type Mutation } from '../mutation.ts';

/**
 * Guards the last audit left unexamined: the queue-depth check of both submits (and v2's answer to it), the retention
 * sweep's batch bound, the ComfyUI engine options the generation module hands over, the OpenID Connect adapter's
 * ID token versus userinfo precedence, and what blocks publishing a template.
 */
const AUDIT = 'tests/integration/unexamined-audit.test.ts';
const ENGINE_AUDIT = 'tests/integration/unexamined-audit-comfy-engine.test.ts';
const submit = entriesOn('unexamined: submit queue depth', 'core/use-cases/generation/submit-generation.use-case.ts', [AUDIT]);
const v2 = entriesOn('unexamined: v2 submit', 'adapters/http/comfy-v2-views.ts', [AUDIT]);
const sweep = entriesOn('unexamined: retention sweep', 'core/use-cases/generation/output-history.service.ts', [AUDIT]);
const sqlHistory = entriesOn('unexamined: SQL history', 'adapters/sequelize/sequelize-history-repository.ts', [AUDIT]);
const oidc = entriesOn('unexamined: oidc', 'adapters/openid/openid-client-providers.ts', ['tests/integration/unexamined-audit-oidc.test.ts']);
const publish = entriesOn('unexamined: publish', 'core/use-cases/templates/publish-template.use-case.ts', ['tests/unit/unexamined-audit.test.ts']);
const comfy = entriesOn('unexamined: comfy engine options', 'bootstrap/modules/generation.module.ts', [ENGINE_AUDIT]);

export const MUTATIONS: Mutation[] = [
  // The queue-depth check (ADR 037), both submits.
  v2('a full queue is 429 rate_limited, not queue_full', "  'QUEUE.FULL': { status: 429, code: 'queue_full' },\n", ''),
  submit('running jobs fill the queue too', "listByStatus(['queued'], { page: 1, limit: 1 })", "listByStatus(['queued', 'running'], { page: 1, limit: 1 })"),

  // The retention sweep, as the scheduler runs it.
  sweep('one pass deletes every expired output (no default batch)', 'async sweepExpired(max = 500)', 'async sweepExpired(max = 1_000_000)'),
  sweep('the batch bound is not handed to the repository', 'listExpired(this.deps.clock.now(), max)', 'listExpired(this.deps.clock.now(), 1_000_000)'),
  sweep('outputs not yet expired are swept', 'listExpired(this.deps.clock.now(), max)', 'listExpired(new Date(8.64e15), max)'),
  sqlHistory('listExpired ignores its bound', "order: [['expires_at', 'ASC']], limit: max, raw: true", "order: [['expires_at', 'ASC']], raw: true"),

  // The options handed to the ComfyUI engine adapter.
  comfy('COMFYUI_URLS not handed over in their order', '    urls: engine.urls,\n', '    urls: [...engine.urls].reverse(),\n'),
  comfy('COMFYUI_TOKEN dropped', '...(engine.token ? { token: engine.token } : {}),', ''),
  comfy('COMFYUI_TIMEOUT_MS dropped (the 30 s default)', '    timeoutMs: engine.timeoutMs,\n', '    timeoutMs: 30_000,\n'),
  comfy('COMFYUI_JOBS_PER_SERVER dropped', '    jobsPerServer: engine.jobsPerServer,\n', ''),
  comfy('COMFYUI_JOBS_PER_SERVER replaced by the default 1', '    jobsPerServer: engine.jobsPerServer,\n', '    jobsPerServer: 1,\n'),
  comfy('COMFYUI_WAIT_MS dropped', '    unavailableWaitMs: engine.unavailableWaitMs,\n', ''),
  comfy('COMFYUI_PROBE_MS dropped', '    maxBackoffMs: engine.probeMs,\n', ''),
  comfy('COMFYUI_CATALOG_REFRESH_MS dropped', '    catalogueRefreshMs: engine.catalogueRefreshMs,\n', ''),
  comfy('COMFYUI_DISPATCH dropped (always fair)', '    dispatch: engine.dispatch,\n', ''),
  comfy('COMFYUI_AFFINITY_WAIT_MS dropped (always 15 s)', '    affinityWaitMs: engine.affinityWaitMs,\n', ''),

  // Publishing against the fleet.
  publish('the fleet is not read (published unchecked, no problems shown)', 'const fleet = this.deps.nodes ? await this.deps.nodes.catalogues() : null;', 'const fleet = null;'),
  publish('the parameter map is not checked against the fleet', 'judgeOnFleet(fleet, template.workflow, template.parameterMap)', 'judgeOnFleet(fleet, template.workflow)'),
  publish('the published template comes back without the problems of the servers that cannot run it', 'return result.ok ? ok(withProblems(fleet, result.value)) : result;', 'return result.ok ? ok(result.value) : result;'),
  {
    name: 'unexamined: templates module: publishing is not given the fleet',
    file: 'bootstrap/modules/templates.module.ts',
    find: 'publish: new PublishTemplate({ ...write, ...nodes }),',
    replace: 'publish: new PublishTemplate(write),',
    tests: [ENGINE_AUDIT],
  },

  // The OpenID Connect adapter: the ID token over userinfo.
  oidc('userinfo overrides what the ID token says', 'merged = { ...(await client.fetchUserInfo(config, tokens.access_token, claims.sub)), ...claims };', 'merged = { ...claims, ...(await client.fetchUserInfo(config, tokens.access_token, claims.sub)) };'),
  oidc("a userinfo answer about another subject is merged", 'client.fetchUserInfo(config, tokens.access_token, claims.sub)', 'client.fetchUserInfo(config, tokens.access_token, client.skipSubjectCheck)'),
  oidc('userinfo is read (and fills in) even when the ID token has the email', "if (typeof claims.email !== 'string' && config.serverMetadata().userinfo_endpoint) {", 'if (config.serverMetadata().userinfo_endpoint) {'),
];
