import { DEFAULT_RESOURCE_LIMITS as LIMITS, type ResourceLimits } from '../../core/domain/resource-limits.ts';
import type { Reader } from './reader.ts';

export interface GenerationConfig {
  /** Raw workflows that match no active template: who may run them (ALLOW_RAW_WORKFLOWS) and at what price (RAW_WORKFLOW_COST). */
  rawWorkflows: { roles: ('user' | 'admin')[]; cost: number };
  /** The reconciler fails (and refunds) a running job whose attempt's lease ended this long ago (STALLED_JOB_MINUTES). */
  stalledJobSeconds: number;
  /** Files staged by an attempt that can no longer commit them are deleted once this old (ORPHANED_OUTPUT_MINUTES). */
  orphanedOutputSeconds: number;
  outputNodeTypes: string[];
  allowedNodeTypes: string[] | null;
  unclaimedDeductionMinutes: number;
  maxAttempts: number;
  maxUploadBytes: number;
  /** Jobs one worker process runs at once. */
  workerConcurrency: number;
  /** How long a taken message stays invisible; a running job keeps extending it, a crashed one is retried after it. */
  visibilitySeconds: number;
  /** Caps on what one job may ask (MAX_IMAGE_PIXELS, MAX_BATCH_SIZE, MAX_FRAMES, MAX_VIDEO_SECONDS, MAX_OUTPUT_MB_PER_JOB, MAX_WORKFLOW_NODES). */
  limits: ResourceLimits;
  /** Queued plus running jobs one user may have (MAX_ACTIVE_JOBS_PER_USER); beyond it a submit is answered 429. */
  maxActiveJobsPerUser: number;
  /** Queued jobs of all users beyond which a submit is answered 429 QUEUE.FULL (QUEUE_MAX_DEPTH); 0: no limit. */
  maxQueueDepth: number;
}

export interface OutputsConfig {
  viewUrlTtlSeconds: number;
  downloadUrlTtlSeconds: number;
  retentionDays: number;
}

/** How jobs run (raw workflows, node types, attempts, workers, limits), then how their outputs are served and kept. */
/**
 * `defaults.workerConcurrency`: what WORKER_CONCURRENCY is when unset; with ENGINE_DRIVER=comfyui every server's
 * slots (servers × COMFYUI_JOBS_PER_SERVER), so that a worker with several servers uses them all (ADR 034).
 */
export function readGeneration(read: Reader, defaults: { workerConcurrency: number } = { workerConcurrency: 1 }): { generation: GenerationConfig; outputs: OutputsConfig } {
  const allowedNodeTypes = read.list('ALLOWED_NODE_TYPES');
  return {
    generation: {
      rawWorkflows: { roles: rawWorkflowRoles(read), cost: read.int('RAW_WORKFLOW_COST', 5, 0, 1_000_000) },
      stalledJobSeconds: read.int('STALLED_JOB_MINUTES', 30, 1, 7 * 24 * 60) * 60,
      orphanedOutputSeconds: read.int('ORPHANED_OUTPUT_MINUTES', 60, 1, 7 * 24 * 60) * 60,
      outputNodeTypes: read.list('OUTPUT_NODE_TYPES'),
      allowedNodeTypes: allowedNodeTypes.length > 0 ? allowedNodeTypes : null,
      unclaimedDeductionMinutes: read.int('UNCLAIMED_DEDUCTION_MINUTES', 15, 1, 7 * 24 * 60),
      maxAttempts: read.int('MAX_ATTEMPTS', 3, 1, 100),
      workerConcurrency: read.int('WORKER_CONCURRENCY', defaults.workerConcurrency, 1, 64),
      visibilitySeconds: read.int('QUEUE_VISIBILITY_SECONDS', 30, 2, 43_200),
      maxUploadBytes: read.int('MAX_UPLOAD_MB', 20, 1, 1024) * 1024 * 1024,
      limits: {
        maxImagePixels: read.int('MAX_IMAGE_PIXELS', LIMITS.maxImagePixels, 1, 2 ** 31),
        maxBatchSize: read.int('MAX_BATCH_SIZE', LIMITS.maxBatchSize, 1, 4096),
        maxFrames: read.int('MAX_FRAMES', LIMITS.maxFrames, 1, 100_000),
        maxVideoSeconds: read.int('MAX_VIDEO_SECONDS', LIMITS.maxVideoSeconds, 1, 86_400),
        maxOutputBytes: read.int('MAX_OUTPUT_MB_PER_JOB', LIMITS.maxOutputBytes / 1048576, 1, 1_048_576) * 1048576,
        maxWorkflowNodes: read.int('MAX_WORKFLOW_NODES', LIMITS.maxWorkflowNodes, 1, 100_000),
      },
      maxActiveJobsPerUser: read.int('MAX_ACTIVE_JOBS_PER_USER', 20, 1, 100_000),
      maxQueueDepth: read.int('QUEUE_MAX_DEPTH', 0, 0, 10_000_000),
    },
    outputs: {
      viewUrlTtlSeconds: read.duration('VIEW_URL_TTL', 15 * 60),
      downloadUrlTtlSeconds: read.duration('DOWNLOAD_URL_TTL', 5 * 60),
      retentionDays: read.int('OUTPUT_RETENTION_DAYS', 30, 1, 36500),
    },
  };
}

/** ALLOW_RAW_WORKFLOWS: `admin` (default), `user,admin` (or `all`), or `none`. */
function rawWorkflowRoles(read: Reader): ('user' | 'admin')[] {
  const listed = read.list('ALLOW_RAW_WORKFLOWS').map((role) => role.toLowerCase());
  if (listed.length === 0) return ['admin'];
  if (listed.length === 1 && listed[0] === 'none') return [];
  if (listed.length === 1 && listed[0] === 'all') return ['user', 'admin'];
  const bad = listed.filter((role) => role !== 'user' && role !== 'admin');
  if (bad.length > 0) {
    read.problems.push(`ALLOW_RAW_WORKFLOWS must be none, all, or a list of user and admin (got "${bad.join(',')}")`);
    return ['admin'];
  }
  return [...new Set(listed)] as ('user' | 'admin')[];
}
