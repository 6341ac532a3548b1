import { entriesOn, type Mutation } from '../mutation.ts';

/**
 * Guards of the plumbing under the use cases: the database queue of the embedded default, the RabbitMQ connection
 * holder, the HTTP app's middleware, the API router (its chain, validation report, handler drain and what it documents),
 * the outbox relay loop, traced fetch and the Prometheus metrics.
 */
const amqpLink = entriesOn('plumbing', 'adapters/rabbitmq/amqp-link.ts', ['tests/integration/amqp-link.test.ts']);
const httpApp = entriesOn('plumbing', 'adapters/http/http-app.ts', ['tests/integration/http-app-guards.test.ts']);
/** The request-wide middleware, pinned byte for byte (every header in order, the log line) by the middleware test. */
const httpLayers = entriesOn('plumbing', 'adapters/http/http-app.ts', ['tests/integration/request-middleware.test.ts']);
const apiRouter = entriesOn('plumbing', 'adapters/http/api-router.ts', ['tests/integration/http-app-guards.test.ts']);
/** What api-router.ts writes into the OpenAPI document for every route it registers. */
const GUARDS = 'tests/integration/http-app-guards.test.ts';
const routerDoc = entriesOn('plumbing', 'adapters/http/api-router.ts', ['tests/integration/openapi-truth.test.ts', 'tests/integration/openapi.test.ts']);
const relayLoop = entriesOn('plumbing', 'bootstrap/outbox-relay-loop.ts', ['tests/unit/outbox-relay-loop-guards.test.ts']);
const fetchSpans = entriesOn('plumbing', 'adapters/opentelemetry/traced-fetch.ts', ['tests/unit/traced-fetch.test.ts']);
const prom = entriesOn('plumbing', 'adapters/metrics/prom-metrics.ts', ['tests/unit/prom-metrics.test.ts']);
const dbQueue = entriesOn('plumbing', 'adapters/sequelize/sequelize-message-queue.ts', ['tests/integration/db-queue-guards.test.ts']);

export const MUTATIONS: Mutation[] = [
  // adapters/sequelize/sequelize-message-queue.ts
  dbQueue('database queue: an owner key longer than its column fails the publish (MariaDB)', 'const fairKey = message.fairnessKey?.slice(0, 64) ?? null;', 'const fairKey = message.fairnessKey ?? null;'),
  dbQueue("database queue: consume() inside a unit of work starts a consumer in that transaction", "if (isInsideTransaction()) throw new Error('consume() must not be called inside a unit of work');", ''),
  dbQueue(
    'database queue: peek with a negative size lists every waiting message',
    'limit: Math.max(0, max),\n      raw: true,\n    });\n    return asRows<QueueMessageRow>(rows).map(toPeeked);',
    'limit: max,\n      raw: true,\n    });\n    return asRows<QueueMessageRow>(rows).map(toPeeked);',
  ),
  dbQueue(
    'database queue: deadLetters with a negative size lists every dead letter',
    'limit: Math.max(0, max),\n      raw: true,\n    });\n    return asRows<QueueMessageRow>(rows).map((row) =>',
    'limit: max,\n      raw: true,\n    });\n    return asRows<QueueMessageRow>(rows).map((row) =>',
  ),
  dbQueue('database queue: the oldest waiting age reads negative when the publisher\'s clock is ahead', 'oldestWaitingSeconds: Math.max(0, now.getTime() - oldest) / 1000,', 'oldestWaitingSeconds: (now.getTime() - oldest) / 1000,'),
  dbQueue(
    'database queue: a message without an owner waits behind owners\' messages published earlier',
    'const fairSeq = fairKey === null ? 0 : (message.fairnessTurn ?? 1 + (await this.waitingOf(target, fairKey)));',
    'const fairSeq = message.fairnessTurn ?? 1 + (await this.waitingOf(target, fairKey as string));',
  ),
  dbQueue("database queue: the tombstone purge deletes old waiting messages and dead letters", "where: { status: 'done', updated_at: { [Op.lt]: before } }", 'where: { updated_at: { [Op.lt]: before } }'),
  dbQueue("database queue: the tombstone purge drops tombstones within their retention (a republished id runs again)", "where: { status: 'done', updated_at: { [Op.lt]: before } }", "where: { status: 'done' }"),
  dbQueue('database queue: the tombstone purge runs on every publish', 'if (now.getTime() - this.lastPurge < 60_000) return;', ''),
  dbQueue(
    'database queue: a failing tombstone purge is an unhandled rejection, with no warning',
    ".catch((error: unknown) => this.logger.warn('queue tombstone purge failed', { error: String(error) }));",
    ';',
  ),

  // adapters/rabbitmq/amqp-link.ts
  amqpLink('AMQP link: a second open() leaves a second connection behind and sets everything up twice', '    if (this.model) return;\n', ''),
  amqpLink('AMQP link: a listener registered on a live connection is not set up until a reconnection', 'if (this.current) void this.setUp(listener, this.current);', 'if (false as boolean) void this.setUp(listener, this.current);'),
  amqpLink(
    'AMQP link: a failing set-up listener fails the connection',
    "    } catch (error) {\n      this.options.logger.warn('AMQP setup failed', { error: String(error) });",
    '    } catch (error) {\n      throw error;',
  ),
  amqpLink('AMQP link: a closed link waits out the timeout for a connection that never comes', "if (this.closed) throw new Error('the AMQP link is closed');", ''),
  amqpLink('AMQP link: a caller waiting for a reconnection when the link closes gets no connection (null)', "    if (!this.current) throw new Error('the AMQP link is closed');\n    return this.current;", '    return this.current as ChannelModel;'),
  amqpLink('AMQP link: close() leaves callers waiting for a reconnection until their timeout', '    for (const waiter of this.waiters) waiter();\n    this.waiters = [];\n    const model = this.model;', '    const model = this.model;'),
  amqpLink(
    "AMQP link: a publish channel closed by the broker takes the whole connection down (its error event unhandled)",
    "          channel.on('error', () => undefined); // its close follows; the next publish opens another\n",
    '',
  ),
  amqpLink('AMQP link: every publish opens a confirm channel of its own', '    if (!this.publisher) {', '    if (true as boolean) {'),
  amqpLink(
    'AMQP link: a publish channel the broker closed is handed out again',
    "channel.on('close', () => {\n            if (this.publisher === created) this.publisher = null;",
    "channel.on('close', () => {\n            if (false as boolean) this.publisher = null;",
  ),

  // adapters/http/http-app.ts
  httpApp('HTTP app: an error after the answer started is answered again (a 500 on sent headers) and logged as unexpected', '    if (res.headersSent) {\n      // The answer was under way', '    if (false as boolean) {\n      // The answer was under way'),
  httpApp(
    'HTTP app: an error after the answer started leaves its client waiting for the rest, unlogged',
    "      options.logger.error('error after the response started', { requestId: req.requestId, error });\n      if (!res.writableEnded) res.destroy();\n",
    '',
  ),
  httpApp("HTTP app: what no API route served is labelled unmatched, 200s included", "return res.statusCode === 404 ? 'unmatched' : 'static';", "return 'unmatched';"),
  httpApp("HTTP app: the legacy prefix root names /api/v1/ as its successor", "req.path === '/' ? '' : req.path", 'req.path'),
  httpApp('HTTP app: a client error of the body parser (an unknown charset) is a logged 500', 'if (typed.status && typed.status >= 400 && typed.status < 500) {', 'if (false as boolean) {'),

  httpApp("HTTP app: Swagger UI's inline bootstrapping is blocked (its pages keep the API's script-src)", "{ 'script-src': [\"'self'\", \"'unsafe-inline'\"], 'img-src'", "{ 'img-src'"),
  httpApp('HTTP app: a JSON body of exactly 1 MiB is refused', "limit: options.bodyLimit ?? '1mb',", 'limit: options.bodyLimit ?? 1024 * 1024 - 1,'),
  httpApp('HTTP app: a JSON body one byte over 1 MiB is read', "limit: options.bodyLimit ?? '1mb',", 'limit: options.bodyLimit ?? 1024 * 1024 + 1,'),
  httpApp('HTTP app: bodies of any media type (text/plain, forms) are parsed as JSON', "type: ['application/json', 'application/*+json'] }", 'type: () => true }'),
  httpApp(
    "HTTP app: what no route serves gets Express's HTML 404",
    '  app.use((req: Request, res: Response) => {\n    res.status(404).json(',
    '  app.use((req: Request, res: Response, next: NextFunction) => {\n    if (next as unknown) return next();\n    res.status(404).json(',
  ),
  httpApp("HTTP app: an HttpError's headers (a 429's Retry-After) are dropped", '      for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);\n', ''),
  httpApp('HTTP app: an HttpError is answered as an unexpected 500', '    if (error instanceof HttpError) {', '    if (false as boolean) {'),
  httpApp('HTTP app: an error of status 400 raised by Express (an undecodable path parameter) is a logged 500', 'typed.status >= 400 && typed.status < 500) {', 'typed.status > 400 && typed.status < 500) {'),
  httpApp("HTTP app: a library error carrying status 500 is answered 'Bad request', unlogged", 'typed.status >= 400 && typed.status < 500) {', 'typed.status >= 400 && typed.status <= 500) {'),
  httpApp('HTTP app: an unexpected error is not logged', "    options.logger.error('unhandled error', { requestId: req.requestId, error });\n", ''),
  httpApp(
    'HTTP app: an unexpected error answers without the request id field',
    'res.status(500).json({ ...errorBody(500, `Unexpected error; quote request id ${req.requestId}`), requestId: req.requestId });',
    'res.status(500).json(errorBody(500, `Unexpected error; quote request id ${req.requestId}`));',
  ),
  httpApp(
    "HTTP app: an unexpected error's message (SQL, paths) reaches the client",
    'res.status(500).json({ ...errorBody(500, `Unexpected error; quote request id ${req.requestId}`), requestId: req.requestId });',
    'res.status(500).json({ ...errorBody(500, String((error as Error).message)), requestId: req.requestId });',
  ),
  httpApp('HTTP app: the legacy prefix sends no Deprecation header', "      res.setHeader('Deprecation', 'true');\n", ''),
  httpApp('HTTP app: the legacy prefix links every path to the /api/v1 root', "`<${API_PREFIX}${req.path === '/' ? '' : req.path}>; rel", '`<${API_PREFIX}>; rel'),
  httpApp(
    'HTTP app: surfaces under /api (the Comfy API v2) are mounted after the legacy prefix and answer as deprecated',
    '  for (const { prefix, router } of api.mounts()) app.use(prefix, router);\n',
    '',
    [{ file: 'adapters/http/http-app.ts', find: '  app.use(connectPagesRouter(', replace: '  for (const { prefix, router } of api.mounts()) app.use(prefix, router);\n  app.use(connectPagesRouter(' }],
  ),
  httpApp('HTTP app: Swagger UI is not pointed at our document', "swaggerOptions: { url: `${API_PREFIX}/openapi.json`, persistAuthorization: true }", 'swaggerOptions: { persistAuthorization: true }'),
  httpApp('HTTP app: Swagger UI forgets its Bearer token on every reload', "swaggerOptions: { url: `${API_PREFIX}/openapi.json`, persistAuthorization: true }", "swaggerOptions: { url: `${API_PREFIX}/openapi.json`, persistAuthorization: false }"),
  { ...httpApp('HTTP app: the web client is never served', 'if (options.webRoot) app.use(webAppRouter(', 'if (false as boolean) app.use(webAppRouter('), tests: ['tests/integration/unknown-paths.test.ts'] },
  httpLayers('HTTP app: X-Powered-By is sent where helmet does not run (GET /metrics)', "  app.disable('x-powered-by');\n", ''),
  httpLayers('HTTP app: every JSON answer carries a weak ETag', "  app.set('etag', false);\n", ''),
  httpLayers('HTTP app: a request id of 65 characters is kept', 'const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;', 'const REQUEST_ID = /^[A-Za-z0-9._-]{1,65}$/;'),
  httpLayers('HTTP app: an empty request id is kept', 'const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;', 'const REQUEST_ID = /^[A-Za-z0-9._-]{0,64}$/;'),
  httpLayers('HTTP app: a request id with any characters is kept', 'const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;', 'const REQUEST_ID = /^.{1,64}$/;'),
  httpLayers('HTTP app: a request id is kept when part of it is well-formed (no anchors)', 'const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;', 'const REQUEST_ID = /[A-Za-z0-9._-]{1,64}/;'),
  httpLayers('HTTP app: a request without a request id fails (its absence read as the id "undefined")', "typeof incoming === 'string' && REQUEST_ID.test(incoming)", 'REQUEST_ID.test(incoming as string)'),
  httpLayers('HTTP app: the request id is not answered', "    res.setHeader('X-Request-Id', req.requestId);\n", ''),
  httpLayers("HTTP app: the request log line's path carries the query string", "path: req.originalUrl.split('?')[0],", 'path: req.originalUrl,'),
  httpLayers(
    'HTTP app: GET /metrics passes the security, CORS and cookie layers',
    '  if (options.metrics) {\n    app.get(METRICS_PATH, metricsHandler(options.metrics));\n    documentMetrics(openapi);\n  }\n',
    '',
    [{ file: 'adapters/http/http-app.ts', find: '  app.use(cookieParser());\n', replace: '  app.use(cookieParser());\n  if (options.metrics) {\n    app.get(METRICS_PATH, metricsHandler(options.metrics));\n    documentMetrics(openapi);\n  }\n' }],
  ),
  httpLayers('HTTP app: HSTS and upgrade-insecure-requests over plain HTTP', '  app.use(securityHeaders(options.cookies.secure));', '  app.use(securityHeaders(true));'),
  httpLayers('HTTP app: no HSTS nor upgrade-insecure-requests with secure cookies (HTTPS)', '  app.use(securityHeaders(options.cookies.secure));', '  app.use(securityHeaders(false));'),
  httpLayers('HTTP app: HSTS over plain HTTP', '    ...(https ? {} : { strictTransportSecurity: false }),\n', ''),
  httpLayers('HTTP app: upgrade-insecure-requests over plain HTTP', "...(https ? {} : { 'upgrade-insecure-requests': null })", '...{}'),
  httpLayers('HTTP app: HSTS off with secure cookies (HTTPS)', '    ...(https ? {} : { strictTransportSecurity: false }),\n', '    strictTransportSecurity: false,\n'),
  httpApp('HTTP app: Swagger UI over plain HTTP is served with HSTS', "securityHeaders(options.cookies.secure, { 'script-src'", "securityHeaders(true, { 'script-src'"),
  httpApp('HTTP app: Swagger UI over HTTPS is served without HSTS', "securityHeaders(options.cookies.secure, { 'script-src'", "securityHeaders(false, { 'script-src'"),
  httpLayers('HTTP app: CORS allows every origin, with credentials', 'callback(null, !origin || options.corsOrigins.includes(origin))', 'callback(null, true)'),
  httpLayers('HTTP app: CORS headers are dropped for a request without Origin', 'callback(null, !origin || options.corsOrigins.includes(origin))', 'callback(null, options.corsOrigins.includes(origin as string))'),
  httpLayers('HTTP app: CORS without credentials (cookies of an allowed origin refused by browsers)', '      credentials: true,\n', ''),
  httpLayers('HTTP app: Retry-After is not exposed to cross-origin scripts', "exposedHeaders: 'X-Request-Id,Retry-After,Deprecation,Link,Idempotent-Replayed',", "exposedHeaders: 'X-Request-Id,Deprecation,Link,Idempotent-Replayed',"),
  httpLayers('HTTP app: cookies are not parsed', '  app.use(cookieParser());\n', ''),
  httpLayers('HTTP app: a JSON body over 1 MiB is read', "limit: options.bodyLimit ?? '1mb',", "limit: options.bodyLimit ?? '2mb',"),
  httpApp('HTTP app: +json bodies (merge-patch) are not parsed', "type: ['application/json', 'application/*+json'] }", "type: ['application/json'] }"),
  httpLayers('HTTP app: every response sets a new XSRF cookie, over the one the browser has', 'if (!(req.cookies as Record<string, string>)[XSRF_COOKIE]) setXsrfCookie', 'if (true as boolean) setXsrfCookie'),
  httpLayers('HTTP app: a browser without an XSRF cookie is never given one', 'if (!(req.cookies as Record<string, string>)[XSRF_COOKIE]) setXsrfCookie', 'if (false as boolean) setXsrfCookie'),
  httpLayers("HTTP app: a body over the limit is answered 'Bad request' (not the 1 MiB message)", "    if (typed.type === 'entity.too.large') {", '    if (false as boolean) {'),
  httpLayers("HTTP app: a body that is not JSON is answered 'Bad request' (not what is wrong)", "    if (typed.type === 'entity.parse.failed') {", '    if (false as boolean) {'),

  // adapters/http/api-router.ts
  { ...apiRouter('API router: an admin route lets any signed-in user in', 'chain.push(requireAuth(this.auth, spec.auth, keyScopeOf(spec))', "chain.push(requireAuth(this.auth, 'access', keyScopeOf(spec))"), tests: [GUARDS] },
  { ...apiRouter('API router: an API key is refused on the routes of its scope', 'chain.push(requireAuth(this.auth, spec.auth, keyScopeOf(spec))', 'chain.push(requireAuth(this.auth, spec.auth)'), tests: ['tests/integration/api-keys.test.ts'] },
  apiRouter('API router: every validated request is refused', '  if (result.isEmpty()) return next();', '  if (false as boolean) return next();'),
  apiRouter('API router: a field failing two rules is reported twice', '    if (seen.has(field)) continue;\n', ''),
  apiRouter("API router: a validation failure's details are dropped", "next(new HttpError(400, 'Validation failed', details));", "next(new HttpError(400, 'Validation failed'));"),
  apiRouter('API router: running handlers are not counted (shutdown waits for none)', '      this.running += 1;\n', ''),
  apiRouter('API router: a handler that failed is counted as running forever', '      try {\n        await handler(req, res);\n      } finally {\n', '      {\n        await handler(req, res);\n'),
  apiRouter('API router: drain waits out its whole limit after the last handler ended', '        if (this.running === 0) for (const resolve of this.idle.splice(0)) resolve();\n', ''),
  apiRouter('API router: drain waits out its whole limit with nothing running', '    if (this.running === 0) return;\n', ''),
  apiRouter('API router: drain waits forever for a handler that never ends', '      new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),\n', ''),
  routerDoc("API router doc: a validated route does not document its 400", "    if (spec.validate && !responses['400']) responses['400'] = errorResponse('Validation failed');\n", ''),
  { ...routerDoc("API router doc: a protected route does not document its 401", "    if (spec.auth !== 'public' && !responses['401']) responses['401'] = errorResponse('Missing, invalid or expired access token');\n", ''), tests: [GUARDS] },
  routerDoc('API router doc: a protected route does not document its 403', "    if (spec.auth !== 'public') {\n      const own = spec.responses[403]", "    if (false as boolean) {\n      const own = spec.responses[403]"),
  routerDoc('API router doc: a public route is documented as needing authentication', "...(spec.auth === 'public' ? { security: [] } : {", '...(false as boolean ? { security: [] } : {'),
  routerDoc('API router doc: path parameters are documented as optional', "in: 'path', required: true,", "in: 'path', required: false,"),
  { ...routerDoc('API router doc: query parameters are not documented', '      ...Object.entries(spec.query ?? {}).map(', '      ...Object.entries({}).map('), tests: [GUARDS] },
  { ...routerDoc('API router doc: header parameters (Idempotency-Key) are not documented', '      ...Object.entries(spec.headers ?? {}).map(', '      ...Object.entries({}).map('), tests: [GUARDS] },
  routerDoc('API router doc: every request body is documented as JSON (uploads too)', "[spec.bodyContentType ?? 'application/json']", "['application/json']"),
  routerDoc("API router doc: the Comfy API v2's errors are documented as API.md's error body", "ref(this.server ? 'ComfyV2Error' : 'Error')", "ref('Error')"),
  routerDoc('API router doc: operations of another surface are not documented under their server', 'this.server === undefined ? {} : { server: this.server }', '{}'),
  { ...routerDoc('API router doc: a request body is documented as optional', 'requestBody: { required: true,', 'requestBody: { required: false,'), tests: [GUARDS] },
  { ...routerDoc("API router doc: a response's headers are not documented", '        ...(response.headers ? { headers: response.headers } : {}),\n', ''), tests: [GUARDS] },
  { ...routerDoc("API router doc: a protected route does not say which API key scope it takes", "      ...(spec.auth === 'public' ? {} : { 'x-api-key-scope': keyScope }),\n", ''), tests: ['tests/integration/api-keys.test.ts'] },

  // bootstrap/outbox-relay-loop.ts
  relayLoop('outbox relay loop: a stopped loop still relays when triggered', 'if (this.queued || this.stopped) return;', 'if (this.queued) return;'),
  relayLoop('outbox relay loop: a failed relay run is not logged (an unhandled rejection)', "      this.deps.logger.error('outbox relay failed', { error: describeError(error) });", '      throw error;'),
  relayLoop('outbox relay loop: after one failed flush every later run is skipped', 'this.tail = run.catch(() => undefined);', 'this.tail = run;'),
  relayLoop('outbox relay loop: published entries are purged on every run', '    if (now - this.lastPurge < this.purgeEveryMs) return;\n', ''),
  relayLoop('outbox relay loop: a failed purge is not logged (an unhandled rejection)', "      this.deps.logger.error('outbox purge failed', { error: describeError(error) });", '      throw error;'),

  // adapters/opentelemetry/traced-fetch.ts
  fetchSpans('traced fetch: calls outside any trace (health probes) make a root span each', '    if (!trace.getSpan(parent)) return inner(input, init);\n', ''),
  fetchSpans('traced fetch: ids in the path make a span name per call', "(/^[0-9a-f-]{16,}$/i.test(segment) ? ':id' : segment)", 'segment'),
  fetchSpans('traced fetch: a call made with a Request fails (its URL read as "[object Request]")', 'new URL(input instanceof Request ? input.url : String(input))', 'new URL(String(input))'),
  fetchSpans("traced fetch: a Request's method is named GET", "(init?.method ?? (input instanceof Request ? input.method : 'GET'))", "(init?.method ?? 'GET')"),
  fetchSpans('traced fetch: a lower-case method names the span in lower case', "input.method : 'GET')).toUpperCase();", "input.method : 'GET'));"),
  fetchSpans('traced fetch: a server without a port in its URL is reported on port 0', "Number(url.port) || (url.protocol === 'https:' ? 443 : 80)", 'Number(url.port)'),
  fetchSpans('traced fetch: an https server without a port in its URL is reported on port 80', "Number(url.port) || (url.protocol === 'https:' ? 443 : 80)", 'Number(url.port) || 80'),
  fetchSpans("traced fetch: a Request's own headers (Authorization) are dropped", 'new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined))', 'new Headers(init?.headers)'),
  fetchSpans('traced fetch: no traceparent is sent (the server cannot continue the trace)', '      propagation.inject(context.active(), headers, { set: (carrier, key, value) => carrier.set(key, value) });\n', ''),
  fetchSpans('traced fetch: a 5xx answer is not marked as an error', 'if (response.status >= 500) span.setStatus', 'if (false as boolean) span.setStatus'),
  fetchSpans('traced fetch: a 4xx answer (a history poll too early) is marked as an error', 'if (response.status >= 500) span.setStatus', 'if (response.status >= 400) span.setStatus'),

  // adapters/metrics/prom-metrics.ts
  prom('metrics: a job submitted without a template is not counted under template="raw"', 'this.jobs.submitted.inc({ template: template ?? RAW_WORKFLOW });', 'this.jobs.submitted.inc({ template: template as string });'),
  prom('metrics: a job started without a template is not counted under template="raw"', 'this.jobs.started.inc({ template: template ?? RAW_WORKFLOW });', 'this.jobs.started.inc({ template: template as string });'),
  prom('metrics: a job ended without a template is not counted under template="raw"', 'this.jobs.ended.inc({ template: template ?? RAW_WORKFLOW, outcome });', 'this.jobs.ended.inc({ template: template as string, outcome });'),
  prom('metrics: a negative queue wait lowers the histogram sum', 'this.times.queueWait.observe(Math.max(0, seconds));', 'this.times.queueWait.observe(seconds);'),
  prom('metrics: a negative run time lowers the histogram sum', 'this.times.run.observe(Math.max(0, seconds));', 'this.times.run.observe(seconds);'),
  prom('metrics: a negative upload time lowers the histogram sum', 'this.times.upload.observe(Math.max(0, seconds));', 'this.times.upload.observe(seconds);'),
  prom('metrics: queue gauges made without a queue source fail the scrape', 'if (sources.queue) this.queueGauges(sources.queue);', 'this.queueGauges(sources.queue!);'),
  prom('metrics: engine gauges made without an engine (an api process) fail the scrape', 'if (sources.engine) this.engineGauges(sources.engine);', 'this.engineGauges(sources.engine!);'),
  prom('metrics: a failing source fails the whole scrape', "this.logger.warn('metrics source failed', { source, error: String(error) });\n          return null;", 'throw error;'),
  prom('metrics: a failed source read (null) fails its gauges and the scrape', 'for (const entry of (await read()) ?? []) {', 'for (const entry of (await read())!) {'),
  prom('metrics: a figure a source lacks (RabbitMQ\'s oldest age) fails the scrape', 'if (value !== undefined) this.set({ [labelName]: label(entry) }, value);', 'this.set({ [labelName]: label(entry) }, value as number);'),
  prom('metrics: a gauge keeps the series of an entry gone since the last scrape', '          this.reset();\n', ''),
  prom('metrics: a source is read once per gauge, not once per scrape', 'pending ??= load()', 'pending = load()'),
  prom('metrics: a source is read once and its figures served forever', '        .finally(() => setImmediate(() => (pending = null))));', '        );'),
];
