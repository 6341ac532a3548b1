import { entriesOn, type Mutation } from '../mutation.ts';

/**
 * The third guard sweep (2026-12-07): 183 `npm run mutation:unlisted` lines, deleted once each: the webhook address
 * check and sender, the webhook log, deliveries and secrets, API key scopes and the token cache, the log's redaction,
 * cookies, idempotency, the coin ledger, admin and file routes, password hashing, social tokens and publications,
 * templates (deletion, revision, test runs, ready templates, versions), the socket gateway, the worker's run of a job,
 * the workflow graph, object_info checks, ComfyUI outputs, server fit and queue estimates, the social platforms'
 * resumable uploads, local storage, repositories, domain helpers, configuration, the builtin engine (its threads,
 * nodes and APNG reader) and the protocol stand-in. 90 were caught by tests that existed (one by a file the first run
 * had not named); 18 that no test caught got one, each seen red with its guard deleted (two of them loops on I/O that
 * a timer now ends: a claim that loses its key, an APNG read past its end). Also here: the two guards the last sweep
 * left because they fail by hanging (three entries), now failing an assertion (the pool's wait runs in a worker
 * thread with the deadline in the test's own thread; the SQS expiry timer is watched through the global timers), and
 * the new guard of ADR 060 (only a unique key is a duplicate on SQLite).
 *
 * Not listed, with the reason: equivalent (a check that a later one repeats, such as an id that is not a UUID then
 * finding no row, or a node's input type that the prompt check already refused; a branch whose two sides give the
 * same outcome; a query, a timer or a lookup saved; a message text only), logging only, an invariant that throws on a
 * bug, or reachable only in a race (a socket that closes or a server that stops between two lines of one upgrade, a
 * folder pruned between mkdir and open).
 */
const sqs = entriesOn('guard sweep 3', 'adapters/sqs/sqs-message-queue.ts', ['tests/integration/sqs-queue-guards.test.ts']);
const poolThread = entriesOn('guard sweep 3', 'adapters/comfyui/comfy-pool.ts', ['tests/unit/comfy-pool-yields.test.ts']);
const secrets = entriesOn('guard sweep 3', 'core/use-cases/webhooks/webhook-secrets.service.ts', ['tests/integration/webhook-secret.test.ts']);
const deliver = entriesOn('guard sweep 3', 'core/use-cases/webhooks/deliver-webhooks.use-case.ts', ['tests/integration/webhook-deliveries.test.ts']);
const cookies = entriesOn('guard sweep 3', 'adapters/http/cookies.ts', ['tests/integration/auth.test.ts']);
const graph = entriesOn('guard sweep 3', 'core/domain/workflow-graph.ts', ['tests/unit/workflow-graph.test.ts']);
const outputs = entriesOn('guard sweep 3', 'adapters/comfyui/comfy-outputs.ts', ['tests/unit/comfy-outputs.test.ts']);
const fit = entriesOn('guard sweep 3', 'core/use-cases/generation/server-fit.service.ts', ['tests/unit/queue-estimates-servers.test.ts']);
const scrypt = entriesOn('guard sweep 3', 'adapters/crypto/scrypt-password-hasher.ts', ['tests/unit/scrypt-password-hasher.test.ts']);
const webhookAddress = entriesOn('guard sweep 3', 'core/domain/webhook-address.ts', ['tests/unit/webhook-address.test.ts']);
const httpWebhookSender = entriesOn('guard sweep 3', 'adapters/webhook/http-webhook-sender.ts', ['tests/integration/webhook-sender.test.ts']);
const webhookDeliveryLog = entriesOn('guard sweep 3', 'core/use-cases/webhooks/webhook-delivery-log.service.ts', ['tests/unit/admin-jobs-and-webhook-log.test.ts']);
const apiRouter = entriesOn('guard sweep 3', 'adapters/http/api-router.ts', ['tests/integration/http-app-guards.test.ts']);
const apiKeyScopes = entriesOn('guard sweep 3', 'adapters/http/api-key-scopes.ts', ['tests/integration/api-keys.test.ts']);
const jwtTokenIssuer = entriesOn('guard sweep 3', 'adapters/crypto/jwt-token-issuer.ts', ['tests/unit/jwt-token-issuer.test.ts']);
const jsonLogger = entriesOn('guard sweep 3', 'adapters/logging/json-logger.ts', ['tests/unit/config-audit-runtime.test.ts']);
const memIdempotencyStore = entriesOn('guard sweep 3', 'adapters/memory/memory-idempotency-store.ts', ['tests/contract/idempotency-store.test.ts']);
const sqlCoinLedger = entriesOn('guard sweep 3', 'adapters/sequelize/sequelize-coin-ledger.ts', ['tests/contract/coin-ledger.test.ts']);
const deleteTemplate = entriesOn('guard sweep 3', 'core/use-cases/templates/delete-template.use-case.ts', ['tests/unit/templates-use-cases.test.ts']);
const upgradeRequest = entriesOn('guard sweep 3', 'adapters/ws/upgrade-request.ts', ['tests/unit/upgrade-request.test.ts']);
const runGeneration = entriesOn('guard sweep 3', 'core/use-cases/generation/run-generation.use-case.ts', ['tests/unit/generation.test.ts']);
const templateRevision = entriesOn('guard sweep 3', 'core/domain/template-revision.ts', ['tests/unit/templates-use-cases.test.ts']);
const startTestRun = entriesOn('guard sweep 3', 'core/use-cases/templates/start-test-run.use-case.ts', ['tests/integration/template-test-runs.test.ts']);
const objectInfo = entriesOn('guard sweep 3', 'core/domain/object-info.ts', ['tests/unit/object-info.test.ts']);
const objectInfo2 = entriesOn('guard sweep 3', 'core/domain/object-info.ts', ['tests/unit/object-info-rules.test.ts']);
const wsGateway = entriesOn('guard sweep 3', 'adapters/ws/ws-gateway.ts', ['tests/unit/events-ws-gateway.test.ts']);
const sqlIdempotencyStore = entriesOn('guard sweep 3', 'adapters/sequelize/sequelize-idempotency-store.ts', ['tests/contract/idempotency-store.test.ts']);
const aws = entriesOn('guard sweep 3', 'bootstrap/config/aws.ts', ['tests/unit/config.test.ts']);
const server = entriesOn('guard sweep 3', 'bootstrap/config/server.ts', ['tests/unit/config.test.ts']);
const sqlStagedOutputs = entriesOn('guard sweep 3', 'adapters/sequelize/sequelize-staged-outputs.ts', ['tests/contract/staged-outputs.test.ts']);
const tiktokPlatform = entriesOn('guard sweep 3', 'adapters/social/tiktok-platform.ts', ['tests/unit/social-platform-guards.test.ts']);
const tiktokPlatform2 = entriesOn('guard sweep 3', 'adapters/social/tiktok-platform.ts', ['tests/integration/publish-faults.test.ts']);
const tiktokPlatform3 = entriesOn('guard sweep 3', 'adapters/social/tiktok-platform.ts', ['tests/unit/tiktok-chunks.test.ts']);
const youtubePlatform = entriesOn('guard sweep 3', 'adapters/social/youtube-platform.ts', ['tests/unit/social-platform-guards.test.ts']);
const localObjectStorage = entriesOn('guard sweep 3', 'adapters/local-storage/local-object-storage.ts', ['tests/unit/local-object-storage.test.ts']);
const memTemplateRepository = entriesOn('guard sweep 3', 'adapters/memory/memory-template-repository.ts', ['tests/contract/template-repository.test.ts']);
const observability = entriesOn('guard sweep 3', 'bootstrap/config/observability.ts', ['tests/unit/observability-config.test.ts']);
const engine = entriesOn('guard sweep 3', 'bootstrap/config/engine.ts', ['tests/unit/config.test.ts']);
const network = entriesOn('guard sweep 3', 'bootstrap/config/network.ts', ['tests/unit/trust-proxy-config.test.ts']);
const sqlScope = entriesOn('guard sweep 3', 'adapters/sequelize/sql-scope.ts', ['tests/contract/staged-outputs.test.ts']);
const installReadyTemplates = entriesOn('guard sweep 3', 'core/use-cases/templates/install-ready-templates.use-case.ts', ['tests/unit/templates-use-cases.test.ts']);
const renderWorkflow = entriesOn('guard sweep 3', 'core/domain/render-workflow.ts', ['tests/unit/render-workflow-rules.test.ts']);
const assetReference = entriesOn('guard sweep 3', 'core/domain/asset-reference.ts', ['tests/unit/asset-reference.test.ts']);
const parameterPresets = entriesOn('guard sweep 3', 'core/domain/parameter-presets.ts', ['tests/unit/parameter-map.test.ts']);
const messages = entriesOn('guard sweep 3', 'core/domain/messages.ts', ['tests/unit/queue-messages.test.ts']);
const imageType = entriesOn('guard sweep 3', 'core/domain/image-type.ts', ['tests/unit/image-type.test.ts']);
const fitChoices = entriesOn('guard sweep 3', 'core/domain/fit-choices.ts', ['tests/unit/fit-choices.test.ts']);
const runEstimate = entriesOn('guard sweep 3', 'core/domain/run-estimate.ts', ['tests/unit/remaining-time.test.ts']);
const queueEstimates = entriesOn('guard sweep 3', 'core/use-cases/generation/queue-estimates.service.ts', ['tests/unit/queue-estimates-servers.test.ts']);
const jobPayment = entriesOn('guard sweep 3', 'core/use-cases/coins/job-payment.service.ts', ['tests/unit/job-metrics.test.ts']);
const prepareGeneration = entriesOn('guard sweep 3', 'core/use-cases/generation/prepare-generation.service.ts', ['tests/unit/prepare-generation.test.ts']);
const manageApiKeys = entriesOn('guard sweep 3', 'core/use-cases/api-keys/manage-api-keys.use-case.ts', ['tests/unit/api-keys.test.ts']);
const publishTemplate = entriesOn('guard sweep 3', 'core/use-cases/templates/publish-template.use-case.ts', ['tests/unit/templates-use-cases.test.ts']);
const fleetCheck = entriesOn('guard sweep 3', 'core/use-cases/templates/fleet-check.service.ts', ['tests/unit/template-fleet.test.ts']);
const getTemplateVersion = entriesOn('guard sweep 3', 'core/use-cases/templates/get-template-version.use-case.ts', ['tests/unit/get-template-version.test.ts']);
const listTemplates = entriesOn('guard sweep 3', 'core/use-cases/templates/list-templates.use-case.ts', ['tests/unit/templates-use-cases.test.ts']);
const storeUpload = entriesOn('guard sweep 3', 'core/use-cases/uploads/store-upload.use-case.ts', ['tests/unit/uploads.test.ts']);
const sqlJobRepository = entriesOn('guard sweep 3', 'adapters/sequelize/sequelize-job-repository.ts', ['tests/contract/job-repository.test.ts']);
const sqlSocialConnectionRepository = entriesOn('guard sweep 3', 'adapters/sequelize/sequelize-social-connection-repository.ts', ['tests/contract/social-connection-repository.test.ts']);
const sqlQueueConsumer = entriesOn('guard sweep 3', 'adapters/sequelize/sequelize-queue-consumer.ts', ['tests/integration/db-queue-consumer-guards.test.ts']);
const localUrlSigner = entriesOn('guard sweep 3', 'adapters/local-storage/local-url-signer.ts', ['tests/unit/local-object-storage.test.ts']);
const listTestRuns = entriesOn('guard sweep 3', 'core/use-cases/templates/list-test-runs.use-case.ts', ['tests/integration/template-test-runs.test.ts']);
const contentHash = entriesOn('guard sweep 3', 'core/domain/content-hash.ts', ['tests/unit/asset-reference.test.ts']);
const apng = entriesOn('guard sweep 3', 'adapters/builtin-engine/apng.ts', ['tests/unit/apng.test.ts']);
const builtinEngine = entriesOn('guard sweep 3', 'adapters/builtin-engine/builtin-engine.ts', ['tests/unit/builtin-engine-guards.test.ts']);
const builtinEngine2 = entriesOn('guard sweep 3', 'adapters/builtin-engine/builtin-engine.ts', ['tests/unit/builtin-engine-audit.test.ts']);
const engineThread = entriesOn('guard sweep 3', 'adapters/builtin-engine/engine-thread.ts', ['tests/contract/workflow-engine.test.ts']);
const execute = entriesOn('guard sweep 3', 'adapters/builtin-engine/execute.ts', ['tests/unit/builtin-execute.test.ts']);
const execute2 = entriesOn('guard sweep 3', 'adapters/builtin-engine/execute.ts', ['tests/unit/builtin-nodes.test.ts']);
const utilityNodes = entriesOn('guard sweep 3', 'adapters/builtin-engine/nodes/utility-nodes.ts', ['tests/unit/builtin-node-guards.test.ts']);
const threadedBuiltinEngine = entriesOn('guard sweep 3', 'adapters/builtin-engine/threaded-builtin-engine.ts', ['tests/unit/engine-limits.test.ts']);
const historyStore = entriesOn('guard sweep 3', 'adapters/comfyui-protocol-server/history-store.ts', ['tests/unit/comfy-protocol-outputs.test.ts']);
const promptExecutor = entriesOn('guard sweep 3', 'adapters/comfyui-protocol-server/prompt-executor.ts', ['tests/integration/comfy-protocol-server.test.ts']);
const promptRoutes = entriesOn('guard sweep 3', 'adapters/comfyui-protocol-server/prompt-routes.ts', ['tests/integration/comfy-protocol-server.test.ts']);
const pyValues = entriesOn('guard sweep 3', 'adapters/comfyui-protocol-server/py-values.ts', ['tests/unit/comfy-py-values.test.ts']);
const viewVariants = entriesOn('guard sweep 3', 'adapters/comfyui-protocol-server/view-variants.ts', ['tests/unit/comfy-protocol-outputs.test.ts']);
const wsHub = entriesOn('guard sweep 3', 'adapters/comfyui-protocol-server/ws-hub.ts', ['tests/integration/comfy-protocol-socket.test.ts']);
const imageNodes = entriesOn('guard sweep 3', 'adapters/builtin-engine/nodes/image-nodes.ts', ['tests/unit/builtin-node-guards.test.ts']);

export const MUTATIONS: Mutation[] = [
  sqs(
    'a delivery dead-lettered past its attempts keeps its expiry timer',
    "        logger.warn('SQS message not dead-lettered; it will be delivered again', { messageId: delivery.message.MessageId, error: describeError(error) });\n      }\n      if (delivery.timer) clearTimeout(delivery.timer);",
    "        logger.warn('SQS message not dead-lettered; it will be delivered again', { messageId: delivery.message.MessageId, error: describeError(error) });\n      }",
  ),
  sqs('a settled delivery keeps its expiry timer', '    );\n    if (delivery.timer) clearTimeout(delivery.timer);\n  }', '    );\n  }'),
  poolThread('a job handed its slot does not see it and loops on', '        if (waiter.lease) {\n          handed = true;', '        if (false as boolean) {\n          handed = true;'),
  secrets(
    'a rotation that lost its write answers the secret it did not store',
    '      if (await this.deps.store.rotate(userId, current.secret, next, previousUntil, now)) {',
    '      if ((await this.deps.store.rotate(userId, current.secret, next, previousUntil, now)) || (true as boolean)) {',
  ),
  deliver(
    'an attempt whose claim ran out is counted and not logged',
    '    if (!(await this.deps.deliveries.record(delivery.id, this.deps.claimer, record))) {',
    '    if ((!(await this.deps.deliveries.record(delivery.id, this.deps.claimer, record))) && (false as boolean)) {',
  ),
  cookies('a login sends the middleware’s XSRF cookie and its own', '  if (Array.isArray(existing)) res.setHeader(', '  if (false as boolean) res.setHeader('),
  scrypt('a burst of hashes takes every thread of the pool', '  if (running >= MAX_CONCURRENT_HASHES) await new Promise', '  if (false as boolean) await new Promise'),
  graph('a node already checked is walked again on every path to it', '      } else if (state === WHITE) {', '      } else if (true as boolean) {'),
  outputs('an image is sized only once its whole file has passed', '        if (seen >= HEAD_BYTES) void sniff();', '        if (false as boolean) void sniff();'),
  fit('every read of a template’s fit takes the catalogue again and listens to it once more', '    if (this.nodes === null) {\n      this.nodes = this.deps.nodes();', '    if (true as boolean) {\n      this.nodes = this.deps.nodes();'),
  webhookAddress("an IPv6 address with an IPv4 tail (::ffff:127.0.0.1) is not read as an address", "  if (text.includes('.')) {", "  if ((text.includes('.')) && (false as boolean)) {"),
  httpWebhookSender("a redirect is reported as a plain HTTP failure, not as a redirect not followed", "    if (statusCode >= 300 && statusCode < 400) {", "    if (false as boolean) {"),
  httpWebhookSender("a lookup that asks for all addresses is answered with one, not a list", "          if (options.all) callback(null, [{ address: first.address, family: first.family }]);", "          if (false as boolean) callback(null, [{ address: first.address, family: first.family }]);"),
  webhookDeliveryLog("anyone lists the webhook deliveries of a job", "  async list(userId: string, jobId: string): Promise<Result<WebhookDelivery[]> | Fail> {\n    const owned = await this.owned(userId, jobId);\n    if (owned) return owned;", "  async list(userId: string, jobId: string): Promise<Result<WebhookDelivery[]> | Fail> {\n    const owned = await this.owned(userId, jobId);\n    if (false as boolean) return owned;"),
  webhookDeliveryLog("anyone redelivers a webhook of a job", "  async redeliver(userId: string, jobId: string, deliveryId: string): Promise<Result<WebhookDelivery> | Fail> {\n    const owned = await this.owned(userId, jobId);\n    if (owned) return owned;", "  async redeliver(userId: string, jobId: string, deliveryId: string): Promise<Result<WebhookDelivery> | Fail> {\n    const owned = await this.owned(userId, jobId);\n    if (false as boolean) return owned;"),
  apiRouter("a route without its own 403 text documents none", "  if (!own) return `Forbidden: ${missing.join('; ')}`;", "  if (false as boolean) return `Forbidden: ${missing.join('; ')}`;"),
  apiKeyScopes("an admin route does not ask for the admin scope of a key", "  if (route.auth === 'admin') return SESSION_ONLY_ADMIN_ROUTES.has(", "  if (false as boolean) return SESSION_ONLY_ADMIN_ROUTES.has("),
  jwtTokenIssuer("a remembered token is verified again every time", "    if (known) {", "    if (false as boolean) {"),
  jsonLogger("the log writes secrets", "    if (SECRET_KEYS.test(key)) clean[key] = '[redacted]';", "    if ((SECRET_KEYS.test(key)) && (false as boolean)) clean[key] = '[redacted]';"),
  memIdempotencyStore("the memory store completes a claim it does not hold", "    if (!record) return false;", "    if (false as boolean) return false;"),
  memIdempotencyStore("the memory store releases a claim for someone who does not hold it", "    if (this.mine(owner)) this.records.delete(slot(owner.userId, owner.key));", "    if ((this.mine(owner)) || (true as boolean)) this.records.delete(slot(owner.userId, owner.key));"),
  sqlCoinLedger("a refused deduction writes its ledger row anyway", "      if (balance === null) {", "      if (false as boolean) {"),
  deleteTemplate("a template that could not be deleted is reported deleted", "      if (!template || !(await tx.templates.softDelete(id, this.deps.clock.now()))) return false;", "      if ((!template || !(await tx.templates.softDelete(id, this.deps.clock.now()))) && (false as boolean)) return false;"),
  upgradeRequest("a socket upgrade without an Authorization header is read as one", "  if (!header) return null;", "  if (false as boolean) return null;"),
  runGeneration("a failed run is stored as a success", "      if (result.ok) {", "      if (true as boolean) {"),
  graph("the cycle check reads past a node's last input", "      if (frame.next >= frame.edges.length) {", "      if (false as boolean) {"),
  templateRevision("a required template field left out is not refused", "    if (value === undefined) {", "    if (false as boolean) {"),
  templateRevision("a template without a workflow is not refused", "  if (input['workflow'] === undefined) {", "  if (false as boolean) {"),
  templateRevision("a revision that leaves the map out checks the map anyway", "  if (input['parameter_map'] !== undefined) {", "  if (true as boolean) {"),
  startTestRun("a test run that cannot be prepared starts anyway", "    if (!prepared.ok) return prepared;", "    if (false as boolean) return prepared;"),
  objectInfo("a value of a string input is checked as a number", "    if (!options.some((o) => o === value)) add('value_not_in_list', `${show(value)} is not one of ${listText(options)}`);\n    return;\n  }\n  if (spec.type !== 'INT' && spec.type !== 'FLOAT') return;", "    if (!options.some((o) => o === value)) add('value_not_in_list', `${show(value)} is not one of ${listText(options)}`);\n    return;\n  }\n  if (false as boolean) return;"),
  objectInfo2("a parameter on a combo input is not checked against its list", "  if (item.type === 'image') return;\n  const options = comboOptions(spec);\n  if (options) {", "  if (item.type === 'image') return;\n  const options = comboOptions(spec);\n  if (false as boolean) {"),
  objectInfo2("a workflow that is no object is walked", "  if (!isPlainObject(workflow)) return problems;", "  if ((!isPlainObject(workflow)) && (false as boolean)) return problems;"),
  objectInfo2("a malformed node counts among a job's requirements", "    if (!isPlainObject(node) || typeof node['class_type'] !== 'string') continue;", "    if ((!isPlainObject(node) || typeof node['class_type'] !== 'string') && (false as boolean)) continue;"),
  objectInfo2("a loader input without a list counts as a model input", "      if (!options) continue;", "      if (false as boolean) continue;"),
  outputs("an image output's width is not recorded", "            if (meta.width) file.width = meta.width;", "            if (false as boolean) file.width = meta.width;"),
  outputs("an image output's height is not recorded", "            if (height) file.height = height;", "            if (false as boolean) file.height = height;"),

  wsGateway('live events held during a replay are held without bound', '        if (client.held.length >= HOLD_LIMIT) {', '        if (false as boolean) {'),
  sqlIdempotencyStore('a claim that loses to a held key tries its insert again forever', '      if (existing) return { claimed: false, existing };', '      if (false as boolean) return { claimed: false, existing };'),
  aws('one half of a static AWS key is not a problem', '  if (!accessKeyId || !secretAccessKey) {', '  if (false as boolean) {'),
  server('a ROLES that names no role is not a problem', '  if (roles.length === 0) read.problems.push', '  if (false as boolean) read.problems.push'),
  sqlStagedOutputs('a staging whose write fails for another reason passes for a duplicate', '      if (!isUniqueViolation(error)) throw error;', '      if (false as boolean) throw error;'),
  tiktokPlatform("TikTok: a saved post is not asked about before a new one starts", "    if (ref) {", "    if (false as boolean) {"),
  tiktokPlatform2("TikTok: a post whose file was sent is not waited for, and starts again", "        if (sent) return this.awaitPost(ref, request);", "        if (false as boolean) return this.awaitPost(ref, request);"),
  tiktokPlatform3("TikTok: a privacy TikTok has no level for is not refused", "    if (!privacy) throw new PlatformError('rejected', `TikTok has no ${request.privacy} posts`);", "    if (false as boolean) throw new PlatformError('rejected', `TikTok has no ${request.privacy} posts`);"),
  tiktokPlatform("TikTok: a privacy the account does not allow is not refused", "    if (!allowed.includes(privacy)) throw new PlatformError('rejected', `this TikTok account cannot post with privacy ${privacy} (it allows ${allowed.join(', ') || 'none'})`);", "    if ((!allowed.includes(privacy)) && (false as boolean)) throw new PlatformError('rejected', `this TikTok account cannot post with privacy ${privacy} (it allows ${allowed.join(', ') || 'none'})`);"),
  tiktokPlatform("TikTok: a finished post is not seen as finished", "    for (;;) {\n      const status = await this.status(ref, request);\n      if (status.kind === 'done') return { url: status.url };", "    for (;;) {\n      const status = await this.status(ref, request);\n      if (false as boolean) return { url: status.url };"),
  youtubePlatform("YouTube: a saved upload session is not asked where it stands", "      if (session) {", "      if (false as boolean) {"),
  youtubePlatform("YouTube: a saved session that finished the video is uploaded again", "        if (state.kind === 'done') return { url: state.url };", "        if (false as boolean) return { url: state.url };"),
  youtubePlatform("YouTube: an upload without a session does not start one", "      if (!session) {", "      if (false as boolean) {"),
  youtubePlatform("YouTube: a 308 is not read as an upload that goes on", "    if (response.status === 308) {", "    if (false as boolean) {"),
  localObjectStorage("local storage: a put refused at its last step leaves its sidecar", "    if (!isObject) await unlink(this.metaPath(target)).catch(() => undefined);", "    if (false as boolean) await unlink(this.metaPath(target)).catch(() => undefined);"),
  memTemplateRepository("memory templates: a taken name is created again", "    if (await this.nameTaken(template.name)) return false;", "    if ((await this.nameTaken(template.name)) && (false as boolean)) return false;"),
  memTemplateRepository("memory templates: an update with a new version records none", "    if (options.newVersion) {", "    if (false as boolean) {"),
  memTemplateRepository("memory templates: an update without a new version leaves the current version's cost", "      if (current) Object.assign(current, { category: next.category, cost: next.cost, outputType: next.outputType });", "      if (false as boolean) Object.assign(current, { category: next.category, cost: next.cost, outputType: next.outputType });"),
  memTemplateRepository("memory templates: a version of an unknown template is read", "    if (!template || !stored) return null;", "    if (false as boolean) return null;"),
  aws("no AWS key at all is a problem", "  if (!accessKeyId && !secretAccessKey) return {};", "  if (false as boolean) return {};"),
  observability("a short or spaced METRICS_TOKEN is not refused", "  if (token !== null && (token.length < TOKEN_MIN_LENGTH || /\\s/.test(token))) {", "  if ((token !== null && (token.length < TOKEN_MIN_LENGTH || /\\s/.test(token))) && (false as boolean)) {"),
  server("a ROLES entry other than api and worker is not refused", "    if (role !== 'api' && role !== 'worker') read.problems.push(`ROLES may contain only api and worker (got \"${role}\")`);", "    if (false as boolean) read.problems.push(`ROLES may contain only api and worker (got \"${role}\")`);"),
  engine("ENGINE_DRIVER=comfyui without COMFYUI_URLS is not refused", "    if (urls.length === 0) read.problems.push('COMFYUI_URLS is required when ENGINE_DRIVER=comfyui (one or more URLs, comma-separated)');", "    if (false as boolean) read.problems.push('COMFYUI_URLS is required when ENGINE_DRIVER=comfyui (one or more URLs, comma-separated)');"),
  network("a TRUST_PROXY Express would refuse is not a problem", "  if (!parsed.ok) read.problems.push(parsed.problem);", "  if (false as boolean) read.problems.push(parsed.problem);"),

  sqlScope('a NOT NULL failure on SQLite passes for a duplicate', "/UNIQUE constraint failed/.test(String(driver.message))", 'true'),
  installReadyTemplates('a ready template whose map does not fit its workflow is installed', '    if (!map.ok) return map;', '    if (false as boolean) return map;'),
  renderWorkflow("the first parameter mapped to a node finds no list of that node's inputs", "    if (!inputs) mappedByNode.set(item.node_id, (inputs = new Map()));", "    if (false as boolean) mappedByNode.set(item.node_id, (inputs = new Map()));"),
  assetReference("a value that is no asset reference is read as one", "      if (!isReference(value)) continue;", "      if ((!isReference(value)) && (false as boolean)) continue;"),
  assetReference("an asset reference without a UUID id is not a problem", "      if (!isUuid(id)) {", "      if ((!isUuid(id)) && (false as boolean)) {"),
  parameterPresets("the presets are frozen only at their top", "  if (typeof value === 'object' && value !== null) {", "  if (false as boolean) {"),
  messages("a publish body that is no object is read", "  if (typeof value !== 'object' || value === null) return null;", "  if (false as boolean) return null;"),
  imageType("a PNG is not known by its first bytes", "  if (startsWith(bytes, PNG)) return 'image/png';", "  if ((startsWith(bytes, PNG)) && (false as boolean)) return 'image/png';"),
  imageType("a JPEG is not known by its first bytes", "  if (startsWith(bytes, JPEG)) return 'image/jpeg';", "  if ((startsWith(bytes, JPEG)) && (false as boolean)) return 'image/jpeg';"),
  fitChoices("a template without enum parameters has fit choices", "  if (names.length === 0) return '';", "  if (false as boolean) return '';"),
  runEstimate("a median of no runs is read", "  if (values.length === 0) return null;", "  if (false as boolean) return null;"),
  queueEstimates("jobs that compete for the same servers are not grouped", "      if (!group) placed.push((group = { servers: mine, count: 0, ms: 0 }));", "      if (false as boolean) placed.push((group = { servers: mine, count: 0, ms: 0 }));"),
  queueEstimates("a template's servers are not looked up", "      if (!known.has(key)) known.set(key, fit.servers.of(templateId, fitChoices));", "      if ((!known.has(key)) && (false as boolean)) known.set(key, fit.servers.of(templateId, fitChoices));"),
  jobPayment("a charge is not counted in the coin metrics", "    if (row.amount < 0) tx.afterCommit(() => this.metrics.coinsCharged(-row.amount, row.reason));", "    if (false as boolean) tx.afterCommit(() => this.metrics.coinsCharged(-row.amount, row.reason));"),
  prepareGeneration("a job that names a template is run as a raw workflow", "    if (templateId !== undefined) {", "    if (false as boolean) {"),
  manageApiKeys("a revoked API key is not audited", "      if (key) {", "      if (false as boolean) {"),
  publishTemplate("a template with an incomplete map is published", "        if (!complete.ok) return complete;", "        if (false as boolean) return complete;"),
  fleetCheck("a template one server can run is refused", "  if (runnable) return { ok: true, problems };", "  if (false as boolean) return { ok: true, problems };"),
  installReadyTemplates("a ready template this server rejects is installed", "    if (!fields.ok) return fields;", "    if (false as boolean) return fields;"),
  getTemplateVersion("an unknown version number is read", "    if (version === undefined) {", "    if (false as boolean) {"),
  listTemplates("without a node catalogue the template list reads one", "    if (!this.deps.nodes) return ok(templates);", "    if (false as boolean) return ok(templates);"),
  storeUpload("an upload given as bytes is read as a stream", "  if (body instanceof Uint8Array) {", "  if (false as boolean) {"),
  sqlJobRepository("a list of no statuses runs an empty IN", "    if (statuses.length === 0) return pageOf([], request, 0);", "    if (false as boolean) return pageOf([], request, 0);"),
  sqlJobRepository("a transition from no allowed status runs an empty IN", "    if (sources.length === 0) return false;", "    if (false as boolean) return false;"),
  sqlSocialConnectionRepository("the removal of a connection already gone answers tokens", "      if (!row) return null;", "      if (false as boolean) return null;"),
  sqlQueueConsumer("a database-queue message settled for a retry is not delayed", "    } else if (settlement.kind === 'delay') {", "    } else if (false as boolean) {"),
  localUrlSigner("a signed URL's type is left out of its query", "    if (type) query.set('type', type);", "    if (false as boolean) query.set('type', type);"),

  listTestRuns('the test runs of an unknown template are read', "    if (!template) return fail('NOT_FOUND', 'No such template');", "    if (false as boolean) return fail('NOT_FOUND', 'No such template');"),
  contentHash('a content hash that is no string is read as one', "  if (typeof value !== 'string') return null;", '  if (false as boolean) return null;'),
  apng("an APNG's frame count is not read from acTL", "      if (type === 'acTL' && bytesRead >= 12) frames = head.readUInt32BE(8);", "      if (false as boolean) frames = head.readUInt32BE(8);"),
  builtinEngine("the builtin engine reads the files of a node that showed none", "      if (!ui) continue;", "      if (false as boolean) continue;"),
  builtinEngine2("the builtin engine's image outputs are not sized", "    if (mimeType.startsWith('image/')) {", "    if ((mimeType.startsWith('image/')) && (false as boolean)) {"),
  engineThread("an engine thread does not hear an interrupt", "  if (message.type === 'interrupt') {", "  if (false as boolean) {"),
  execute("a linked input is taken as a literal", "        if (isLinkValue(val)) {", "        if ((isLinkValue(val)) && (false as boolean)) {"),
  execute2("an interrupt inside a node is reported as a node failure", "      if (ex instanceof InterruptedError) {", "      if (false as boolean) {"),
  utilityNodes("PreviewAny prints a number as an object", "  if (typeof v === 'number') {", "  if (false as boolean) {"),
  threadedBuiltinEngine("a worker’s engine starts no thread ahead of its first job", "    if (options.prewarm) {", "    if (false as boolean) {"),
  threadedBuiltinEngine("a thread that died while idle stays in the idle list", "    if (at >= 0) this.idle.splice(at, 1);", "    if (false as boolean) this.idle.splice(at, 1);"),
  historyStore("the stand-in's history keeps every entry past its cap", "      if (!oldest.done) this.entries.delete(oldest.value);", "      if (false as boolean) this.entries.delete(oldest.value);"),
  historyStore("the stand-in's history window ignores its offset", "      if (i >= start) {", "      if (false as boolean) {"),
  promptExecutor("the stand-in's executor takes a prompt from an empty queue", "      if (!item) return;", "      if (false as boolean) return;"),
  promptRoutes("the stand-in's POST /queue ignores delete", "    if (pyIn('clear', json) && pyTruthy((json as Record<string, unknown>)['clear'])) deps.queue.wipe();\n    if (pyIn('delete', json)) {", "    if (pyIn('clear', json) && pyTruthy((json as Record<string, unknown>)['clear'])) deps.queue.wipe();\n    if ((pyIn('delete', json)) && (false as boolean)) {"),
  promptRoutes("the stand-in's POST /history ignores delete", "    if (pyIn('clear', json) && pyTruthy((json as Record<string, unknown>)['clear'])) deps.history.clear();\n    if (pyIn('delete', json)) {", "    if (pyIn('clear', json) && pyTruthy((json as Record<string, unknown>)['clear'])) deps.history.clear();\n    if ((pyIn('delete', json)) && (false as boolean)) {"),
  pyValues("pyFloat refuses the strings Python's float() reads", "  if (typeof value === 'string') {", "  if (false as boolean) {"),
  pyValues("pyIn does not look up the keys of a dict", "  if (isPlainObject(container)) return Object.hasOwn(container, key);", "  if ((isPlainObject(container)) && (false as boolean)) return Object.hasOwn(container, key);"),
  viewVariants("the stand-in's /view ignores preview", "  if (preview !== null) {", "  if (false as boolean) {"),
  wsHub("the stand-in tells a socket with a sid nothing of the running prompt", "    } else if (typeof sid === 'string') {", "    } else if (false as boolean) {"),

  imageNodes('ImageBlend blends an image2 of another size unscaled', '      if (fa.width !== fb.width || fa.height !== fb.height) {', '      if (false as boolean) {'),
  threadedBuiltinEngine('a closed threaded engine starts a thread for a new run', '    if (this.closed) return shuttingDown;', '    if (false as boolean) return shuttingDown;'),
  threadedBuiltinEngine('every run of the threaded engine starts a thread of its own', '      if (reusable && !this.closed && this.idle.length < (this.options.keepIdle ?? 2)) {', '      if (false as boolean) {'),
  apng('the APNG duration reads on past the end of a file cut short', '      if (bytesRead < 8) break;', '      if (false as boolean) break;'),
];
