import type { NextFunction, Request, Response } from 'express';
import type { ErrorCode, FieldProblem } from '../../core/domain/result.ts';
import type { ApiRouter } from './api-router.ts';
import { failCodeOf, STATUS_BY_CODE } from './error-table.ts';
import type { GenerationJob, JobStatus } from '../../core/domain/job.ts';
import type { HistoryView } from '../../core/domain/job-views.ts';
import type { UserEvent } from '../../core/domain/user-events.ts';
import type { Upload } from '../../core/ports/upload-repository.port.ts';
import { UPLOAD_RETENTION_SECONDS } from '../../core/use-cases/uploads/sweep-expired-uploads.use-case.ts';

/**
 * The Comfy API v2 shapes (ADR 040), as @comfyorg/sdk's generated zod schemas validate them: snake_case
 * fields, absolute output URLs, `canceled` with one l, and the error envelope `{"error":{"code","message","details"}}`.
 */
export const V2_PREFIX = '/api/v2';

/** v2's error envelope, the body of every error under /api/v2 (named ComfyV2Error in the OpenAPI document). */
export const V2_ERROR_SCHEMA = { type: 'object', required: ['error'], properties: { error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' }, details: { type: ['object', 'null'] } } } } };

const V2_STATUS: Record<JobStatus, string> = { queued: 'queued', running: 'running', succeeded: 'succeeded', failed: 'failed', cancelled: 'canceled', expired: 'expired' };

/** The origin the client called, so that the links it follows come back here. */
export const originOf = (req: Request): string => `${req.protocol}://${req.get('host')}`;

export function outputKind(mimeType: string): 'image' | 'video' | 'audio' | 'text' | 'file' {
  const family = mimeType.split('/')[0];
  return family === 'image' || family === 'video' || family === 'audio' || family === 'text' ? family : 'file';
}

/** A job output as a v2 Output (and, with `file_path`, as a v2 Asset): an output is an asset of ours. */
export const v2Output = (origin: string, output: HistoryView) => ({
  // Our history does not record which node wrote a file.
  node_id: '',
  name: output.fileName,
  type: outputKind(output.mimeType),
  content_type: output.mimeType,
  size_bytes: output.sizeBytes,
  id: output.id,
  hash: null,
  url: `${origin}${V2_PREFIX}/assets/${output.id}/content`,
  url_expires_at: output.expiresAt,
  job_id: output.jobId,
});

export const v2OutputAsset = (origin: string, output: HistoryView) => {
  const { node_id: _node, name, type: _type, ...rest } = v2Output(origin, output);
  return { ...rest, file_path: name, created_at: output.createdAt, expires_at: output.expiresAt };
};

/**
 * An upload as a v2 Asset (ADR 042). It expires when unused (the upload sweep), and never once a job read it.
 * Its `url` is this API's content route, which redirects to a fresh signed URL: fetch the asset again after `url_expires_at`.
 */
export const v2UploadAsset = (origin: string, upload: Upload, urlExpiresAt: Date, createdNew?: boolean) => ({
  id: upload.id,
  hash: upload.contentHash,
  size_bytes: upload.sizeBytes,
  content_type: upload.mimeType,
  file_path: upload.fileName,
  ...(createdNew === undefined ? {} : { created_new: createdNew }),
  created_at: upload.createdAt.toISOString(),
  url: `${origin}${V2_PREFIX}/assets/${upload.id}/content`,
  url_expires_at: urlExpiresAt.toISOString(),
  expires_at: upload.usedAt ? null : new Date(upload.createdAt.getTime() + UPLOAD_RETENTION_SECONDS * 1000).toISOString(),
  job_id: null,
});

const progressOf = (job: GenerationJob) =>
  job.status === 'queued'
    ? null
    : { value: job.progress.max > 0 ? Math.min(1, Math.max(0, job.progress.value / job.progress.max)) : job.status === 'succeeded' ? 1 : 0, nodes_done: 0, nodes_total: 0, step: job.progress.value, steps: job.progress.max, message: job.statusText || null };

/** A job as a v2 Job; `queuePosition` is the number of queued jobs ahead of it (the view's `position`), null unless queued. */
export function v2Job(origin: string, job: GenerationJob, outputs: HistoryView[], retentionMs: number, queuePosition: number | null = null) {
  const self = `${V2_PREFIX}/jobs/${job.id}`;
  return {
    id: job.id,
    status: V2_STATUS[job.status],
    created_at: job.createdAt.toISOString(),
    started_at: job.startedAt?.toISOString() ?? null,
    completed_at: job.finishedAt?.toISOString() ?? null,
    expires_at: new Date(job.createdAt.getTime() + retentionMs).toISOString(),
    queue_position: queuePosition,
    progress: progressOf(job),
    outputs: outputs.map((output) => v2Output(origin, output)),
    error: job.error ? { code: job.error.code, message: job.error.message, node_id: job.error.nodeId ?? null } : null,
    urls: { self, events: `${self}/events`, cancel: `${self}/cancel` },
  };
}

/** One SSE frame of the job's stream for a stored event (its seq is the frame's id), or null for events v2 has no frame for. */
export function v2Frame(origin: string, seq: number, event: UserEvent): string | null {
  const frame = (name: string, data: unknown) => `id: ${seq}\nevent: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  switch (event.type) {
    case 'job.queued':
      return frame('status', { status: 'queued', queue_position: event.position ?? null });
    case 'job.queue':
      return frame('status', { status: 'queued', queue_position: event.position });
    case 'job.started':
      return frame('status', { status: 'running', queue_position: null });
    case 'job.progress':
      return frame('progress', { value: event.max > 0 ? Math.min(1, event.value / event.max) : 0, nodes_done: 0, nodes_total: 0, current_node: event.node ?? null, step: event.value, steps: event.max });
    case 'job.status':
      return frame('log', { level: 'info', message: event.text });
    case 'job.output':
      return frame('output', v2Output(origin, event.output));
    case 'job.completed':
      return frame('status', { status: 'succeeded', queue_position: null });
    case 'job.failed':
      return frame('status', { status: 'failed', queue_position: null, error: event.error });
    case 'job.cancelled':
      return frame('status', { status: 'canceled', queue_position: null });
    case 'job.expired':
      return frame('status', { status: 'expired', queue_position: null });
    default:
      return null;
  }
}

export const isTerminalEvent = (event: UserEvent): boolean => event.type === 'job.completed' || event.type === 'job.failed' || event.type === 'job.cancelled' || event.type === 'job.expired';

/** v2's error codes by our use-case codes, then by status. */
const CODE_BY_FAIL: Record<string, { status: number; code: string }> = {
  'IDEMPOTENCY.KEY_REUSED': { status: 422, code: 'idempotency_key_reuse' },
  'IDEMPOTENCY.IN_PROGRESS': { status: 429, code: 'idempotency_in_progress' },
  'JOB.TOO_MANY_ACTIVE': { status: 429, code: 'queue_full' },
  'QUEUE.FULL': { status: 429, code: 'queue_full' },
  'COIN.INSUFFICIENT': { status: 402, code: 'insufficient_credits' },
  'ASSET.MISSING': { status: 422, code: 'missing_asset' },
  'ASSET.HASH_MISMATCH': { status: 409, code: 'hash_mismatch' },
  'ASSET.IN_USE': { status: 409, code: 'asset_in_use' },
  'VALIDATION.FAILED': { status: 400, code: 'invalid_request' },
};
const CODE_BY_STATUS: Record<number, string> = { 400: 'invalid_request', 401: 'unauthorized', 402: 'insufficient_credits', 403: 'forbidden', 404: 'not_found', 409: 'conflict', 413: 'payload_too_large', 422: 'invalid_workflow', 429: 'rate_limited' };

export const v2Error = (code: string, message: string, details?: FieldProblem[]) => ({
  error: { code, message, ...(details && details.length > 0 ? { details: { problems: details } } : {}) },
});

/**
 * A refused v2 job submission: a bad workflow is v2's 422 `invalid_workflow`, with our per-field problems as details.
 * A code v2 names differently is in CODE_BY_FAIL; any other takes the status of the one error table and v2's code
 * for that status, as every other error of the surface does (see v2Envelope).
 */
export function v2SubmitFailure(failure: { code: string; message: string; details?: FieldProblem[] }): { status: number; body: unknown } {
  if (failure.code === 'VALIDATION.FAILED') return { status: 422, body: v2Error('invalid_workflow', failure.message, failure.details) };
  const status = CODE_BY_FAIL[failure.code]?.status ?? STATUS_BY_CODE[failure.code as ErrorCode] ?? 500;
  const code = CODE_BY_FAIL[failure.code]?.code ?? CODE_BY_STATUS[status] ?? 'upstream_error';
  return { status, body: v2Error(code, failure.message, failure.details) };
}

/**
 * Renders every error of the v2 surface as v2's envelope, whoever produced it (authentication, validation, the
 * idempotency layer, the application's 404 and 500): `res.json` of our `{statusCode, error, message}` body is
 * rewritten, so no route has to remember it.
 */
export function v2Envelope(_req: Request, res: Response, next: NextFunction): void {
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    const ours = body as { statusCode?: unknown; message?: unknown; details?: FieldProblem[] } | null;
    if (!ours || typeof ours.statusCode !== 'number' || ours.statusCode < 400) return json(body);
    const mapped = CODE_BY_FAIL[failCodeOf(res) ?? ''];
    const status = mapped?.status ?? ours.statusCode;
    res.status(status);
    // Every 429 carries Retry-After. v1's 409 for a key still in progress becomes v2's 429 here, with no limiter to
    // say when: the first request usually answers within a second, and a retry then replays its response.
    if (status === 429 && !res.hasHeader('Retry-After')) res.setHeader('Retry-After', '1');
    return json(v2Error(mapped?.code ?? CODE_BY_STATUS[status] ?? 'upstream_error', String(ours.message), ours.details));
  };
  next();
}

const enveloped = new WeakSet<ApiRouter>();

/** The /api/v2 surface of `root`, whose every error is v2's envelope (installed once, before the first route of any module). */
export function v2Surface(root: ApiRouter): ApiRouter {
  const api = root.at(V2_PREFIX);
  if (!enveloped.has(api)) {
    enveloped.add(api);
    api.router.use(v2Envelope);
  }
  return api;
}
