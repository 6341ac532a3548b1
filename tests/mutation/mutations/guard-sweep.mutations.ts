import { entriesOn, type Mutation } from '../mutation.ts';

/**
 * Guards no entry named, found with `npm run mutation:unlisted` (every `if` under core/, adapters/ and bootstrap/ that no
 * find covers) on 2026-12-06: the money and job paths first, then the socket gateway, webhook addresses, password
 * policy, workflow rendering, template revision, API keys, the memory of verified tokens, OIDC linking, registration
 * and uploads, the workflow graph and the object_info check. Each was deleted once. Those no test caught got a test: a gone account costs no transaction; a response
 * stored with its change is not written again; an interrupt while the attempt holds the job is retried; an upload that
 * lost its job commits nothing; a duplicate output name fails the completion; a stored file gone before its facts are
 * read says so; a failure of what joins the submit is thrown as itself; a job refunded after the reconciler listed it
 * is not reported; a sync without since reads no stored events; an asset reference without an id is refused by name;
 * letters two apart are no sequence; equal lists are equal; a text that cannot be a key is refused unread; digests of
 * other lengths differ; a verified token is checked once and at most 10,000 are remembered; another user's upload is
 * NOT_FOUND for a link and a delete; a malformed upload id is refused unread. Three guards of webhook-address.ts are not
 * listed: deleting them breaks the table of ranges built at load, so the module (and the service) cannot start.
 */
const COINS = ['tests/unit/coins.test.ts'];
const deduct = entriesOn('guard sweep', 'core/use-cases/coins/deduct-coins.use-case.ts', COINS);
const adjust = entriesOn('guard sweep', 'core/use-cases/coins/admin-adjust-coins.use-case.ts', COINS);
const idempotency = entriesOn('guard sweep', 'adapters/http/idempotency.ts', ['tests/unit/idempotent-responder.test.ts']);
const lifecycle = entriesOn('guard sweep', 'core/use-cases/generation/job-lifecycle.service.ts', ['tests/unit/reconcile-jobs.test.ts', 'tests/unit/store-outputs.test.ts']);
const run = entriesOn('guard sweep', 'core/use-cases/generation/run-generation.use-case.ts', ['tests/unit/engine-cancelled.test.ts']);
const store = entriesOn('guard sweep', 'core/use-cases/generation/store-outputs.service.ts', ['tests/unit/store-outputs.test.ts']);
const submit = entriesOn('guard sweep', 'core/use-cases/generation/submit-generation.use-case.ts', ['tests/unit/generation.test.ts', 'tests/integration/jobs-guards.test.ts']);
const cancel = entriesOn('guard sweep', 'core/use-cases/generation/cancel-generation.use-case.ts', ['tests/unit/generation.test.ts']);
const reconcile = entriesOn('guard sweep', 'core/use-cases/generation/reconcile-jobs.use-case.ts', ['tests/unit/reconcile-jobs.test.ts', 'tests/integration/jobs-guards.test.ts']);
const pw = entriesOn('guard sweep', 'core/domain/password-policy.ts', ['tests/unit/password-policy.test.ts']);
const render = entriesOn('guard sweep', 'core/domain/render-workflow.ts', ['tests/unit/render-workflow.test.ts', 'tests/unit/render-workflow-rules.test.ts']);
const rev = entriesOn('guard sweep', 'core/domain/template-revision.ts', ['tests/unit/templates-use-cases.test.ts', 'tests/unit/core-use-case-audit.test.ts', 'tests/unit/backend-audit.test.ts', 'tests/unit/unexamined-audit.test.ts']);
const ws = entriesOn('guard sweep', 'adapters/ws/ws-gateway.ts', ['tests/integration/ws-audit.test.ts', 'tests/integration/websocket.test.ts']);
const address = entriesOn('guard sweep', 'core/domain/webhook-address.ts', ['tests/unit/webhook-address.test.ts']);
const prepare = entriesOn('guard sweep', 'core/use-cases/generation/prepare-generation.service.ts', ['tests/unit/prepare-generation.test.ts']);
const apiKey = entriesOn('guard sweep', 'core/domain/api-key.ts', ['tests/unit/api-keys.test.ts']);
const apiKeyAuth = entriesOn('guard sweep', 'core/use-cases/api-keys/authenticate-api-key.use-case.ts', ['tests/unit/api-keys.test.ts']);
const jwt = entriesOn('guard sweep', 'adapters/crypto/jwt-token-issuer.ts', ['tests/unit/jwt-token-issuer.test.ts']);
const socketAuth = entriesOn('guard sweep', 'core/use-cases/api-keys/authenticate-socket.use-case.ts', ['tests/integration/api-keys.test.ts']);
const oidc = entriesOn('guard sweep', 'core/use-cases/auth/complete-oidc-login.use-case.ts', ['tests/unit/complete-oidc-login-guards.test.ts']);
const register = entriesOn('guard sweep', 'core/use-cases/auth/register-user.use-case.ts', ['tests/integration/auth.test.ts']);
const assets = entriesOn('guard sweep', 'core/use-cases/uploads/upload-assets.use-case.ts', ['tests/unit/upload-assets.test.ts']);
const storeUpload = entriesOn('guard sweep', 'core/use-cases/uploads/store-upload.use-case.ts', ['tests/unit/uploads.test.ts']);
const getUpload = entriesOn('guard sweep', 'core/use-cases/uploads/get-upload-for-user.use-case.ts', ['tests/unit/upload-assets.test.ts']);
const graph = entriesOn('guard sweep', 'core/domain/workflow-graph.ts', ['tests/unit/workflow-graph.test.ts']);
const objectInfo = entriesOn('guard sweep', 'core/domain/object-info.ts', ['tests/unit/object-info.test.ts', 'tests/unit/object-info-rules.test.ts']);
const adminCancel = entriesOn('guard sweep', 'core/use-cases/admin/admin-cancel-job.use-case.ts', ['tests/integration/admin-console.test.ts']);

export const MUTATIONS: Mutation[] = [
  deduct('a deduction without an amount is not told so', "  if (input.amount === undefined) problems.push({ field: 'amount', message: 'is required' });\n  else if", '  if'),
  deduct('a deduction without a reason is not told so', "  if (input.reason === undefined) problems.push({ field: 'reason', message: 'is required' });\n  else if", '  if'),
  deduct('a deduction with problems goes on', '  if (problems.length > 0) return validationFailed(problems);\n  // A request id', '  // A request id'),
  deduct('a gone account begins a write transaction', "    if (!user) return fail('AUTH.UNAUTHENTICATED', 'The account no longer exists');\n    const now", '    const now'),
  deduct('a refused deduction answers as if it had been taken', '      if (!applied.ok) {', '      if (false as boolean) {'),
  deduct('too few coins is told as a gone account', "applied.reason === 'insufficient'\n", 'false\n'),
  adjust('an adjustment of a gone account begins a write transaction', "    if (!user) return fail('NOT_FOUND', 'User not found');\n", ''),
  idempotency('a request without a key is claimed', '    if (key === undefined) return send(res, await produce(() => undefined));\n', ''),
  idempotency('a stored response is not replayed', "    if ('replay' in claimed) {", '    if (false as boolean) {'),
  idempotency('a claim lost to another request is a 500, not 409', '      if (error instanceof ClaimLost) return failureResponse', '      if (false) return failureResponse'),
  idempotency('a won claim is not run', '        if (outcome.claimed) return { claim };\n', ''),
  idempotency('an abandoned claim taken over is not run', '        if (await store.replace(existing, claim)) return { claim };', '        await store.replace(existing, claim);'),
  idempotency('a 5xx handed to commitWith is stored with the change', '      if (!rememberResponse(response)) return;\n', ''),
  idempotency('a response stored with the change is completed and released again', '    if (stored) return response;\n', ''),
  lifecycle('a failed ending is told as cancelled', "    if (ending.to === 'failed') {\n      const { code, message, nodeId }", "    if (false as boolean) {\n      const { code, message, nodeId }"),
  lifecycle('an output name the job already has is skipped', '      if (!(await tx.history.add(item))) throw new Error(`output ${item.fileName} of job ${job.id} is already recorded`);', '      await tx.history.add(item);'),
  run('an interrupt while the attempt holds the job fails it', "    if (result.error.code === 'ENGINE.INTERRUPTED') return this.interrupted(attempt, lost);\n", ''),
  store('an upload that lost its job commits its ack', '      if (!(await this.deps.lifecycle.succeed(tx, job, runId, items, views, textOutputs))) return false;', '      await this.deps.lifecycle.succeed(tx, job, runId, items, views, textOutputs);'),
  store('a stored file gone before its facts are read is not named', '      if (!stored) throw new Error(`stored output ${key} is gone`);\n', ''),
  submit('a failure of what joins the submit is taken for a duplicate request', '      if (!(error instanceof Rejected)) throw error;\n', ''),
  submit('the active-job cap is not told as such', "      if (error.outcome === 'busy') {", '      if (false as boolean) {'),
  cancel("another user's job is cancelled", "    if (!job) return fail('NOT_FOUND', 'No such job');\n    return cancelJob(this.deps, job);", '    return cancelJob(this.deps, job!);'),
  adminCancel('an unknown job is not 404 for an administrator', "    if (!job) return fail('NOT_FOUND', 'No such job');\n", "    if (!job) throw new Error('x');\n"),
  reconcile('a stalled job another attempt took over is reported abandoned', '      if (outcome.ended) {\n        report.abandoned.push', '      if (true as boolean) {\n        report.abandoned.push'),
  reconcile('a job refunded after it was listed is reported refunded', '      if (refunded > 0) {\n        report.refunded.push', '      if (true as boolean) {\n        report.refunded.push'),
  pw('letters two apart are refused as a sequence', '  if (step !== 1 && step !== -1) return false;\n', ''),
  pw('a repeated unit is not refused', '    if (repeats) return true;\n', ''),
  pw('a whitespace-only password is told as repetitive', "  if (password.trim().length === 0) return 'must not be only whitespace';\n", ''),
  pw('a breached password is accepted', "  if (isCommonPassword(password, common)) return 'is too common (it appears in lists of breached passwords)';\n", ''),
  render("an unsupplied seed keeps the template's literal", "      } else if (item.type === 'seed') value = RANDOM_SEED;\n", '      }\n'),
  render('two equal lists are told apart', '  if (Array.isArray(a)) {\n    if (!Array.isArray(b)', '  if (false as boolean) {\n    if (!Array.isArray(b)'),
  render('two equal objects are told apart', '  if (isPlainObject(a) && isPlainObject(b)) {\n    const keys', '  if (false as boolean) {\n    const keys'),
  render("a parameter's input must equal the template's", '      if (mapped?.has(name)) {\n        if (isLink', '      if (false as boolean) {\n        if (isLink'),
  rev('a required field left out is not reported', "      if (required.includes(name)) problems.push({ field: name, message: 'is required' });\n", ''),
  rev('a valid field is dropped', '    if (checked.ok) fields[name] = checked.value;\n    else', '    if (false as boolean) fields[name] = checked.value;\n    else'),
  rev('a new template without a workflow is not told so', "    if (required.length > 0) problems.push({ field: 'workflow', message: 'is required' });\n", ''),
  rev('a valid workflow is dropped', '    if (graph.ok) fields.workflow = graph.value;\n', '    if (false as boolean) fields.workflow = graph.value;\n'),
  rev('a new template with bad fields is created', '  const checked = checkFields(input, rules, REQUIRED_ON_CREATE);\n  if (!checked.ok) return checked;', '  const checked = checkFields(input, rules, REQUIRED_ON_CREATE);'),
  rev('a patch with bad fields is applied', '  const checked = checkFields(input, rules, []);\n  if (!checked.ok) return checked;', '  const checked = checkFields(input, rules, []);'),
  rev('a changed parameter map is not applied', '    if (mapChanged) next.parameterMap = map.value;\n', ''),
  ws('an in-band auth message is refused as unknown', "    if (message.type === 'auth') return void this.reauthenticate(client, message.token);\n", ''),
  ws('a sync without since reads the event store', '    if (since !== undefined) {\n      client.lastSeq = since;', '    if (true as boolean) {\n      client.lastSeq = since!;'),
  ws('a live event that comes during a replay is sent before the replay ends', '      } else if (client.held === null) {', '      } else if (true as boolean) {'),
  address('a zone id (fe80::1%eth0) makes an address unreadable', '  if (zone >= 0) text = text.slice(0, zone);\n', ''),
  address('an IPv4-mapped address with a bad IPv4 tail is read as ::ffff:0.0.0.0', '    if (v4 === null) return null;\n', '    if (v4 === null) return 0n;\n'),
  address('a host name is read as the address ::', '  if (v6 === null) return null;\n', '  if (v6 === null) return { family: 6, value: 0n };\n'),
  address('a host name is classified as public', "  const address = parseAddress(text);\n  if (!address) return null;\n  return SPECIAL", "  const address = parseAddress(text);\n  if (!address) return 'public';\n  return SPECIAL"),
  address('a CIDR of a host name is read as 0.0.0.0', '  const address = parseAddress(addressText);\n  if (!address) return null;', '  const address = parseAddress(addressText) ?? { family: 4 as const, value: 0n };'),
  prepare('a refused request is checked against the resource limits', '    if (!prepared.ok) return prepared;\n    const problems = checkResourceLimits', '    const problems = checkResourceLimits'),
  prepare('an asset reference without an asset id is let through', '    if (taken && taken.problems.length > 0) return missingAsset(taken.problems);\n', ''),
  prepare('an unknown template id is not refused', "      if (!template) return validationFailed([{ field: 'templateId', message: 'no active template with this id' }]);\n", ''),
  prepare('a raw workflow that is a run of a template is not run as it', '      if (rendered.ok) return this.fromTemplate(request.userId, template, rendered, graphOptions, assets);\n', ''),
  prepare('a refused render goes on', '    if (!rendered.ok) return rendered;\n    const isAsset', '    const isAsset'),
  apiKey('a key too short to hold a secret gets a prefix', '  if (!isApiKeyText(key) || key.length < API_KEY_MARK.length + PREFIX_LENGTH + 32) return null;', '  if (!isApiKeyText(key)) return null;'),
  apiKey('digests of different lengths are compared (the empty one equals any)', '  if (a.length !== b.length) return false;\n', ''),
  apiKeyAuth('a text that cannot be a key is looked up', "    if (!prefix) return refused('API key is invalid');\n", ''),
  jwt('a remembered token never expires', '      if (nowSeconds < known.expiresAt.getTime() / 1000) return known;', '      return known;'),
  jwt('a verified token is not remembered (its signature checked on every request)', '    if (claims) {\n      if (this.verified.size', '    if (false as boolean) {\n      if (this.verified.size'),
  jwt('the memory of verified tokens grows without bound', '      if (this.verified.size >= VERIFIED_MAX) this.verified.delete(this.verified.keys().next().value!);\n', ''),
  socketAuth('an API key on the socket is read as an access token', '    if (!isApiKeyText(token)) return this.deps.tokens.execute(token);', '    if (true as boolean) return this.deps.tokens.execute(token);'),
  oidc('a verified email of an existing account is not linked to it', '    if (owner) {\n      // A password', '    if (false as boolean) {\n      // A password'),
  register('registration problems are ignored', '  if (problems.length > 0) return validationFailed(problems);\n  return ok({ email: normalizeEmail', '  return ok({ email: normalizeEmail'),
  register('an invalid registration goes on', '    const checked = checkRegistration(input, this.deps.commonPasswords);\n    if (!checked.ok) return checked;', '    const checked = checkRegistration(input, this.deps.commonPasswords);'),
  register('a taken email is not 409', '    if (!created) {\n      await reserved.release();', '    if (false as boolean) {\n      await reserved.release();'),
  assets("a download link for another user's upload is not NOT_FOUND", "    const upload = isUuid(input.uploadId) ? await this.deps.uploads.findForUser(input.uploadId.toLowerCase(), input.userId) : null;\n    if (!upload) return fail('NOT_FOUND', 'No such asset');", "    const upload = isUuid(input.uploadId) ? await this.deps.uploads.findForUser(input.uploadId.toLowerCase(), input.userId) : null;"),
  assets("a delete of another user's upload is not NOT_FOUND", "    const upload = isUuid(input.uploadId) ? await uploads.findForUser(input.uploadId.toLowerCase(), input.userId) : null;\n    if (!upload) return fail('NOT_FOUND', 'No such asset');", "    const upload = isUuid(input.uploadId) ? await uploads.findForUser(input.uploadId.toLowerCase(), input.userId) : null;"),
  storeUpload('a file past the size limit is stored', "    if (bytes === null) return fail('PAYLOAD.TOO_LARGE', `The file is larger than ${formatBytes(maxBytes)}`);\n", ''),
  getUpload('an upload id that is no UUID is looked up', "    if (!isUuid(input.uploadId)) return fail('NOT_FOUND', 'Upload not found');\n", ''),
  graph('null is taken for an object (a crash, not a refusal)', "  if (typeof value !== 'object' || value === null) return false;\n  // An array's", "  if (typeof value !== 'object') return false;\n  // An array's"),
  graph('an ASCII character counts two bytes against the size limit', '    if (code < 0x80) bytes += 1;\n', '    if (false as boolean) bytes += 1;\n'),
  graph('problems are reported past the cap', '    if (!this.full) this.list.push({ field, message });', '    this.list.push({ field, message });'),
  graph("a prefix's .. is kept as a folder", "    if (part !== '..') parts.push(part);", "    if (true as boolean) parts.push(part);"),
  graph('a literal filename_prefix is not checked', "      if (name === 'filename_prefix' && typeof value === 'string') {", '      if (false as boolean) {'),
  graph('every literal input must be a link', '      if (!Array.isArray(value)) continue;\n      const field = inputField(id, name);', '      const field = inputField(id, name);'),
  graph('the cycle check follows links to missing nodes', '      if (isLink(value) && Object.hasOwn(graph, String(value[0]))) out.push([name, String(value[0])]);', '      if (isLink(value)) out.push([name, String(value[0])]);'),
  objectInfo('an old-style combo list is not read as choices', '  if (Array.isArray(spec.type)) return spec.type;\n', ''),
  objectInfo('an INT given as a decimal string is taken', "    if (typeof value === 'string' && !/^\\s*[+-]?\\d+\\s*$/.test(value)) return null;\n", ''),
  objectInfo('an INT literal is not truncated as int() does', '  if (type === \'INT\') {\n    if (typeof value', '  if (false as boolean) {\n    if (typeof value'),
  objectInfo('a literal not in its combo list is accepted', '  const options = comboOptions(spec);\n  if (options) {\n    if (isUploadCombo(spec)) return;\n    if (!options.some((o) => o === value))', '  const options = comboOptions(spec);\n  if (false as boolean) {\n    if (isUploadCombo(spec)) return;\n    if (!options!.some((o) => o === value))'),
  objectInfo('a parameter offering a value not in its combo list is accepted', "    const offered = item.type === 'enum'", "    if (true as boolean) return;\n    const offered = item.type === 'enum'"),
  objectInfo('a link to a missing node is not reported', "  if (!isPlainObject(source)) {\n    add('bad_link'", "  if (false as boolean) {\n    add('bad_link'"),
  objectInfo('an unknown node type is not reported', "    if (!def) {\n      at()('node_missing'", "    if (false as boolean) {\n      at()('node_missing'"),
  objectInfo('a missing required input is not reported', '      if (!Object.hasOwn(inputs, name)) {\n        if (Object.hasOwn(required, name))', '      if (false as boolean) {\n        if (Object.hasOwn(required, name))'),
  objectInfo('a link is checked as a literal', '      if (isLink(value)) {\n        checkLink', '      if (false as boolean) {\n        checkLink'),
  objectInfo('an upload combo counts as a server requirement', '    if (!spec || !options || isUploadCombo(spec)) continue;', '    if (!spec || !options) continue;'),
];
