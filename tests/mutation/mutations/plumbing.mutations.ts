import { entriesOn, type Mutation } from '../mutation.ts';

/**
 * Guards of the plumbing under the use cases: the database queue of the embedded default, the RabbitMQ connection
 * holder, the HTTP app's middleware, the outbox relay loop, traced fetch and the Prometheus metrics.
 */
const amqpLink = entriesOn('plumbing', 'adapters/rabbitmq/amqp-link.ts', ['tests/integration/amqp-link.test.ts']);
const httpApp = entriesOn('plumbing', 'adapters/http/http-app.ts', ['tests/integration/http-app-guards.test.ts']);
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
