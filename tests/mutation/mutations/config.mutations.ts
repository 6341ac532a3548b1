import { entriesOn, type Mutation } from '../mutation.ts';

/**
 * Guards of the configuration sections (defaults, bounds, refusals, driver choice), the scheduler, the API keys
 * module's api-only checks, the server span of each request, the JSON logger, the HTTP error table and the coin,
 * features, diagnostics and outputs routes.
 */
const AUDIT = 'tests/unit/config-audit.test.ts';
const CONFIG = 'tests/unit/config.test.ts';
const BUS = 'tests/unit/event-bus-config.test.ts';
const TELEMETRY = 'tests/unit/telemetry-config.test.ts';
const RUNTIME = 'tests/unit/config-audit-runtime.test.ts';
const TRACING = 'tests/unit/config-audit-tracing.test.ts';
const SCHEDULER = 'tests/unit/scheduler.test.ts';
const WIRING = 'tests/unit/feature-wiring.test.ts';
const ROUTES = 'tests/integration/config-audit.test.ts';

const generation = entriesOn('config: generation', 'bootstrap/config/generation.ts', [AUDIT]);
const queue = entriesOn('config: queue', 'bootstrap/config/queue.ts', [AUDIT, CONFIG]);
const database = entriesOn('config: database', 'bootstrap/config/database.ts', [AUDIT, CONFIG]);
const cacheAndBus = entriesOn('config: cache and bus', 'bootstrap/config/cache-and-bus.ts', [AUDIT, BUS]);
const social = entriesOn('config: social', 'bootstrap/config/social.ts', [AUDIT]);
const auth = entriesOn('config: auth', 'bootstrap/config/auth.ts', [AUDIT, CONFIG]);
const telemetry = entriesOn('config: telemetry', 'bootstrap/config/telemetry.ts', [AUDIT, TELEMETRY]);
const scheduler = entriesOn('config: scheduler', 'bootstrap/scheduler.ts', [RUNTIME, SCHEDULER]);
const tracing = entriesOn('config: server span', 'adapters/opentelemetry/traced-http-server.ts', [TRACING]);
const logger = entriesOn('config: json logger', 'adapters/logging/json-logger.ts', [RUNTIME]);
const errors = entriesOn('config: error table', 'adapters/http/error-table.ts', [RUNTIME]);
const features = (tests: string[]) => entriesOn('config: features', 'adapters/http/routes/features.routes.ts', tests);
const diagnostics = (tests: string[]) => entriesOn('config: diagnostics routes', 'adapters/http/routes/diagnostics.routes.ts', tests);
const outputs = entriesOn('config: outputs routes', 'adapters/http/routes/outputs.routes.ts', [ROUTES]);
const coins = entriesOn('config: coin validation', 'adapters/http/routes/coin-validation.ts', [ROUTES]);
const apiKeys = (tests: string[]) => entriesOn('config: api keys module', 'bootstrap/modules/api-keys.module.ts', tests);

const DEDUCT = 'core/use-cases/coins/deduct-coins.use-case.ts';

export const MUTATIONS: Mutation[] = [
  // bootstrap/config/generation.ts
  generation('a negative RAW_WORKFLOW_COST is accepted (a raw workflow pays its caller)', "read.int('RAW_WORKFLOW_COST', 5, 0, 1_000_000)", "read.int('RAW_WORKFLOW_COST', 5, -1_000_000, 1_000_000)"),
  generation('raw workflows are free by default', "read.int('RAW_WORKFLOW_COST', 5,", "read.int('RAW_WORKFLOW_COST', 0,"),
  generation('STALLED_JOB_MINUTES is read as seconds (a running job is failed after 30 s)', "read.int('STALLED_JOB_MINUTES', 30, 1, 7 * 24 * 60) * 60,", "read.int('STALLED_JOB_MINUTES', 30, 1, 7 * 24 * 60),"),
  generation('STALLED_JOB_MINUTES=0 is accepted (every running job is stalled at once)', "read.int('STALLED_JOB_MINUTES', 30, 1,", "read.int('STALLED_JOB_MINUTES', 30, 0,"),
  generation('ORPHANED_OUTPUT_MINUTES is read as seconds', "read.int('ORPHANED_OUTPUT_MINUTES', 60, 1, 7 * 24 * 60) * 60,", "read.int('ORPHANED_OUTPUT_MINUTES', 60, 1, 7 * 24 * 60),"),
  generation('ORPHANED_OUTPUT_MINUTES=0 is accepted (files an attempt is still writing are deleted)', "read.int('ORPHANED_OUTPUT_MINUTES', 60, 1,", "read.int('ORPHANED_OUTPUT_MINUTES', 60, 0,"),
  generation('no ALLOWED_NODE_TYPES allows no node type at all', 'allowedNodeTypes.length > 0 ? allowedNodeTypes : null', 'allowedNodeTypes'),
  generation('UNCLAIMED_DEDUCTION_MINUTES defaults to a day, not the documented 15', "read.int('UNCLAIMED_DEDUCTION_MINUTES', 15,", "read.int('UNCLAIMED_DEDUCTION_MINUTES', 1440,"),
  generation('UNCLAIMED_DEDUCTION_MINUTES=0 is accepted (a deduction is refunded before its job can claim it)', "read.int('UNCLAIMED_DEDUCTION_MINUTES', 15, 1,", "read.int('UNCLAIMED_DEDUCTION_MINUTES', 15, 0,"),
  generation('MAX_ATTEMPTS defaults to one attempt, not the documented 3', "read.int('MAX_ATTEMPTS', 3,", "read.int('MAX_ATTEMPTS', 1,"),
  generation('MAX_ATTEMPTS=0 is accepted (a job never runs)', "read.int('MAX_ATTEMPTS', 3, 1, 100)", "read.int('MAX_ATTEMPTS', 3, 0, 100)"),
  generation('WORKER_CONCURRENCY has no upper bound', "defaults.workerConcurrency, 1, 64)", 'defaults.workerConcurrency, 1, 1_000_000)'),
  generation('QUEUE_VISIBILITY_SECONDS of 0 or 1 is accepted (a running job is handed out again at once)', "read.int('QUEUE_VISIBILITY_SECONDS', 30, 2,", "read.int('QUEUE_VISIBILITY_SECONDS', 30, 0,"),
  generation('QUEUE_VISIBILITY_SECONDS defaults to 5', "read.int('QUEUE_VISIBILITY_SECONDS', 30,", "read.int('QUEUE_VISIBILITY_SECONDS', 5,"),
  generation('MAX_UPLOAD_MB is read as kilobytes', "read.int('MAX_UPLOAD_MB', 20, 1, 1024) * 1024 * 1024,", "read.int('MAX_UPLOAD_MB', 20, 1, 1024) * 1024,"),
  generation('MAX_UPLOAD_MB has no upper bound', "read.int('MAX_UPLOAD_MB', 20, 1, 1024)", "read.int('MAX_UPLOAD_MB', 20, 1, 1_048_576)"),
  generation('MAX_OUTPUT_MB_PER_JOB is read as bytes', '1, 1_048_576) * 1048576,', '1, 1_048_576),'),
  generation('MAX_IMAGE_PIXELS=0 is accepted (every image refused)', "LIMITS.maxImagePixels, 1, 2 ** 31)", 'LIMITS.maxImagePixels, 0, 2 ** 31)'),
  generation('MAX_BATCH_SIZE has no upper bound', "LIMITS.maxBatchSize, 1, 4096)", 'LIMITS.maxBatchSize, 1, 1_000_000)'),
  generation('MAX_WORKFLOW_NODES defaults to 10x the documented 200', "LIMITS.maxWorkflowNodes, 1,", 'LIMITS.maxWorkflowNodes * 10, 1,'),
  generation('MAX_ACTIVE_JOBS_PER_USER defaults to 100000, not the documented 20', "read.int('MAX_ACTIVE_JOBS_PER_USER', 20,", "read.int('MAX_ACTIVE_JOBS_PER_USER', 100_000,"),
  generation('MAX_ACTIVE_JOBS_PER_USER=0 is accepted (no job can ever be submitted)', "read.int('MAX_ACTIVE_JOBS_PER_USER', 20, 1,", "read.int('MAX_ACTIVE_JOBS_PER_USER', 20, 0,"),
  generation('QUEUE_MAX_DEPTH defaults to a limit instead of none', "read.int('QUEUE_MAX_DEPTH', 0,", "read.int('QUEUE_MAX_DEPTH', 1000,"),
  generation('a view link lives a day by default, not 15 minutes', "read.duration('VIEW_URL_TTL', 15 * 60)", "read.duration('VIEW_URL_TTL', 24 * 3600)"),
  generation('a download link lives 15 minutes by default, not 5', "read.duration('DOWNLOAD_URL_TTL', 5 * 60)", "read.duration('DOWNLOAD_URL_TTL', 15 * 60)"),
  generation('OUTPUT_RETENTION_DAYS=0 is accepted (outputs deleted as soon as they are made)', "read.int('OUTPUT_RETENTION_DAYS', 30, 1,", "read.int('OUTPUT_RETENTION_DAYS', 30, 0,"),
  generation('outputs are kept a year by default, not 30 days', "read.int('OUTPUT_RETENTION_DAYS', 30,", "read.int('OUTPUT_RETENTION_DAYS', 365,"),
  generation('raw workflows are open to every user by default', "if (listed.length === 0) return ['admin'];", "if (listed.length === 0) return ['user', 'admin'];"),
  generation('ALLOW_RAW_WORKFLOWS=none is refused instead of closing raw workflows', "  if (listed.length === 1 && listed[0] === 'none') return [];\n", ''),
  generation('ALLOW_RAW_WORKFLOWS=all is refused', "  if (listed.length === 1 && listed[0] === 'all') return ['user', 'admin'];\n", ''),
  generation('an unknown role in ALLOW_RAW_WORKFLOWS is taken silently', 'if (bad.length > 0) {', 'if (false as boolean) {'),
  generation('ALLOW_RAW_WORKFLOWS is case-sensitive', ".map((role) => role.toLowerCase());", '.map((role) => role);'),
  generation('a role named twice in ALLOW_RAW_WORKFLOWS is kept twice', 'return [...new Set(listed)]', 'return [...listed]'),

  // bootstrap/config/queue.ts
  queue('AMQP_PREFIX defaults to another name (a deployment loses its exchanges and queues)', "read.string('AMQP_PREFIX', 'media-gen') };", "read.string('AMQP_PREFIX', 'media') };"),
  queue('any AMQP_PREFIX is accepted', "if (!/^[A-Za-z0-9_.-]{1,100}$/.test(queue.prefix))", 'if (false as boolean)'),
  queue('AMQP_PREFIX has no length limit', '{1,100}$/', '{1,1000}$/'),
  queue('AMQP_URL is not checked', "    if (queue.amqpUrl) read.url('AMQP_URL', queue.amqpUrl, ['amqp:', 'amqps:']);\n", ''),
  queue('a missing AMQP_URL is reported twice (required and not a URL)', "if (queue.amqpUrl) read.url('AMQP_URL'", "read.url('AMQP_URL'"),
  queue('AMQP_URL may be http:', "['amqp:', 'amqps:']", "['amqp:', 'amqps:', 'http:']"),
  queue('SQS_QUEUE_URL is optional', "queueUrl: read.required('SQS_QUEUE_URL', 'when QUEUE_DRIVER=sqs')", "queueUrl: read.string('SQS_QUEUE_URL', '')"),
  queue('AWS_REGION is optional for SQS', "region: read.required('AWS_REGION', 'when QUEUE_DRIVER=sqs')", "region: read.string('AWS_REGION', 'us-east-1')"),
  queue('SQS_ENDPOINT is dropped', "...(read.raw('SQS_ENDPOINT') ? { endpoint: read.raw('SQS_ENDPOINT')! } : {}),", ''),
  queue('SQS_DLQ_URL is dropped', "...(read.raw('SQS_DLQ_URL') ? { deadLetterQueueUrl: read.raw('SQS_DLQ_URL')! } : {}),", ''),
  queue('SQS_WAIT_SECONDS over 20 is accepted (SQS refuses it at every receive)', "read.int('SQS_WAIT_SECONDS', 10, 0, 20)", "read.int('SQS_WAIT_SECONDS', 10, 0, 60)"),
  queue('the SQS URLs are not checked', "      if (value) read.url(name, value, ['http:', 'https:']);\n", ''),
  queue('SQS_ENDPOINT and SQS_DLQ_URL are not checked', "for (const name of ['SQS_QUEUE_URL', 'SQS_ENDPOINT', 'SQS_DLQ_URL'])", "for (const name of ['SQS_QUEUE_URL'])"),

  // bootstrap/config/database.ts
  database('an in-memory SQLite database is accepted', "    if (target === ':memory:' || target === '') read.problems.push(", '    if (false as boolean) read.problems.push('),
  database('the // of the URL form is kept (sqlite://:memory: a file at the root)', "const target = rest.startsWith('//') ? rest.slice(2) : rest;", 'const target = rest;'),
  database('the // of the URL form is stripped before an absolute path only', "const target = rest.startsWith('//') ? rest.slice(2) : rest;", "const target = rest.replace(/^\\/\\/(?=\\/)/, '');"),
  database('sqlite: with no path is accepted', "=== ':memory:' || target === ''", "=== ':memory:'"),
  database('a mariadb:// URL is handed to Sequelize as is (it looks for the mariadb package)', ".replace(/^mariadb:/, 'mysql:')", ''),
  database('a mysql URL that is no URL is accepted', "    read.url('DATABASE_URL', database.url, ['mysql:']);\n", ''),
  database('an unknown DATABASE_URL scheme is taken as SQLite', "    read.problems.push('DATABASE_URL must start with sqlite: or mysql://');\n", ''),
  database('DATABASE_URL defaults outside DATA_DIR', "`sqlite:${path.join(ctx.dataDir, 'app.db')}`", "'sqlite:app.db'"),

  // bootstrap/config/cache-and-bus.ts
  cacheAndBus('CACHE_DRIVER=redis without REDIS_URL is accepted', "url: read.required('REDIS_URL', 'when CACHE_DRIVER=redis')", "url: read.string('REDIS_URL', '')"),
  cacheAndBus('the bus stays in memory when the cache is on Redis (events never leave the process)', "const defaultBus = cacheDriver === 'redis' ? 'redis' :", "const defaultBus = cacheDriver === 'memory' ? 'redis' :"),
  cacheAndBus('the bus stays in memory with the RabbitMQ queue', "queue.driver === 'rabbitmq' ? 'rabbitmq' : 'memory';", "queue.driver === 'rabbitmq' ? 'memory' : 'memory';"),
  cacheAndBus('EVENT_BUS_DRIVER=rabbitmq without AMQP_URL is accepted', "url: read.required('AMQP_URL', 'when EVENT_BUS_DRIVER=rabbitmq')", "url: read.string('AMQP_URL', '')"),
  cacheAndBus('the rabbitmq bus on its own broker ignores AMQP_PREFIX', "prefix: read.string('AMQP_PREFIX', 'media-gen') }", "prefix: 'media-gen' }"),
  cacheAndBus('EVENT_BUS_DRIVER=redis is ignored', "    eventBus = { driver: 'redis', url };\n", ''),
  cacheAndBus('a missing REDIS_URL is reported twice', "cacheDriver === 'redis' ? read.raw('REDIS_URL') ?? '' : read.required(", 'false ? read.raw(\'REDIS_URL\') ?? \'\' : read.required('),
  cacheAndBus('EVENT_BUS_DRIVER=redis without REDIS_URL is accepted', "read.required('REDIS_URL', 'when EVENT_BUS_DRIVER=redis')", "read.string('REDIS_URL', '')"),

  // bootstrap/config/auth.ts
  auth('a JWT_SECRET of 16 characters is accepted', '    if (given.length < MIN_JWT_SECRET) read.problems.push(', '    if (given.length < 16) read.problems.push('),
  auth('a JWT_SECRET of 31 characters is accepted', 'const MIN_JWT_SECRET = 32;', 'const MIN_JWT_SECRET = 31;'),
  auth('JWT_SECRET is optional in development (a secret generated per process)', "  if (ctx.appEnv !== 'local') {", "  if (ctx.appEnv === 'production') {"),
  auth('cookies are not secure by default in production', "read.bool('SECURE_COOKIES', ctx.appEnv === 'production')", "read.bool('SECURE_COOKIES', false)"),
  auth('ADMIN_EMAILS is case-sensitive', ".map((email) => email.toLowerCase())", '.map((email) => email)'),
  auth('an access token lives a day by default', "read.duration('ACCESS_TOKEN_TTL', 15 * 60)", "read.duration('ACCESS_TOKEN_TTL', 86400)"),
  auth('a refresh token lives a year by default', "read.duration('REFRESH_TOKEN_TTL', 7 * 86400)", "read.duration('REFRESH_TOKEN_TTL', 365 * 86400)"),
  auth('LOGIN_MAX_FAILURES defaults to 1000', "read.int('LOGIN_MAX_FAILURES', 10,", "read.int('LOGIN_MAX_FAILURES', 1000,"),
  auth('LOGIN_MAX_FAILURES=0 is accepted (nobody can ever log in)', "read.int('LOGIN_MAX_FAILURES', 10, 1,", "read.int('LOGIN_MAX_FAILURES', 10, 0,"),
  auth('LOGIN_MAX_FAILURES_PER_ACCOUNT defaults to 100000', "read.int('LOGIN_MAX_FAILURES_PER_ACCOUNT', 100,", "read.int('LOGIN_MAX_FAILURES_PER_ACCOUNT', 100_000,"),
  auth('LOGIN_MAX_FAILURES_PER_ADDRESS defaults to 100000', "read.int('LOGIN_MAX_FAILURES_PER_ADDRESS', 20,", "read.int('LOGIN_MAX_FAILURES_PER_ADDRESS', 100_000,"),
  auth('the login window is a minute by default', "read.duration('LOGIN_WINDOW', 15 * 60)", "read.duration('LOGIN_WINDOW', 60)"),
  auth('REGISTER_MAX_PER_ADDRESS defaults to 100', "read.int('REGISTER_MAX_PER_ADDRESS', 5,", "read.int('REGISTER_MAX_PER_ADDRESS', 100,"),
  auth('the registration window is a minute by default', "read.duration('REGISTER_WINDOW', 60 * 60)", "read.duration('REGISTER_WINDOW', 60)"),
  auth('API_KEY_RATE_LIMIT_PER_MINUTE defaults to a million', "read.int('API_KEY_RATE_LIMIT_PER_MINUTE', 600,", "read.int('API_KEY_RATE_LIMIT_PER_MINUTE', 1_000_000,"),
  auth('the kept local secret is read with its line end', "{ secret: readFileSync(file, 'utf8').trim(), file }", "{ secret: readFileSync(file, 'utf8'), file }"),
  auth('the kept local secret is replaced at every start (every session ends at a restart)', "  if (existsSync(file)) return { secret: readFileSync(file, 'utf8').trim(), file };\n", ''),
  auth('the kept local secret is readable by every local user', 'mode: 0o600', 'mode: 0o644'),
  auth('an empty or short kept local secret signs tokens (anyone can forge them)', '  if (kept.secret.length < MIN_JWT_SECRET) read.problems.push(`the JWT secret kept in', '  if (false as boolean) read.problems.push(`the JWT secret kept in'),
  social('an empty kept token key is taken (no problem at start)', '      tokenEncryptionKey = checked(kept.secret,', '      tokenEncryptionKey = kept.secret || checked(kept.secret,'),
  social('a kept token key is not checked at all', '      tokenEncryptionKey = checked(kept.secret,', '      tokenEncryptionKey = kept.secret; void (kept.secret,'),
  auth('a secret that is not to be kept is written to DATA_DIR anyway', '  if (!persist) return { secret: make(), file };\n', ''),

  // bootstrap/config/telemetry.ts
  telemetry('OTEL_EXPORTER_OTLP_ENDPOINT with a trailing slash gets //v1/traces', ".replace(/\\/$/, '')", ''),
  telemetry('traces start without an endpoint', "  if (!url) return { traces: null };\n", "  if (!url) return { traces: { url, serviceName } };\n"),
  telemetry('the endpoint is not checked', "  read.url(tracesEndpoint ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT', tracesEndpoint || endpoint, ['http:', 'https:']);\n", ''),
  telemetry('a bad traces endpoint is reported under the other variable', "tracesEndpoint ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT'", "'OTEL_EXPORTER_OTLP_ENDPOINT'"),
  telemetry('an api,worker process reports as the worker', "roles.includes('worker') && !roles.includes('api')", "roles.includes('worker')"),
  telemetry('the traces endpoint does not win over the base one', 'const url = tracesEndpoint || (endpoint ?', 'const url = (endpoint ? '),

  // bootstrap/scheduler.ts
  scheduler('a task is added after start (it never runs)', '    if (this.started) throw new Error(`scheduler: ${task.name} added after start`);\n', ''),
  scheduler("a task runs in a process without its role", '      if (!task.roles.some((role) => this.processRoles.includes(role))) continue;\n', ''),
  scheduler('a task of several roles runs only where the process has all of them', 'task.roles.some((role) =>', 'task.roles.every((role) =>'),
  scheduler('the first run waits a whole interval', '      setImmediate(() => void this.tick(task));\n', ''),
  entriesOn('config: scheduler', 'bootstrap/scheduler.ts', [RUNTIME])('stop() does not wait for the runs in flight', '    await Promise.all(this.running.values());\n', ''),
  scheduler('a task runs twice at once', '    if (inFlight) return inFlight;\n', ''),
  scheduler('a stopped scheduler still runs its tasks', '    if (!this.started) return Promise.resolve();\n', ''),
  scheduler('a failed run is not logged', ".catch((error: unknown) => this.logger.error(`${task.name} failed`, { error: String(error) }))", '.catch(() => undefined)'),
  scheduler('a task runs once and never again', '      .finally(() => this.running.delete(task.name));', '      ;'),
  scheduler('runNow does not wait for the run in flight (it returns that run instead of a fresh one)', '    await this.running.get(name);\n', ''),
  scheduler('runNow of an unknown task does nothing', '    if (!task) throw new Error(`scheduler: no task named ${name}`);\n    await', '    if (!task) return;\n    await'),

  // bootstrap/modules/api-keys.module.ts
  apiKeys([WIRING])('a worker builds the API key checks (and opens the cache)', 'const [checks = null] = forApi(config, () => {', 'const [checks = null] = forApi({ ...config, roles: [...config.roles, \'api\'] } as typeof config, () => {'),
  apiKeys([ROUTES])('API_KEY_RATE_LIMIT_PER_MINUTE is ignored', 'requestsPerMinute: config.auth.apiKeyRateLimitPerMinute', 'requestsPerMinute: 600'),

  // adapters/opentelemetry/traced-http-server.ts
  tracing('the span keeps the bare method as its name', '        span.updateName(`${method} ${pattern}`);\n', ''),
  tracing('the span carries no http.route', "        span.setAttribute('http.route', pattern);\n", ''),
  tracing('an unrouted request is named after its concrete path', "const pattern = typeof routed.route?.path === 'string' ? `${routed.baseUrl ?? ''}${routed.route.path}` : null;", "const pattern = typeof routed.route?.path === 'string' ? `${routed.baseUrl ?? ''}${routed.route.path}` : req.url ?? null;"),
  tracing('the route leaves out its mount path', "`${routed.baseUrl ?? ''}${routed.route.path}`", '`${routed.route.path}`'),
  tracing('a 4xx marks the span as an error', 'if (res.statusCode >= 500) span.setStatus', 'if (res.statusCode >= 400) span.setStatus'),
  tracing('a 5xx is not an error', '      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });\n', ''),
  tracing('the span carries no status code', "      span.setAttribute('http.response.status_code', res.statusCode);\n", ''),
  tracing('an abandoned request never ends its span', '      if (!res.writableFinished) span.end();\n', ''),
  tracing('an incoming traceparent is ignored', 'const parent = propagation.extract(ROOT_CONTEXT, req.headers);', 'const parent = ROOT_CONTEXT;'),

  // adapters/logging/json-logger.ts
  logger('every level is written', '    if (LEVELS[level] < LEVELS[this.level]) return;\n', ''),
  logger('the level itself is dropped', 'if (LEVELS[level] < LEVELS[this.level]) return;', 'if (LEVELS[level] <= LEVELS[this.level]) return;'),
  logger('fields are written unscrubbed', '...(fields ? scrub(fields) : {})', '...(fields ?? {})'),
  logger("a child's fields are written unscrubbed", '{ ...this.base, ...scrub(fields) }', '{ ...this.base, ...fields }'),
  logger('a key is matched case-sensitively (Authorization, apiKey written)', '|api[-_]?key/i;', '|api[-_]?key/;'),
  logger('a cookie is written', '|cookie|', '|'),
  logger('an API key is written', '|api[-_]?key/i', '/i'),
  logger('a "pass" field is written', 'pass(word)?|', 'password|'),
  logger('a token is written', '|token|', '|'),
  logger('a secret is written', '|secret|', '|'),
  logger('an Error is written as {}', '    else if (value instanceof Error) clean[key] = { name: value.name, message: value.message, stack: value.stack };\n', ''),
  logger('warnings go to stdout', 'LEVELS[level] >= LEVELS.warn ?', 'LEVELS[level] >= LEVELS.error ?'),

  // adapters/http/error-table.ts
  errors('an unknown code is answered 200', '] ?? 500;', '] ?? 200;'),
  errors('not enough coins is a 400', "'COIN.INSUFFICIENT': 402,", "'COIN.INSUFFICIENT': 400,"),
  errors('a forbidden request is a 401 (the client logs in again and again)', "'AUTH.FORBIDDEN': 403,", "'AUTH.FORBIDDEN': 401,"),
  errors('a full queue is a 503', "'QUEUE.FULL': 429,", "'QUEUE.FULL': 503,"),
  errors('too many active jobs is a 409', "'JOB.TOO_MANY_ACTIVE': 429,", "'JOB.TOO_MANY_ACTIVE': 409,"),
  errors('an unknown id is a 400', '  NOT_FOUND: 404,', '  NOT_FOUND: 400,'),
  errors('a taken email is a 400', "'USER.EMAIL_TAKEN': 409,", "'USER.EMAIL_TAKEN': 400,"),
  errors('an upstream timeout is a 502', "'UPSTREAM.TIMEOUT': 504,", "'UPSTREAM.TIMEOUT': 502,"),
  errors('an unconfigured integration is a 500', "'INTEGRATION.NOT_CONFIGURED': 503,", "'INTEGRATION.NOT_CONFIGURED': 500,"),
  errors('a missing asset is a 404', "'ASSET.MISSING': 400,", "'ASSET.MISSING': 404,"),
  errors('too large is a 400', "'PAYLOAD.TOO_LARGE': 413,", "'PAYLOAD.TOO_LARGE': 400,"),
  errors('a rate-limited login is a 401', "'AUTH.RATE_LIMITED': 429,", "'AUTH.RATE_LIMITED': 401,"),
  errors('a 402 is called Error', "  402: 'Payment Required',\n", ''),
  errors('an empty details list is sent', '...(details && details.length > 0 ? { details } : {})', '...(details ? { details } : {})'),

  // adapters/http/routes/features.routes.ts
  features([RUNTIME])('a later contribution without chat turns chat off', 'merged.chat ||= part.chat ?? false;', 'merged.chat = part.chat ?? false;'),
  features([RUNTIME])("a contribution's providers replace the earlier ones", 'merged.oidcProviders.push(...(part.oidcProviders ?? []));', 'if (part.oidcProviders) merged.oidcProviders = [...part.oidcProviders];'),
  features([ROUTES])('the features need a session (the sign-in page cannot list its providers)', "        tag: 'health',\n        auth: 'public',", "        tag: 'health',\n        auth: 'access',"),

  // adapters/http/routes/diagnostics.routes.ts
  diagnostics([ROUTES])('a non-admin peeks at the queue', "      tag: 'diagnostics',\n      auth: 'admin',\n      query:", "      tag: 'diagnostics',\n      auth: 'access',\n      query:"),
  diagnostics([ROUTES])('a non-admin puts messages on the queue', "      auth: 'admin',\n      body:", "      auth: 'access',\n      body:"),
  diagnostics([ROUTES])('a non-admin runs the storage and cache round trips', "        tag: 'diagnostics',\n        auth: 'admin',", "        tag: 'diagnostics',\n        auth: 'access',"),
  diagnostics([ROUTES])('a refused test message (a worker task type) is answered 202', '      if (!result.ok) return sendFail(res, result);\n      res.status(202)', '      res.status(202)'),
  diagnostics([ROUTES])('a failed round trip is not answered 502', "          sendError(res, 502, `The ${what} round trip failed`);", "          sendError(res, 500, String(error));"),

  // adapters/http/routes/outputs.routes.ts
  outputs('the outputs list answers a stranger', "tag: 'outputs', auth: 'access', query: pageQuery,", "tag: 'outputs', auth: 'public', query: pageQuery,"),
  outputs("a link to another user's output is answered 200", "        if (!result.ok) return sendFail(res, result);\n        res.setHeader('Cache-Control', 'no-store');", "        res.setHeader('Cache-Control', 'no-store');"),
  outputs('a signed link may be cached', "        res.setHeader('Cache-Control', 'no-store');\n", ''),
  outputs('a view link is sent under downloadUrl', "const field = kind === 'view' ? 'viewUrl' : 'downloadUrl';", "const field = 'downloadUrl' as 'viewUrl' | 'downloadUrl';"),
  outputs("deleting another user's output is answered 204", '      if (!result.ok) return sendFail(res, result);\n      res.status(204).end();', '      res.status(204).end();'),
  outputs('the links answer a stranger', "        tag: 'outputs',\n        auth: 'access',", "        tag: 'outputs',\n        auth: 'public',"),
  outputs('a page out of range is a 500', '      if (!result.ok) return sendFail(res, result);\n      res.json(result.value);', '      res.json(result.value);'),

  // adapters/http/routes/coin-validation.ts (the core checks the same; each guard is gone only when both are)
  coins('a missing amount or reason is reported as out of range, not as required', "      if (value === undefined) throw new Error('is required');\n", ''),
  coins('a user deducts with an admin reason', 'export const userReasonRule = required(oneOf(USER_DEDUCTION_REASONS), USER_REASON_PROBLEM);', 'export const userReasonRule = required(oneOf(COIN_REASONS), USER_REASON_PROBLEM);', [
    { file: DEDUCT, find: 'else if (!USER_DEDUCTION_REASONS.includes(input.reason as CoinReason))', replace: 'else if (false as boolean)' },
  ]),
  coins('a relatedEntityId over 128 characters is taken', 'isLength: { options: { min: 1, max: 128 }', 'isLength: { options: { min: 1, max: 100_000 }', [
    { file: DEDUCT, find: '|| related.length > RELATED_ENTITY_ID_MAX)', replace: ')' },
  ]),
];
