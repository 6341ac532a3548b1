import { entriesOn, type Mutation } from '../mutation.ts';

const ROUTES = 'adapters/http/routes/comfy-v2.routes.ts';
const FEED = 'core/use-cases/events/job-event-feed.service.ts';
const HTTP = 'tests/integration/comfy-v2.test.ts';
const UNIT = 'tests/unit/job-event-feed.test.ts';
const ASSET_ROUTES = 'adapters/http/routes/comfy-v2-assets.routes.ts';
const ASSETS = 'core/use-cases/uploads/upload-assets.use-case.ts';
const PREPARE = 'core/use-cases/generation/prepare-generation.service.ts';
const ASSETS_HTTP = 'tests/integration/comfy-v2-assets.test.ts';
const ASSETS_UNIT = 'tests/unit/upload-assets.test.ts';
/** Finds any user's unused upload by id: the owner check gone, the lookup kept. */
const anyUsersUpload = (repo: string) => `(await ${repo}.listExpired(new Date(8.64e15), 100000)).find((u) => u.id === input.uploadId.toLowerCase()) ?? null`;

/** The guards of the Comfy API v2 surface (ADR 040): each one gone must turn its tests red. */
const refs = entriesOn('comfy v2 assets', 'core/domain/asset-reference.ts', ['tests/unit/asset-reference.test.ts']);
const views = entriesOn('comfy v2', 'adapters/http/comfy-v2-views.ts', ['tests/unit/comfy-v2-views.test.ts']);

export const MUTATIONS: Mutation[] = [
  // core/domain/asset-reference.ts (tests/unit/asset-reference.test.ts)
  refs('a value of another __type is taken as an asset reference', "isPlainObject(value) && value['__type'] === 'core/ASSET';", "isPlainObject(value) && '__type' in value;"),
  refs('a null workflow crashes the reading of references', '  if (!isPlainObject(workflow)) return { workflow, inputs, problems };\n', ''),
  refs('a node without inputs crashes the reading of references', "if (!isPlainObject(node) || !isPlainObject(node['inputs'])) continue;", 'if (!isPlainObject(node)) continue;'),
  refs('a reference whose info is null crashes the reading of references', "const id = isPlainObject(info) ? info['id'] : undefined;", "const id = (info as Record<string, unknown>)['id'];"),
  refs("a node's second reference undoes its first", 'replaced ??= { ...node[\'inputs\'] };', 'replaced = { ...node[\'inputs\'] };'),
  refs("the submitted workflow's inputs are rewritten in place", 'replaced ??= { ...node[\'inputs\'] };', 'replaced ??= node[\'inputs\'];'),
  refs('a reference on a second node undoes the first node\'s', '(out ??= { ...workflow })[nodeId]', '(out = { ...workflow })[nodeId]'),
  refs('the asset id in the workflow keeps its upper case', 'replaced[inputName] = id.toLowerCase();', 'replaced[inputName] = id;'),
  refs('the listed asset id keeps its upper case', 'inputs.push({ nodeId, inputName, id: id.toLowerCase() });', 'inputs.push({ nodeId, inputName, id });'),
  // adapters/http/comfy-v2-views.ts (tests/unit/comfy-v2-views.test.ts)
  views('a v2 429 for a key still in progress has no Retry-After', "if (status === 429 && !res.hasHeader('Retry-After')) res.setHeader('Retry-After', '1');", ''),
  views("a limiter's Retry-After on a v2 429 is overwritten with 1 s", "if (status === 429 && !res.hasHeader('Retry-After'))", 'if (status === 429)'),
  views('a v2 answer other than 429 gets Retry-After', "if (status === 429 && !res.hasHeader('Retry-After'))", "if (!res.hasHeader('Retry-After'))"),
  views('a queued job shows progress', "  job.status === 'queued'\n    ? null\n", "  (false as boolean)\n    ? null\n"),
  views('progress is not clamped to 1', '? Math.min(1, Math.max(0, job.progress.value / job.progress.max))', '? Math.max(0, job.progress.value / job.progress.max)'),
  views('progress is not clamped to 0', '? Math.min(1, Math.max(0, job.progress.value / job.progress.max))', '? Math.min(1, job.progress.value / job.progress.max)'),
  views('a success without steps shows progress 0', ": job.status === 'succeeded' ? 1 : 0, nodes_done", ': 0, nodes_done'),
  views('a job without status text shows an empty message', 'message: job.statusText || null', 'message: job.statusText'),
  views('a job error without a node shows node_id undefined', 'node_id: job.error.nodeId ?? null', 'node_id: job.error.nodeId'),
  views('a queued job has no queue_position', 'queue_position: queuePosition,', 'queue_position: null,'),
  views("our cancelled is not v2's canceled", "cancelled: 'canceled'", "cancelled: 'cancelled'"),
  views('a stream frame of progress past its max is above 1', 'value: event.max > 0 ? Math.min(1, event.value / event.max) : 0,', 'value: event.max > 0 ? event.value / event.max : 0,'),
  views('a stream frame of progress without steps divides by zero', 'value: event.max > 0 ? Math.min(1, event.value / event.max) : 0,', 'value: Math.min(1, event.value / event.max),'),
  views('a move up the queue sends no frame', "    case 'job.queue':\n", "    case 'job.queue-not-framed' as string:\n"),
  views('a failed frame does not name its error', "frame('status', { status: 'failed', queue_position: null, error: event.error })", "frame('status', { status: 'failed', queue_position: null })"),
  views('an expired job does not end its stream', "event.type === 'job.cancelled' || event.type === 'job.expired';", "event.type === 'job.cancelled';"),
  views('a refused submission of an unknown code is a 500 without a v2 code', "?? CODE_BY_STATUS[status] ?? 'upstream_error';", "?? CODE_BY_STATUS[status] ?? '';"),
  views('a refused submission of a code v2 has no name for is a 500 (the error table is not read)', ' ?? STATUS_BY_CODE[failure.code as ErrorCode] ?? 500;', ' ?? 500;'),
  views("a refused submission of a code v2 has no name for is upstream_error (not v2's code for its status)", "const code = CODE_BY_FAIL[failure.code]?.code ?? CODE_BY_STATUS[status] ??", "const code = CODE_BY_FAIL[failure.code]?.code ??"),
  views('a refused submission of an unknown code is not a 500', " ?? STATUS_BY_CODE[failure.code as ErrorCode] ?? 500;", " ?? STATUS_BY_CODE[failure.code as ErrorCode] ?? 400;"),
  views('an error with no problems carries empty details', '...(details && details.length > 0 ? { details: { problems: details } } : {})', '...(details ? { details: { problems: details } } : {})'),
  views('a text output is a file', "family === 'image' || family === 'video' || family === 'audio' || family === 'text' ?", "family === 'image' || family === 'video' || family === 'audio' ?"),
  views('an upload a job used still expires', 'expires_at: upload.usedAt ? null :', 'expires_at:'),
  views('created_new is sent though the route did not say', '...(createdNew === undefined ? {} : { created_new: createdNew }),', 'created_new: createdNew,'),
  {
    name: 'comfy v2: GET of a queued job shows no queue_position',
    file: ROUTES,
    find: 'deps.retentionMs, found.value.view.position ?? null);',
    replace: 'deps.retentionMs);',
    tests: [HTTP],
  },
  {
    name: 'comfy v2: a fresh event stream opens without the place in the queue',
    file: ROUTES,
    find: "queue_position: position })}",
    replace: "queue_position: null })}",
    tests: [HTTP],
  },
  {
    name: "comfy v2: a job (get, workflow, cancel's answer) is found for any user",
    file: 'core/use-cases/generation/job-queries.service.ts',
    find: 'const job = await this.owned(input, (id, userId) => this.deps.jobs.findForUser(id, userId));',
    replace: 'const job = await this.owned(input, (id) => this.deps.jobs.findById(id));',
    tests: [HTTP],
  },
  {
    name: "comfy v2: anyone streams a job's events",
    file: FEED,
    find: 'const job = await this.deps.jobs.findForUser(jobId, userId);',
    replace: 'const job = await this.deps.jobs.findById(jobId);',
    tests: [UNIT, HTTP],
  },
  {
    name: "comfy v2: a stranger cancels someone's running job",
    file: 'core/use-cases/generation/cancel-generation.use-case.ts',
    find: 'const job = id ? await this.deps.jobs.findForUser(id, input.userId) : null;',
    replace: 'const job = id ? await this.deps.jobs.findById(id) : null;',
    tests: [HTTP],
  },
  {
    name: "comfy v2: an output asset that is not the caller's is not refused",
    file: ASSET_ROUTES,
    find: "if (!item) return void res.status(404).json(v2Error('not_found', 'No such asset'));",
    replace: "if (false) return void res.status(404).json(v2Error('not_found', 'No such asset'));",
    tests: [HTTP],
  },
  {
    name: "comfy v2: content of an output asset that is not the caller's is not refused",
    file: ASSET_ROUTES,
    find: "if (!link.ok) return void res.status(404).json(v2Error('not_found', 'No such asset'));",
    replace: "if (false) return void res.status(404).json(v2Error('not_found', 'No such asset'));",
    tests: [HTTP],
  },
  {
    name: 'comfy v2: cancelling a finished job is 404 instead of its state',
    file: ROUTES,
    find: "if (!cancelled.ok && cancelled.code !== 'JOB.FINISHED')",
    replace: 'if (!cancelled.ok)',
    tests: [HTTP],
  },
  {
    name: 'comfy v2: a repeated Idempotency-Key is not replayed (a second job, or a refusal)',
    file: 'adapters/http/idempotency.ts',
    find: 'if (!expired && existing.response) return { replay: existing.response };',
    replace: 'if (false) return { replay: existing.response };',
    tests: [HTTP],
  },
  {
    name: 'comfy v2: job creation accepts a key without the generate scope',
    file: 'adapters/http/api-key-scopes.ts',
    find: "'post /jobs': 'generate',",
    replace: "'post /jobs': 'history',",
    tests: [HTTP],
  },
  {
    name: 'comfy v2: reading a job accepts a key without the generate scope',
    file: 'adapters/http/api-key-scopes.ts',
    find: "'get /jobs/:id': 'generate',",
    replace: "'get /jobs/:id': 'history',",
    tests: [HTTP],
  },
  {
    name: 'comfy v2: Last-Event-ID is ignored (no replay)',
    file: ROUTES,
    find: '...(since === undefined ? {} : { since })',
    replace: '...({})',
    tests: [HTTP],
  },
  {
    name: 'comfy v2: a resume delivers a late live event at or before the seq it names (boundary)',
    file: FEED,
    find: 'let lastSeq = since ?? -1;',
    replace: 'let lastSeq = -1;',
    tests: [UNIT, HTTP],
  },
  {
    name: 'comfy v2: a live event also replayed is delivered twice (boundary)',
    file: FEED,
    find: 'if (event.seq <= lastSeq) return;',
    replace: 'if (event.seq < lastSeq) return;',
    tests: [UNIT],
  },
  {
    name: "comfy v2: another job's events reach the stream",
    file: FEED,
    find: 'envelope.event?.jobId !== jobId) return;',
    replace: 'false) return;',
    tests: [UNIT],
  },
  {
    name: "comfy v2 assets: anyone's upload is read as an asset (GET /assets/{id})",
    file: 'core/use-cases/uploads/get-upload-for-user.use-case.ts',
    find: 'const upload = await this.deps.uploads.findForUser(input.uploadId.toLowerCase(), input.userId);',
    replace: `const upload = ${anyUsersUpload('this.deps.uploads')};`,
    tests: [ASSETS_HTTP],
  },
  {
    name: "comfy v2 assets: anyone downloads an upload's content",
    file: ASSETS,
    find: 'isUuid(input.uploadId) ? await this.deps.uploads.findForUser(input.uploadId.toLowerCase(), input.userId) : null;',
    replace: `isUuid(input.uploadId) ? ${anyUsersUpload('this.deps.uploads')} : null;`,
    tests: [ASSETS_HTTP],
  },
  {
    name: "comfy v2 assets: anyone deletes an upload",
    file: ASSETS,
    find: 'isUuid(input.uploadId) ? await uploads.findForUser(input.uploadId.toLowerCase(), input.userId) : null;',
    replace: `isUuid(input.uploadId) ? ${anyUsersUpload('uploads')} : null;`,
    tests: [ASSETS_HTTP],
  },
  {
    name: "comfy v2 assets: by-hash and from-hash find another user's bytes (SQL)",
    file: 'adapters/sequelize/sequelize-upload-repository.ts',
    find: 'where: { user_id: userId, content_hash: contentHash },',
    replace: 'where: { content_hash: contentHash },',
    tests: ['tests/contract/upload-repository.test.ts', ASSETS_HTTP],
  },
  {
    name: "comfy v2 assets: by-hash and from-hash find another user's bytes (memory)",
    file: 'adapters/memory/memory-upload-repository.ts',
    find: '.filter((upload) => upload.userId === userId && upload.contentHash === contentHash)',
    replace: '.filter((upload) => upload.contentHash === contentHash)',
    tests: ['tests/contract/upload-repository.test.ts', ASSETS_UNIT],
  },
  {
    name: 'comfy v2 assets: by-hash says 200 for bytes the caller does not have',
    file: ASSET_ROUTES,
    find: 'if (!found.ok) return sendFail(res, found);',
    replace: 'if (false) return sendFail(res, found);',
    tests: [ASSETS_HTTP],
  },
  {
    name: 'comfy v2 assets: an upload a queued job reads is deleted',
    file: ASSETS,
    find: 'if (active.some((job) =>',
    replace: 'if (false && active.some((job) =>',
    tests: [ASSETS_UNIT],
  },
  {
    name: 'comfy v2 assets: a job output is deleted through v2 (or 404) instead of 403',
    file: ASSET_ROUTES,
    find: 'if (output) return void res.status(403)',
    replace: 'if (false) return void res.status(403)',
    tests: [ASSETS_HTTP],
  },
  {
    name: "comfy v2 assets: a raw workflow reads another user's upload",
    file: PREPARE,
    find: 'if (!image) return missingAsset(',
    replace: 'if (false) return missingAsset(',
    tests: [ASSETS_HTTP],
  },
  {
    name: "comfy v2 assets: a template run's asset reference that is not the caller's is not missing_asset",
    file: PREPARE,
    find: 'if (!image && isAsset(ref)) return missingAsset(',
    replace: 'if (false) return missingAsset(',
    tests: [ASSETS_UNIT],
  },
  {
    name: 'comfy v2 assets: an asset reference where the template takes no image is accepted',
    file: PREPARE,
    find: 'if (misplaced) return missingAsset(',
    replace: 'if (false) return missingAsset(',
    tests: [ASSETS_UNIT],
  },
  {
    name: 'comfy v2 assets: uploading accepts a key without the generate scope',
    file: 'adapters/http/api-key-scopes.ts',
    find: "'post /assets': 'generate',",
    replace: "'post /assets': 'history',",
    tests: [ASSETS_HTTP],
  },
  {
    name: 'comfy v2 assets: from-hash accepts a key without the generate scope',
    file: 'adapters/http/api-key-scopes.ts',
    find: "'post /assets/from-hash': 'generate',",
    replace: "'post /assets/from-hash': 'history',",
    tests: [ASSETS_HTTP],
  },
  {
    name: 'comfy v2: the stream of an expired job ends without its status',
    file: 'adapters/http/comfy-v2-views.ts',
    find: "case 'job.expired':",
    replace: "case 'job.expired-not-framed' as string:",
    tests: [HTTP],
  },
  {
    name: 'comfy v2: the stream does not end at the terminal event',
    file: ROUTES,
    find: 'if (isTerminalEvent(event)) end();',
    replace: 'if (false) end();',
    tests: [HTTP],
  },
  {
    name: 'comfy v2: a bad Last-Event-ID is not refused',
    file: ROUTES,
    find: 'if (Number.isNaN(since)) return void',
    replace: 'if (false) return void',
    tests: [HTTP],
  },
  {
    name: "comfy v2: errors keep our body instead of v2's envelope",
    file: 'adapters/http/comfy-v2-views.ts',
    find: "if (!ours || typeof ours.statusCode !== 'number' || ours.statusCode < 400) return json(body);",
    replace: 'if (true) return json(body);',
    tests: [HTTP],
  },
  {
    name: 'comfy v2: a refused workflow is not 422 invalid_workflow',
    file: 'adapters/http/comfy-v2-views.ts',
    find: "if (failure.code === 'VALIDATION.FAILED') return { status: 422,",
    replace: "if (false) return { status: 422,",
    tests: [HTTP],
  },
  ...comfyV2RouteGuardMutations(),
];

/**
 * The guards of the two v2 route files one by one (tests/integration/comfy-v2-guards.test.ts, plain HTTP on an
 * API-only app): authentication, key scopes, refusals and their v2 codes, headers, the event stream's rules and ends.
 */
function comfyV2RouteGuardMutations(): Mutation[] {
  const GUARDS = 'tests/integration/comfy-v2-guards.test.ts';
  const jobs = entriesOn('comfy v2 route guards', ROUTES, [GUARDS]);
  const assets = entriesOn('comfy v2 route guards: assets', ASSET_ROUTES, [GUARDS]);
  const assetsSdk = entriesOn('comfy v2 route guards: assets (SDK)', ASSET_ROUTES, [ASSETS_HTTP]);
  const scopes = entriesOn('comfy v2 route guards: scope', 'adapters/http/api-key-scopes.ts', [GUARDS]);
  const access = "auth: 'access',";
  const open = "auth: 'public',";
  return [
    // adapters/http/routes/comfy-v2.routes.ts
    jobs('a stream whose client left while its feed opened keeps its subscription until the job ends', '      if (res.destroyed) return void (await feed.close());\n', ''),
    jobs('POST /jobs needs no credentials', "summary: 'Comfy API v2: run an API-format workflow (priced and paid like POST /generate with a workflow)',\n      tag,\n      " + access, "summary: 'Comfy API v2: run an API-format workflow (priced and paid like POST /generate with a workflow)',\n      tag,\n      " + open),
    jobs('GET /jobs/{id} needs no credentials', "tag, auth: 'access', responses: { 200: { description: 'The job'", "tag, auth: 'public', responses: { 200: { description: 'The job'"),
    jobs('GET /jobs/{id}/workflow needs no credentials', "summary: 'Comfy API v2: the API-format workflow the job ran (`format: api`)',\n      tag,\n      " + access, "summary: 'Comfy API v2: the API-format workflow the job ran (`format: api`)',\n      tag,\n      " + open),
    jobs('POST /jobs/{id}/cancel needs no credentials', "a finished job is returned as it is',\n      tag,\n      " + access, "a finished job is returned as it is',\n      tag,\n      " + open),
    jobs('GET /jobs/{id}/events needs no credentials', access + "\n      headers: { 'Last-Event-ID'", open + "\n      headers: { 'Last-Event-ID'"),
    jobs('an over-long Idempotency-Key is not refused', '      validate: idempotencyKeyValidation,\n', ''),
    jobs('extra_data counts in the Idempotency-Key comparison (a retry with another partner key is 422)', '      req.body = { workflow: body.workflow ?? null };\n', ''),
    jobs('a UI-export workflow is not 422 workflow_format_ui', 'if (isUiFormat(body.workflow)) return', 'if (false) return'),
    jobs('queue_full comes without Retry-After', "return 'retryAfterSeconds' in result && result.retryAfterSeconds ? { ...refused, headers: { 'Retry-After': String(result.retryAfterSeconds) } } : refused;", 'return refused;'),
    jobs('a created job is answered as a refusal', 'if (result.ok) return created(result.value);', 'if (false) return created(result.value);'),
    jobs('GET of a job that is not found is not refused', 'if (!found.ok) return sendNotFound(res, found.message);\n    res.json(view(', 'if (false) return sendNotFound(res, found.message);\n    res.json(view('),
    jobs('the workflow of a job that is not found is not refused', 'if (!found.ok) return sendNotFound(res, found.message);\n      res.json({ workflow:', 'if (false) return sendNotFound(res, found.message);\n      res.json({ workflow:'),
    jobs('a job that is not found answers 200', 'const sendNotFound = (res: Response, message: string) => void res.status(404).json(', 'const sendNotFound = (res: Response, message: string) => void res.status(200).json('),
    jobs('the events of a job that is not found are not refused', 'if (!opened.ok) return sendNotFound(res, opened.message);', 'if (false) return sendNotFound(res, opened.message);'),
    jobs('a blank Last-Event-ID is refused instead of a fresh stream', "if (raw === undefined || raw.trim() === '') return undefined;", 'if (raw === undefined) return undefined;'),
    jobs('a Last-Event-ID of more than 15 digits is taken', '/^\\d{1,15}$/.test(raw.trim())', '/^\\d+$/.test(raw.trim())'),
    jobs('the stream is not text/event-stream', "'Content-Type': 'text/event-stream',", "'Content-Type': 'text/plain',"),
    jobs('the stream may be cached', "'Cache-Control': 'no-store', Connection", 'Connection'),
    jobs('the stream may be buffered by a proxy', ", 'X-Accel-Buffering': 'no' });", ' });'),
    jobs('an idle stream gets no keep-alive comment', "setInterval(() => res.write(': keep-alive\\n\\n'), ", 'setInterval(() => undefined, '),
    jobs('a resumed stream starts with a status it did not miss', 'if (since === undefined) res.write(', 'if (true) res.write('),
    jobs('an event v2 has no frame for breaks the stream', 'if (frame) res.write(frame);', 'res.write(frame as string);'),
    jobs("a finished job's fresh stream never ends", 'if (!ended && snapshot.completed_at !== null) {', 'if (false) {'),
    jobs('a resume after the last frame of a finished job ends without its status', 'if (since !== undefined) res.write(', 'if (false) res.write('),
    // adapters/http/routes/comfy-v2-assets.routes.ts
    assets('POST /assets needs no credentials', access + "\n      bodyContentType: 'multipart/form-data',", open + "\n      bodyContentType: 'multipart/form-data',"),
    assets('POST /assets/from-hash needs no credentials', access + "\n      body: {\n        type: 'object',\n        required: ['hash'],", open + "\n      body: {\n        type: 'object',\n        required: ['hash'],"),
    assets('HEAD /assets/by-hash needs no credentials', access + "\n      responses: { 200: { description: 'The caller has these bytes' }", open + "\n      responses: { 200: { description: 'The caller has these bytes' }"),
    assets('GET /assets/{id} needs no credentials', "tag, auth: 'access', responses: { 200: { description: 'The asset'", "tag, auth: 'public', responses: { 200: { description: 'The asset'"),
    assets('GET /assets/{id}/content needs no credentials', access + '\n      responses: { 302:', open + '\n      responses: { 302:'),
    assets('DELETE /assets/{id} needs no credentials', access + "\n      responses: {\n        204: { description: 'Deleted' },", open + "\n      responses: {\n        204: { description: 'Deleted' },"),
    assets('an unreadable upload form is not refused', 'if (!form.ok) return void', 'if (false) return void'),
    assets('a file over MAX_UPLOAD_MB is 422, not 413', 'res.status(form.status === 413 ? 413 : 422)', 'res.status(422)'),
    assets('a file over MAX_UPLOAD_MB is not payload_too_large', "v2Error(form.status === 413 ? 'payload_too_large' : 'invalid_request'", "v2Error('invalid_request'"),
    assets('the declared content_type is ignored (bytes that contradict it are stored)', 'claimedMimeType: fields.content_type ?? file.mimeType,', 'claimedMimeType: file.mimeType,'),
    assets('file_path does not name the asset', 'fileName: fields.file_path ?? file.fileName,', 'fileName: file.fileName,'),
    assetsSdk('expected_hash is ignored (no hash_mismatch)', 'expectedHash: fields.expected_hash ?? null,', 'expectedHash: null,'),
    assets('a refused upload is answered as stored', 'if (!stored.ok) return sendRefused(res, stored);', 'if (false) return sendRefused(res, stored);'),
    assets('a file that is no accepted image is 400, not 422', "if (failure.code === 'VALIDATION.FAILED') return void res.status(422)", 'if (false) return void res.status(422)'),
    assetsSdk('from-hash of unknown bytes is not_found, not blob_not_found', "if (!minted.ok && minted.code === 'NOT_FOUND')", 'if (false)'),
    assetsSdk('a refused from-hash is answered as minted', 'if (!minted.ok) return sendFail(res, minted);', 'if (false) return sendFail(res, minted);'),
    assets('an upload is not read as an asset (only outputs)', 'if (upload.ok) return void res.json(', 'if (false) return void res.json('),
    assets("an upload's content is looked up among outputs only", 'const link = uploaded.ok ? uploaded :', 'const link = false ? uploaded :'),
    assets('the content redirect may be cached', "res.setHeader('Cache-Control', 'no-store');\n", ''),
    assets('a deleted upload is not answered 204', 'if (removed.ok) return void res.status(204).end();', 'if (false) return void res.status(204).end();'),
    assets('an upload a queued job reads is 404 instead of 409 asset_in_use', "if (removed.code !== 'NOT_FOUND') return sendFail(res, removed);", 'if (false) return sendFail(res, removed);'),
    // adapters/http/api-key-scopes.ts: the v2 routes the existing entries leave out
    scopes('the workflow of a job is read without the generate scope', "'get /jobs/:id/workflow': 'generate',", "'get /jobs/:id/workflow': 'history',"),
    scopes('the events of a job are read without the generate scope', "'get /jobs/:id/events': 'generate',", "'get /jobs/:id/events': 'history',"),
    scopes('a job is cancelled without the generate scope', "'post /jobs/:id/cancel': 'generate',", "'post /jobs/:id/cancel': 'history',"),
    scopes('an asset is read without the generate scope', "'get /assets/:id': 'generate',", "'get /assets/:id': 'history',"),
    scopes("an asset's content is read without the generate scope", "'get /assets/:id/content': 'generate',", "'get /assets/:id/content': 'history',"),
    scopes('by-hash answers without the generate scope', "'head /assets/by-hash/:hash': 'generate',", "'head /assets/by-hash/:hash': 'history',"),
    scopes('an asset is deleted without the generate scope', "'delete /assets/:id': 'generate',", "'delete /assets/:id': 'history',"),
  ];
}
