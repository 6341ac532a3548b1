import { entriesOn, type Mutation } from '../mutation.ts';

/**
 * The second guard sweep (2026-12-07): `npm run mutation:unlisted` lines in the queues and event buses, the ComfyUI pool
 * and prompt watch, the HTTP routes of jobs, files, templates, the admin console and sign-in with a provider, the
 * parameter map, resource limits, queue estimates, test runs and template revision, the socket gateway, the SQLite
 * writer, S3, the config reader, canonical JSON, the builtin engine's prompt check, the protocol stand-in's uploads,
 * the user event store, the stand-in's origin check, the v2 event stream, and the smaller use cases of coins, jobs,
 * social publishing, webhooks and templates. Each was deleted once; those no
 * test caught got a test (each seen red with its guard deleted): a doubling ImageBatch chain is checked at once (49 s
 * without the memo), unknown shapes are unknown, a slot is taken without waiting for a poll and the wait for an
 * unhealthy fleet ends, dispatch passes are shared, the round robin and the hint list are bounded, a bus closed says
 * so, a message for a channel without handlers is dropped, a reopen does not open a second channel, a user's second
 * socket joins the first and a user is forgotten with the last, units behind a busy SQLite writer commit together and
 * an autocommit write is not part of an open transaction, a busy consumer does not poll when woken, a template name
 * lost to a race is refused without an audit entry, a wrapper beside other keys is no wrapper, an empty category is no
 * filter, a link to an unknown provider is 404, and the stand-in dedupes an upload of the same bytes.
 *
 * Not listed, with the reason: equivalent (the outcome is the same without the guard: a second close or stop, a
 * second check that an inner call repeats, a bound that only saves a query or a timer, undefined keys dropped anyway),
 * reachable only in a race the surrounding lock excludes (a template deleted between two statements of one locked
 * transaction), or a hang or a crash rather than a failed assertion (a waiter handed a lease that loops without
 * awaiting a timer; a settled SQS delivery whose timer keeps the process alive; the memory queue's empty take).
 */
const rabbit = entriesOn('guard sweep 2', 'adapters/rabbitmq/rabbit-message-queue.ts', ['tests/integration/rabbit-queue-guards.test.ts']);
const rabbitReopen = entriesOn('guard sweep 2', 'adapters/rabbitmq/rabbit-message-queue.ts', ['tests/integration/rabbit-channel-closed.test.ts']);
const rabbitBus = entriesOn('guard sweep 2', 'adapters/rabbitmq/rabbit-event-bus.ts', ['tests/contract/event-bus.test.ts']);
const redisBus = entriesOn('guard sweep 2', 'adapters/redis/redis-event-bus.ts', ['tests/contract/event-bus.test.ts']);
const sqs = entriesOn('guard sweep 2', 'adapters/sqs/sqs-message-queue.ts', ['tests/integration/sqs-queue-guards.test.ts']);
const dbq = entriesOn('guard sweep 2', 'adapters/sequelize/sequelize-queue-consumer.ts', ['tests/integration/db-queue-consumer-guards.test.ts']);
const memq = entriesOn('guard sweep 2', 'adapters/memory/memory-message-queue.ts', ['tests/contract/message-queue.test.ts']);
const pool = entriesOn('guard sweep 2', 'adapters/comfyui/comfy-pool.ts', ['tests/unit/comfy-pool.test.ts']);
const watch = entriesOn('guard sweep 2', 'adapters/comfyui/prompt-watch.ts', ['tests/unit/prompt-watch.test.ts']);
const engine = entriesOn('guard sweep 2', 'adapters/comfyui/comfy-engine.ts', ['tests/integration/comfyui-engine-faults.test.ts']);
const gen = entriesOn('guard sweep 2', 'adapters/http/routes/generation.routes.ts', ['tests/integration/generation.test.ts']);
const genList = entriesOn('guard sweep 2', 'adapters/http/routes/generation.routes.ts', ['tests/integration/backend-audit.test.ts']);
const genCancel = entriesOn('guard sweep 2', 'adapters/http/routes/generation.routes.ts', ['tests/integration/admin-console.test.ts']);
const files = entriesOn('guard sweep 2', 'adapters/http/routes/files.routes.ts', ['tests/integration/storage-audit.test.ts']);
const tpl = entriesOn('guard sweep 2', 'adapters/http/routes/template.routes.ts', ['tests/integration/templates.test.ts']);
const drafts = entriesOn('guard sweep 2', 'adapters/http/routes/template.routes.ts', ['tests/integration/template-drafts.test.ts']);
const adm = entriesOn('guard sweep 2', 'adapters/http/routes/admin-console.routes.ts', ['tests/integration/admin-console.test.ts']);
const oidc = entriesOn('guard sweep 2', 'adapters/http/routes/oidc.routes.ts', ['tests/integration/oidc.test.ts']);
const db = entriesOn('guard sweep 2', 'adapters/sequelize/sequelize-database.ts', ['tests/contract/unit-of-work.test.ts', 'tests/integration/sql-database.test.ts']);
const s3 = entriesOn('guard sweep 2', 'adapters/s3/s3-object-storage.ts', ['tests/contract/object-storage.test.ts']);
const wsTwo = entriesOn('guard sweep 2', 'adapters/ws/ws-gateway.ts', ['tests/integration/ws-audit.test.ts']);
const reader = entriesOn('guard sweep 2', 'bootstrap/config/reader.ts', ['tests/unit/config-reader.test.ts', 'tests/unit/config.test.ts']);
const shape = entriesOn('guard sweep 2', 'adapters/http/json-shape.ts', ['tests/unit/json-shape.test.ts']);
const validate = entriesOn('guard sweep 2', 'adapters/builtin-engine/validate.ts', ['tests/unit/builtin-validate.test.ts', 'tests/integration/comfy-protocol-prompts.test.ts']);
const standInFiles = entriesOn('guard sweep 2', 'adapters/comfyui-protocol-server/file-routes.ts', ['tests/integration/comfy-protocol-files.test.ts']);
const pmap = entriesOn('guard sweep 2', 'core/domain/parameter-map.ts', ['tests/unit/parameter-map.test.ts']);
const limits = entriesOn('guard sweep 2', 'core/domain/resource-limits.ts', ['tests/unit/resource-limits.test.ts']);
const est = entriesOn('guard sweep 2', 'core/use-cases/generation/queue-estimates.service.ts', ['tests/unit/queue-estimates-servers.test.ts', 'tests/integration/queue-position.test.ts']);
const testRun = entriesOn('guard sweep 2', 'core/use-cases/templates/start-test-run.use-case.ts', ['tests/unit/template-test-runs.test.ts', 'tests/integration/template-test-runs.test.ts']);
const revise = entriesOn('guard sweep 2', 'core/use-cases/templates/revise-template.service.ts', ['tests/unit/templates-use-cases.test.ts']);
const sweep = entriesOn('guard sweep 2', 'core/use-cases/coins/sweep-unclaimed-deductions.use-case.ts', ['tests/unit/job-payment.test.ts']);
const submitRace = entriesOn('guard sweep 2', 'core/use-cases/generation/submit-generation.use-case.ts', ['tests/integration/jobs-guards.test.ts']);
const submitWebhooks = entriesOn('guard sweep 2', 'core/use-cases/generation/submit-generation.use-case.ts', ['tests/integration/webhooks.test.ts']);
const tokens = entriesOn('guard sweep 2', 'core/use-cases/social/connection-tokens.service.ts', ['tests/unit/connection-tokens.test.ts']);
const publication = entriesOn('guard sweep 2', 'core/use-cases/social/run-publication.use-case.ts', ['tests/integration/social-guards.test.ts']);
const delivery = entriesOn('guard sweep 2', 'core/domain/message-delivery.ts', ['tests/unit/message-delivery.test.ts']);
const deliveryWake = entriesOn('guard sweep 2', 'core/domain/message-delivery.ts', ['tests/integration/db-queue-consumer-guards.test.ts']);
const webhook = entriesOn('guard sweep 2', 'core/domain/webhook-event.ts', ['tests/unit/webhook-event.test.ts']);
const relay = entriesOn('guard sweep 2', 'core/use-cases/generation/progress-relay.service.ts', ['tests/unit/progress-relay.test.ts']);
const feed = entriesOn('guard sweep 2', 'core/use-cases/events/job-event-feed.service.ts', ['tests/unit/job-event-feed.test.ts']);
const slot = entriesOn('guard sweep 2', 'core/use-cases/generation/engine-slot-wait.service.ts', ['tests/integration/generation.test.ts']);
const create = entriesOn('guard sweep 2', 'core/use-cases/templates/create-template.use-case.ts', ['tests/unit/templates-use-cases.test.ts']);
const apiKey = entriesOn('guard sweep 2', 'core/use-cases/api-keys/create-api-key.use-case.ts', ['tests/unit/api-keys.test.ts']);
const chat = entriesOn('guard sweep 2', 'core/use-cases/chat/chat.use-case.ts', ['tests/integration/chat.test.ts']);
const adminLists = entriesOn('guard sweep 2', 'core/use-cases/coins/list-user-transactions.use-case.ts', ['tests/integration/admin-chat-routes-audit.test.ts']);
const auditList = entriesOn('guard sweep 2', 'core/use-cases/coins/get-audit-log.use-case.ts', ['tests/integration/admin-chat-routes-audit.test.ts']);
const request = entriesOn('guard sweep 2', 'core/use-cases/social/request-publication.use-case.ts', ['tests/integration/social-publishing.test.ts']);
const queries = entriesOn('guard sweep 2', 'core/use-cases/generation/job-queries.service.ts', ['tests/unit/job-queries.test.ts']);
const events = entriesOn('guard sweep 2', 'adapters/sequelize/sequelize-user-event-store.ts', ['tests/contract/user-event-store.test.ts']);
const origin = entriesOn('guard sweep 2', 'adapters/comfyui-protocol-server/origin-check.ts', ['tests/unit/comfy-origin-check.test.ts']);
const v2 = entriesOn('guard sweep 2', 'adapters/http/routes/comfy-v2.routes.ts', ['tests/integration/comfy-v2.test.ts']);
const SEND_FAIL = '\n      if (!result.ok) return sendFail(res, result);';

export const MUTATIONS: Mutation[] = [
  rabbit('a redrive or discard that runs out of dead letters reads past the end', '          if (!message) break;\n          if (message.properties.messageId !== id) continue;', '          if (message!.properties.messageId !== id) continue;'),
  rabbit('a peek that runs out of messages reads past the end', '          if (!message) break;\n          taken.push(message);', '          taken.push(message!);'),
  rabbitReopen('a reopen while the consumer has a channel opens a second one', '    if (this.stopped || this.channel || this.queue.link.live !== model) return;', '    if (this.stopped || this.queue.link.live !== model) return;'),
  rabbit('a consumer whose handler outlived its visibility takes no messages again', '        if (delivery.expired) {', '        if (false as boolean) {'),
  rabbit('a message settled as done is not acked', "      if (settlement.kind === 'delete') {\n        channel.ack(message);", "      if (false as boolean) {\n        channel.ack(message);"),
  rabbit('a message settled for a retry is not sent to its delay queue', "      } else if (settlement.kind === 'delay') {\n        await this.queue.send(route", "      } else if (false as boolean) {\n        await this.queue.send(route"),
  rabbitBus('a closed RabbitMQ bus publishes', "  async publish(channel: string, payload: unknown): Promise<void> {\n    if (this.closed) throw new Error('the event bus is closed');", '  async publish(channel: string, payload: unknown): Promise<void> {'),
  rabbitBus('a second handler of a channel replaces the first', '    const first = !set;\n    if (!set) {', '    const first = !set;\n    if (true as boolean) {'),
  rabbitBus('every subscribe listens on a queue of its own', '    if (!this.subscriber) this.subscriber = this.listen(', '    this.subscriber = this.listen('),
  rabbitBus('a message for a channel without handlers throws in the consumer', '    if (!set) return;\n    const report = this.options.onHandlerError', '    const report = this.options.onHandlerError'),
  redisBus('a closed Redis bus publishes', "  async publish(channel: string, payload: unknown): Promise<void> {\n    if (this.closed) throw new Error('the event bus is closed');", '  async publish(channel: string, payload: unknown): Promise<void> {'),
  redisBus('a closed Redis bus subscribes', "  async subscribe(channel: string, handler: (payload: unknown) => void): Promise<() => Promise<void>> {\n    if (this.closed) throw new Error('the event bus is closed');", '  async subscribe(channel: string, handler: (payload: unknown) => void): Promise<() => Promise<void>> {'),
  redisBus('a message for a channel without handlers (an unsubscribe in flight) throws', '    if (!entry) return; // an UNSUBSCRIBE was in flight', ''),
  sqs('a redrive or discard hands on a message it did not find', '        if (found) {\n          await then(found);', '        if (true as boolean) {\n          await then(found!);'),
  sqs('a message settled as done is not deleted', "    if (settlement.kind === 'delete') return this.delete(delivery.message);", ''),
  sqs('a message settled for a retry is not hidden for its delay', "    if (settlement.kind === 'delay') return this.changeVisibility", '    if (false as boolean) return this.changeVisibility'),
  dbq('a burst of hints is kept whole', '      if (this.hints.length < MAX_HINTS) this.hints.push(hint);', '      this.hints.push(hint);'),
  dbq('a consumer with every slot busy polls when woken', '      if (free > 0) {', '      if (true as boolean) {'),
  dbq('a message taken only to be ended is handled again', '      if (exhausted) this.startTask(this.expire(', '      if (false as boolean) this.startTask(this.expire('),
  dbq('a message settled as done is not marked done', "    if (settlement.kind === 'delete') {\n      // A tombstone", "    if (false as boolean) {\n      // A tombstone"),
  memq('a redrive of an unknown dead letter throws', "    const row = this.deadRow(id);\n    if (!row) return false;\n    Object.assign", '    const row = this.deadRow(id)!;\n    Object.assign'),
  memq('a discard of an unknown dead letter throws', "    if (!row) return false;\n    row.status = 'done';", "    row!.status = 'done';"),
  pool('a job waits for ever while no server is healthy', '        if (able.some((s) => s.healthy === true)) {', '        if (true as boolean) {'),
  pool('a job handed a slot by its own pass waits for the next poll', '          if (waiter.lease) continue;\n', ''),
  pool('dispatch passes overlap: every job reads every queue', '    if (this.dispatching) {', '    if (false as boolean) {'),
  pool('a pass with nothing to choose takes an undefined job', '        if (!choice) break;\n', ''),
  pool('the round robin remembers every user for ever', '    if (this.lastServed.size > MAX_REMEMBERED_USERS) this.lastServed.delete', '    if (false as boolean) this.lastServed.delete'),
  pool('a failure of a client the pool does not hold throws', '    if (state) this.down(state, error);', '    this.down(state!, error);'),
  pool('the one free server has its queue read', '    if (free.length === 1) return free;\n', ''),
  watch('the socket of a watch is not listened to', '    if (this.socket) this.attach(this.socket);', '    if (false as boolean) this.attach(this.socket!);'),
  watch('a watch without a socket cannot end', "    if (socket) {\n      socket.removeAllListeners('message');", "    if (true as boolean) {\n      socket!.removeAllListeners('message');"),
  watch('a prompt already in the history is not read from it', '    if (entry) return resultOf(client, entry);\n', ''),
  watch('a cancel of a pending prompt interrupts instead of deleting it', '    if (pending.some((item) => item[1] === promptId)) {', '    if (false as boolean) {'),
  watch('finished nodes do not count towards progress', "      if (node.state === 'finished') done += 1;\n      else if", '      if'),
  watch('an end event during a look at the history does not wake the watch', '    if (this.wake) this.wake();\n    else this.poked = true;', '    this.poked = true;'),
  gen('a refused submit is answered as accepted', '        if (!result.ok) {\n          const refused = failureResponse(result);', '        if (false as boolean) {\n          const refused = failureResponse(result);'),
  genList('a refused job list is answered as a page', 'page: req.query.page, limit: req.query.limit });' + SEND_FAIL, 'page: req.query.page, limit: req.query.limit });'),
  gen('an unknown job is answered as found', 'jobId: String(req.params.id) });' + SEND_FAIL, 'jobId: String(req.params.id) });'),
  genCancel('a refused cancel is answered as done', 'jobId: id });' + SEND_FAIL, 'jobId: id });'),
  files('an unsatisfiable range is served', "  if (range === 'unsatisfiable') {", '  if (false as boolean) {'),
  files('a range is served as the whole file with 200', "  if (range !== 'whole') {\n    res.status(206);", '  if (false as boolean) {\n    res.status(206);'),
  tpl('a parameter_map wrapper beside other keys is unwrapped', '  if (!isPlainObject(body) || Object.keys(body).length !== 1) return body;', '  if (!isPlainObject(body)) return body;'),
  tpl('an empty category is taken as a category', "      if (category === undefined || category === '') return void res.json(presetsForCategory());", '      if (category === undefined) return void res.json(presetsForCategory());'),
  tpl('a refused create is answered as created', 'fields: req.body });' + SEND_FAIL, 'fields: req.body });'),
  tpl('a refused parameter map is answered as stored', 'parameterMap: mapFromBody(req.body) });' + SEND_FAIL, 'parameterMap: mapFromBody(req.body) });'),
  tpl('a refused patch is answered as applied', 'changes: req.body });' + SEND_FAIL, 'changes: req.body });'),
  tpl('an unknown template is answered as found', "      const result = await deps.get.execute({ id: req.params['id'] });" + SEND_FAIL, "      const result = await deps.get.execute({ id: req.params['id'] });"),
  tpl('a refused delete is answered as done', "      const result = await deps.remove.execute({ actorId: req.principal!.userId, id: req.params['id'] });" + SEND_FAIL, "      const result = await deps.remove.execute({ actorId: req.principal!.userId, id: req.params['id'] });"),
  drafts('a refused publish is answered as published', "id: req.params['id'], publish });\n        if (!result.ok) return sendFail(res, result);", "id: req.params['id'], publish });"),
  adm('a refused admin job list is answered as a page', 'const result = await deps.jobs.execute({ status: req.query.status, page: req.query.page, limit: req.query.limit });' + SEND_FAIL, 'const result = await deps.jobs.execute({ status: req.query.status, page: req.query.page, limit: req.query.limit });'),
  adm('a refused admin cancel is answered as done', 'const result = await deps.cancel.execute({ actorId: req.principal!.userId, jobId: String(req.params.id) });' + SEND_FAIL, 'const result = await deps.cancel.execute({ actorId: req.principal!.userId, jobId: String(req.params.id) });'),
  adm('a refused queue view is answered', 'const result = await deps.queue.execute({ limit: req.query.limit });' + SEND_FAIL, 'const result = await deps.queue.execute({ limit: req.query.limit });'),
  adm('a refused dead-letter view is answered', 'const result = await deps.deadLetters.execute({ limit: req.query.limit });' + SEND_FAIL, 'const result = await deps.deadLetters.execute({ limit: req.query.limit });'),
  adm('a refused redrive or discard is answered as done', 'id: String(req.params.id), action });\n        if (!result.ok) return sendFail(res, result);', 'id: String(req.params.id), action });'),
  adm('a redrive or discard answers a body instead of 204', '        if (done.status === 204) res.status(204).end();', '        if (false as boolean) res.status(204).end();'),
  adm('a refused template health view is answered', 'const result = await deps.templateHealth.execute({ hours: req.query.hours });' + SEND_FAIL, 'const result = await deps.templateHealth.execute({ hours: req.query.hours });'),
  pmap('an unknown preset is not refused', '      if (!preset) {\n        add(`${field}.preset`', '      if (false as boolean) {\n        add(`${field}.preset`'),
  pmap('an unknown type is not refused', '    if (!isParameterType(rawType)) {', '    if (false as boolean) {'),
  pmap('a bound the item does not give is refused as no number', "    if (value === undefined) return undefined;\n    if (typeof value !== 'number'", "    if (typeof value !== 'number'"),
  pmap("an enum's options are not checked", "  if (type === 'enum') {", '  if (false as boolean) {'),
  limits('each shape is worked out again wherever it is used (exponential on a doubling chain)', '    if (this.shapes.has(id)) return this.shapes.get(id)!;\n', ''),
  limits('a link to a missing node throws', '    if (!node) return null;\n    const i = node.inputs', '    const i = node!.inputs'),
  limits('an ImageScale side from a link is guessed', '        if (w === null || h === null) return null;\n        if (w > 0 && h > 0)', '        if (w! > 0 && h! > 0)'),
  limits('an ImageScale that keeps a side of an unknown image throws', '        if (!input) return null;\n        if (w === 0 && h === 0) return input;', '        if (w === 0 && h === 0) return input;'),
  limits("a saver's bytes do not count towards the output limit", '    if (IMAGE_SAVERS.has(node.class_type)) {', '    if (false as boolean) {'),
  limits('a node of unknown shape throws', '    if (!shape) continue;\n    const pixels', '    const pixels'),
  est('an ETA is computed without past runs', '    if (own === null || aheadMs === null) return null;\n', ''),
  est('estimates without a fleet look up servers', '    if (!fit) return async () => null;\n', ''),
  testRun('a test run of an unknown template goes on', "    if (!template) return fail('NOT_FOUND', 'No such template');\n    const prepared", '    const prepared'),
  testRun('a queued test run is refused as too many active jobs', '    if (job) return ok(job);\n', ''),
  revise('a revision of a gone template goes on', '    if (!current) return templateNotFound();\n', ''),
  revise('a refused revision is stored', '    if (!revision.ok) return revision;\n', ''),
  wsTwo("a user's second socket replaces the first", '    if (!clients) {\n      clients = new Set();', '    if (true as boolean) {\n      clients = new Set();'),
  wsTwo('a user whose last socket closed is remembered', '      if (set.size === 0) this.byUser.delete(userId);', ''),
  db('a unit of work inside a unit of work waits for itself', '    if (isInsideTransaction()) throw new NestedTransactionError();\n', ''),
  db('a drain per unit: units queued behind a busy writer commit one by one', '      if (!this.draining) void this.drain();', '      void this.drain();'),
  db('an autocommit write runs inside whatever transaction is open on the writer', ': this.transaction((inside) => inside.run(sql, params));', ': this.writerStatements!.run(sql, params);'),
  db('an after-commit hook runs before the commit', '        if (hooks) hooks.push(hook);\n        else void this.runHooks([hook]);', '        void this.runHooks([hook]);'),
  db('SQLite pragmas are sent to MariaDB', "    if (this.dialect !== 'sqlite') return Promise.resolve();\n    this.prepared", '    this.prepared'),
  s3('a buffer body is sent as a stream of unknown length', '    if (Buffer.isBuffer(body)) {', '    if (false as boolean) {'),
  s3("a body stream's own error is lost behind the SDK's", '    if (error && !this.failure) this.failure = error;', '    if (false as boolean) this.failure = error;'),
  engine('a prompt the server already finished is run again', '          if (done) return await this.adopted(client, request, done);\n', ''),
  oidc('a refused unlink is answered as done', "provider: String(req.params.provider).toLowerCase() });" + SEND_FAIL, "provider: String(req.params.provider).toLowerCase() });"),
  oidc('a link to an unknown provider is answered as started', 'linkUserId: req.principal!.userId });' + SEND_FAIL, 'linkUserId: req.principal!.userId });'),
  oidc('a login that cannot start is redirected to the provider', '      const result = await deps.start.execute({ provider });\n      if (!result.ok) {', '      const result = await deps.start.execute({ provider });\n      if (false as boolean) {'),
  oidc('an unknown provider is redirected instead of 404', "        if (result.code === 'AUTH.UNKNOWN_PROVIDER') return sendFail(res, result);", "        if (false as boolean) return sendFail(res, result);"),
  oidc('a refused sign-in signs in', "      const result = await deps.complete.execute({ provider, query, browserState });\n      if (!result.ok) {", "      const result = await deps.complete.execute({ provider, query, browserState });\n      if (false as boolean) {"),
  reader('a required setting left out is not told', "    if (value === undefined) {\n      this.problems.push(`${name} is required ${why}`);", "    if (false as boolean) {\n      this.problems.push(`${name} is required ${why}`);"),
  reader('an integer left out is not its default', '    if (value === undefined) return fallback;\n    const parsed = Number(value);', '    const parsed = Number(value);'),
  reader('a true/false left out is not its default', "    if (value === undefined) return fallback;\n    if (['true'", "    if (['true'"),
  reader('a true/false of 1 or yes is refused', "    if (['true', '1', 'yes'].includes(value)) return true;", "    if (['true'].includes(value)) return true;"),
  reader('a true/false of 0 or no is refused', "    if (['false', '0', 'no'].includes(value)) return false;", "    if (['false'].includes(value)) return false;"),
  reader('a choice left out is not its default', '    if (value === undefined) return fallback;\n    if (!(allowed', '    if (!(allowed'),
  reader('a duration left out is not its default', '    if (value === undefined) return fallbackSeconds;\n', ''),
  shape('nested containers are not measured', '      if (inner !== null && typeof inner === \'object\') stack.push([inner, here]);', '      if (false as boolean) stack.push([inner, here]);'),
  shape('a bracket is written as a value', "    if ('text' in work) {", '    if (false as boolean) {'),
  shape('an array is written as an object', '    if (Array.isArray(current)) {\n      stack.push({ text: \']\' });', '    if (false as boolean) {\n      stack.push({ text: \']\' });'),
  shape('an object is written as a scalar', "    } else if (current !== null && typeof current === 'object') {\n      const entries", "    } else if (false as boolean) {\n      const entries"),
  validate('a fractional output slot is taken', '  if (typeof slot !== \'number\' || !Number.isInteger(slot)) {', '  if (false as boolean) {'),
  validate('types that are not text are compared as lists', "  if (typeof received !== 'string' || typeof inputType !== 'string') return false;\n", ''),
  validate('a missing input is not reported', '    if (!(x in inputs)) {', '    if (false as boolean) {'),
  validate('a literal is checked as a link', '    if (!Array.isArray(val)) {\n      const err = checkLiteral', '    if (false as boolean) {\n      const err = checkLiteral'),
  validate("a literal's problem is dropped", '      if (err) errors.push(err);\n', ''),
  validate("a node's own check of its inputs is skipped", '  if (custom) {\n    const values', '  if (false as boolean) {\n    const values'),
  validate("a failed own check of a node's inputs is dropped", '    if (r !== true) {', '    if (false as boolean) {'),
  validate('an unknown node class is not reported', '    if (!def) {\n      return invalidPrompt(`Cannot execute because node', '    if (false as boolean) {\n      return invalidPrompt(`Cannot execute because node'),
  standInFiles('a name annotated with its folder is not read so', '    if (name.endsWith(`[${type}]`)) return [name.slice(0, -(type.length + 3)), dirs[type]];', '    if (false as boolean) return [name.slice(0, -(type.length + 3)), dirs[type]];'),
  standInFiles('an upload without an image is not 400', '  if (form.image === null) {\n    res.status(400).end();', '  if (false as boolean) {\n    res.status(400).end();'),
  standInFiles('an upload of the same bytes under the same name is renamed', '      if ((await readFile(filepath)).equals(form.image.data)) {', '      if (false as boolean) {'),
  sweep('a deduction another sweep refunded counts as refunded again', '      if ((await uow.run((tx) => payment.refundDeduction(tx, deduction, clock.now()))) > 0) refunded += 1;', '      await uow.run((tx) => payment.refundDeduction(tx, deduction, clock.now()));\n      refunded += 1;'),
  submitRace('a request id is not looked up before the submit', '    if (requestId) {\n      const existing = await this.deps.jobs.findById(requestId);', '    if (false as boolean) {\n      const existing = await this.deps.jobs.findById(requestId!);'),
  submitWebhooks('a service with webhooks refuses every webhook', '    if (webhooks) return parseWebhookSubscription(input.webhook, input.webhookEvents, webhooks.policy);\n', ''),
  tokens('a reseal stops after its first page', '      if (page.length < batch) return resealed;', '      return resealed;'),
  publication('a permanent platform failure is retried', '    if (!permanent && message.attempt < deps.maxAttempts) {', '    if (message.attempt < deps.maxAttempts) {'),
  delivery('a handler that failed is settled as done', "  if ('error' in result) {\n    const message = describeError", "  if (false as boolean) {\n    const message = describeError"),
  deliveryWake('a wake before the sleep is lost', '    if (this.woken) {\n      this.woken = false;', '    if (false as boolean) {\n      this.woken = false;'),
  deliveryWake('a wake during the sleep does not cut it', '    if (this.cut) this.cut();\n    else this.woken = true;', '    this.woken = true;'),
  webhook('webhook events without a webhook are accepted', "  if (url === undefined || url === null) {\n    return events", "  if (url === undefined) {\n    return events"),
  webhook('the chosen webhook events are ignored', '  if (events !== undefined && events !== null) {', '  if (false as boolean) {'),
  relay('a status event is taken for progress', "    if (event.type === 'status') {", '    if (false as boolean) {'),
  relay('a server event is taken for progress', "    if (event.type === 'server') {", '    if (false as boolean) {'),
  feed('live events of an open stream are held for ever', '      if (deliver) forward(event);\n      else held.push(event);', '      held.push(event);'),
  slot('an engine without reservations is asked for one', '    if (!engine.reserve) return null;\n', ''),
  create('invalid template fields are created', '    if (!checked.ok) return checked;\n    const fields = checked.value;', '    const fields = checked.value!;'),
  create("the fleet's refusal of a workflow is ignored", '    if (!fleet.ok) return fleet;\n', ''),
  create('a name taken between the check and the insert is reported created', '      if (!(await tx.templates.create(template))) return false;', '      await tx.templates.create(template);'),
  apiKey("a key's expiry is not checked", '  if (input.expiresAt !== undefined && input.expiresAt !== null) {', '  if (false as boolean) {'),
  chat('a failed answer is answered as given', '      if (!outcome.ok) {\n        return outcome.reason', '      if (false as boolean) {\n        return outcome.reason'),
  adminLists("a bad page of a user's transactions is listed", '    if (!request.ok) return request;\n', ''),
  auditList('a bad page of the audit log is listed', '    if (!request.ok) return request;\n', ''),
  request('the privacy of a publication is not read', '  if (value.privacy !== undefined) {', '  if (false as boolean) {'),
  queries('the outputs of a job past its first are lost', '      if (list) list.push(item);\n      else byJob.set(item.jobId, [item]);', '      byJob.set(item.jobId, [item]);'),
  events("a user's counter bumped in the transaction is bumped again by the upsert", '    if (bumped) return Number(bumped.seq);\n', ''),
  origin('a page of a foreign origin drives the stand-in on a loopback host', '  if (await isForeignOrigin(req.headers.host, req.headers.origin)) {', '  if (false as boolean) {'),
  v2('a fresh event stream of a queued job shows no queue position', "      if (since === undefined && feed.job.status === 'queued') {", '      if (false as boolean) {'),
];
