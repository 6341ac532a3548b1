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
const views = entriesOn('comfy v2', 'adapters/http/comfy-v2-views.ts', ['tests/unit/comfy-v2-views.test.ts']);

export const MUTATIONS: Mutation[] = [
  // adapters/http/comfy-v2-views.ts (tests/unit/comfy-v2-views.test.ts)
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
  views('a refused submission of an unknown code is a 500 without a v2 code', "?? { status: 500, code: 'upstream_error' };", "?? { status: 500, code: '' };"),
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
];
