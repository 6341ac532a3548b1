import type { Mutation } from '../mutation.ts';

const ROUTES = 'adapters/http/routes/comfy-v2.routes.ts';
const FEED = 'core/use-cases/events/job-event-feed.service.ts';
const HTTP = 'tests/integration/comfy-v2.test.ts';
const UNIT = 'tests/unit/job-event-feed.test.ts';

/** The guards of the Comfy API v2 surface (ADR 040): each one gone must turn its tests red. */
export const MUTATIONS: Mutation[] = [
  {
    name: "comfy v2: a job (get, workflow, cancel's answer) is found for any user",
    file: 'core/use-cases/generation/job-queries.service.ts',
    find: 'const job = await this.deps.jobs.findForUser(input.jobId.toLowerCase(), input.userId);',
    replace: 'const job = await this.deps.jobs.findById(input.jobId.toLowerCase());',
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
    name: "comfy v2: an asset that is not the caller's is not refused",
    file: ROUTES,
    find: "if (!item) return sendNotFound(res, 'No such asset');",
    replace: "if (false) return sendNotFound(res, 'No such asset');",
    tests: [HTTP],
  },
  {
    name: "comfy v2: content of an asset that is not the caller's is not refused",
    file: ROUTES,
    find: "if (!link.ok) return sendNotFound(res, 'No such asset');",
    replace: "if (false) return sendNotFound(res, 'No such asset');",
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
