import { entriesOn, type Mutation } from '../mutation.ts';

/**
 * Guards of routes, use cases, adapters and modules that had few entries (audit `backend-audit`): the refusals of
 * the social, API key and test-run routes, the template lookups and deletion, the job queries, the single-use
 * states, the memory store and event log, the plain SQL reader, the web app and health port, the traced engine.
 */
const HTTP = ['tests/integration/backend-audit.test.ts'];
const UNIT = ['tests/unit/backend-audit.test.ts'];
const P = 'backend-audit';
const social = entriesOn(`${P}: social routes`, 'adapters/http/routes/social.routes.ts', HTTP);
const apiKeys = entriesOn(`${P}: api key routes`, 'adapters/http/routes/api-keys.routes.ts', HTTP);
const testRuns = entriesOn(`${P}: test-run routes`, 'adapters/http/routes/test-run.routes.ts', HTTP);
const getTemplate = entriesOn(`${P}: get template`, 'core/use-cases/templates/get-template.use-case.ts', HTTP);
const deleteTemplate = entriesOn(`${P}: delete template`, 'core/use-cases/templates/delete-template.use-case.ts', HTTP);
const jobQueries = entriesOn(`${P}: job queries`, 'core/use-cases/generation/job-queries.service.ts', HTTP);
const singleUseHttp = entriesOn(`${P}: single-use states`, 'core/use-cases/single-use-states.service.ts', HTTP);

const ROUTE_FAIL = 'if (!result.ok) return sendFail(res, result);';
const singleUse = entriesOn(`${P}: single-use states`, 'core/use-cases/single-use-states.service.ts', UNIT);
const memoryStore = entriesOn(`${P}: memory store`, 'adapters/memory/memory-store.ts', UNIT);
const eventLog = entriesOn(`${P}: memory event log`, 'adapters/memory/memory-user-event-store.ts', UNIT);
const plainReader = entriesOn(`${P}: plain reader`, 'adapters/sequelize/plain-reader.ts', UNIT);
const tracedEngine = entriesOn(`${P}: traced engine`, 'adapters/opentelemetry/traced-workflow-engine.ts', UNIT);
const webApp = entriesOn(`${P}: web app`, 'adapters/http/web-app.ts', UNIT);
const healthPort = entriesOn(`${P}: health port`, 'adapters/http/health-probe-server.ts', UNIT);
const FLEET_UNIT = 'tests/unit/template-fleet.test.ts';
const recheck = entriesOn(`${P}: template re-check`, 'core/use-cases/templates/recheck-templates.use-case.ts', [...UNIT, FLEET_UNIT]);
const templatesModule = entriesOn(`${P}: templates module`, 'bootstrap/modules/templates.module.ts', HTTP);
const socialModule = entriesOn(`${P}: social module`, 'bootstrap/modules/social.module.ts', HTTP);

export const MUTATIONS: Mutation[] = [
  // adapters/http/routes/social.routes.ts
  social('an unknown platform is "connected" (no 404)', `${ROUTE_FAIL}\n      res.cookie(CONNECT_STATE_COOKIE`, 'res.cookie(CONNECT_STATE_COOKIE'),
  social('the callback leaves the state cookie in the browser', '      res.clearCookie(CONNECT_STATE_COOKIE, stateCookie(deps.cookies));\n', ''),
  social('the callback page may be cached', "      res.setHeader('Cache-Control', 'no-store');\n      const platform =", '      const platform ='),
  social('a refused connection is sent to the success page', '      if (result.failure) {', '      if (false as boolean) {'),
  social('disconnecting an unknown platform answers 204', `${ROUTE_FAIL}\n      res.status(204).end();`, 'res.status(204).end();'),
  social('publishing an unknown output answers 202', `${ROUTE_FAIL}\n      res.status(202)`, 'res.status(202)'),
  social('the publications of an unknown output answer 200', `${ROUTE_FAIL}\n      res.json(result.value);`, 'res.json(result.value);'),

  // adapters/http/routes/api-keys.routes.ts
  apiKeys('a refused key creation answers 201', `${ROUTE_FAIL}\n      res.setHeader('Cache-Control', 'no-store');`, "res.setHeader('Cache-Control', 'no-store');"),
  apiKeys('revoking an unknown key answers 204', `${ROUTE_FAIL}\n      res.status(204).end();`, 'res.status(204).end();'),

  // adapters/http/routes/test-run.routes.ts
  testRuns('a refused test run answers 202', '      if (!result.ok) {\n        if (\'retryAfterSeconds\'', "      if (false as boolean) {\n        if ('retryAfterSeconds'"),
  testRuns('429 without Retry-After', "if ('retryAfterSeconds' in result && result.retryAfterSeconds) res.setHeader('Retry-After', String(result.retryAfterSeconds));", ''),
  testRuns('the test runs of an unknown template answer 200', `${ROUTE_FAIL}\n      res.json(result.value);`, 'res.json(result.value);'),

  // core/use-cases/templates/get-template.use-case.ts
  getTemplate('an unknown template is found (nothing)', '    if (!template) return templateNotFound();\n', ''),

  // core/use-cases/templates/delete-template.use-case.ts
  deleteTemplate('deleting an unknown or deleted template answers 204', 'return deleted ? ok(undefined) : templateNotFound();', 'return ok(undefined);'),

  // core/use-cases/generation/job-queries.service.ts
  jobQueries('a job id in capitals is not found', 'find(input.jobId.toLowerCase(), input.userId)', 'find(input.jobId, input.userId)'),
  jobQueries('a bad page is listed anyway', '    if (!request.ok) return request;\n', ''),

  // core/use-cases/single-use-states.service.ts
  singleUseHttp('an unknown state is read as a record (the callback crashes)', '    if (stored === null) return null;\n', ''),

  // core/use-cases/single-use-states.service.ts
  singleUse('a record stored under another state is handed out', 'return record.state === state && this.options.isComplete(record)', 'return this.options.isComplete(record)'),
  singleUse('an incomplete record is handed out', 'record.state === state && this.options.isComplete(record) ?', 'record.state === state ?'),

  // adapters/memory/memory-store.ts
  memoryStore('a nested transaction waits for itself (deadlock)', '    if (this.inTransaction) throw new MemoryNestedTransactionError();\n', ''),
  memoryStore("a rollback undoes the queue's table too", '    if (options.transactional === false) this.outsideTransactions.add(name);\n', ''),
  memoryStore('a rollback empties the tables outside transactions', '      if (this.outsideTransactions.has(name)) continue;\n', ''),
  memoryStore("after-commit work runs in the finished transaction's context (its own transaction refused)", 'return inside.exit(work);', 'return work();'),

  // adapters/memory/memory-user-event-store.ts
  eventLog('append returns the stored event itself', 'stored.push(copy(one));', 'stored.push(one);'),
  eventLog('listSince returns the stored events themselves', 'events.slice(start, start + Math.max(0, max)).map(copy)', 'events.slice(start, start + Math.max(0, max))'),
  eventLog('an event at the purge time is purged', 'stored.createdAt.getTime() >= before.getTime()', 'stored.createdAt.getTime() > before.getTime()'),

  // adapters/sequelize/plain-reader.ts
  plainReader('the SQLite reader may write', 'new sqlite3.Database(storagePath, sqlite3.OPEN_READONLY)', 'new sqlite3.Database(storagePath, sqlite3.OPEN_READWRITE)'),
  plainReader('the SQLite reader closes with its statements unfinalized (close fails)', '    await this.statements.finalize();\n', ''),
  plainReader('the MariaDB reader reads DATETIMEs in the process time zone', "      timezone: '+00:00',\n", ''),

  // adapters/opentelemetry/traced-workflow-engine.ts
  tracedEngine('an engine without a slot wait gets one (that throws) when traced', 'if (inner.reserve) this.reserve =', 'this.reserve ='),
  tracedEngine('release on an engine without one throws', 'return this.inner.release ? this.inner.release(runId) : Promise.resolve();', 'return this.inner.release!(runId);'),
  tracedEngine('release is not passed on', 'return this.inner.release ? this.inner.release(runId) : Promise.resolve();', 'return Promise.resolve();'),

  // adapters/http/web-app.ts
  webApp('a POST to a client route gets the page', "    if (req.method !== 'GET' && req.method !== 'HEAD') return next();\n", ''),
  webApp('HSTS sent over plain HTTP', 'strictTransportSecurity: options.secure, ', ''),

  // adapters/http/health-probe-server.ts
  healthPort('live answers any method', "if (req.method === 'GET' && path === PROBE_PATHS.live)", 'if (path === PROBE_PATHS.live)'),

  // core/use-cases/templates/recheck-templates.use-case.ts
  recheck('templates every server can run are reported too', '      if (problems.length === 0) continue;\n', ''),
  recheck('a template some servers can still run is logged as runnable on none', "runnable ? 'template cannot run on some engine servers' : 'template cannot run on any engine server'", "'template cannot run on any engine server'"),

  // core/use-cases/templates/get-template.use-case.ts
  entriesOn(`${P}: get template`, 'core/use-cases/templates/get-template.use-case.ts', [FLEET_UNIT])(
    'a template is shown without the problems of the servers that cannot run it',
    'return ok(this.deps.nodes ? withProblems(await this.deps.nodes.catalogues(), template) : template);',
    'return ok(template);',
  ),

  // bootstrap/modules/templates.module.ts
  templatesModule('ready templates are installed with SEED_TEMPLATES=false', '      if (!config.seedTemplates) return;\n', ''),
  templatesModule('the fleet watch subscribes to a catalogue that cannot announce changes (start fails)', 'if (!catalog?.onCatalogueChange) return;', 'if (!catalog) return;'),

  // bootstrap/modules/social.module.ts
  socialModule('without TOKEN_ENCRYPTION_KEY the key is parsed anyway (start fails)', '  if (!config.social.tokenEncryptionKey) return NO_CIPHER;\n', ''),

  // adapters/opentelemetry/traced-unit-of-work.ts
  entriesOn(`${P}: traced unit of work`, 'adapters/opentelemetry/traced-unit-of-work.ts', UNIT)(
    "a message that carries its own trace is stamped with the caller's",
    'const trace = entry.message.trace ?? carrierOf(caller);',
    'const trace = carrierOf(caller) ?? entry.message.trace;',
  ),

  social('with SECURE_COOKIES the state cookie is neither Secure nor SameSite=None', "  ...(policy.secure ? { secure: true, sameSite: 'none' } : { secure: false, sameSite: 'lax' }),", "  secure: false,\n  sameSite: 'lax',"),
  social('the state cookie lives as long as the browser session', ', maxAge: PENDING_CONNECTION_SECONDS * 1000 });', ' });'),
  entriesOn(`${P}: web app`, 'adapters/http/web-app.ts', ['tests/integration/web-app.test.ts'])('signed images from PUBLIC_URL are blocked by the CSP', "  directives['img-src'] = [...WEB_APP_CSP['img-src']!, ...extra];\n", ''),
  entriesOn(`${P}: web app`, 'adapters/http/web-app.ts', ['tests/integration/web-app.test.ts'])('signed videos from PUBLIC_URL are blocked by the CSP', "  directives['media-src'] = [...WEB_APP_CSP['media-src']!, ...extra];\n", ''),

  entriesOn(`${P}: traced unit of work`, 'adapters/opentelemetry/traced-unit-of-work.ts', UNIT)(
    "the transaction's outbox is not the stamping one",
    "      if (property === 'outbox') return outbox;\n",
    '',
  ),
  entriesOn(`${P}: metrics module`, 'bootstrap/modules/metrics.module.ts', HTTP)(
    'an api-only process reads (and starts) the engine for its metrics',
    "...(config.roles.includes('worker') ? { engine:",
    '...(true ? { engine:',
  ),

  tracedEngine("a failed run's span is not an error", '      if (!result.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: result.error.code });\n', ''),
  tracedEngine('a transient failure is traced as a plain failure', "result.transient ? 'failed_transient' : 'failed'", "'failed'"),
  tracedEngine('a slot wait that got none is traced as given', "span.setAttribute('engine.slot', slot ? 'given' : 'none');", "span.setAttribute('engine.slot', 'given');"),

  social('the state cookie is cleared on another path (the browser keeps it)', 'res.clearCookie(CONNECT_STATE_COOKIE, stateCookie(deps.cookies));', 'res.clearCookie(CONNECT_STATE_COOKIE);'),
];
