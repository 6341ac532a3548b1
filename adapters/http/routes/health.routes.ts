import type { Request, Response } from 'express';
import type { ApiRouter } from '../api-router.ts';

/** A check resolves (ok, optionally with details such as the GPU servers' VRAM) or throws (its message is shown). */
export type HealthChecks = Record<string, () => Promise<void | Record<string, unknown>>>;

type CheckResult = { status: string; details?: Record<string, unknown> };

/** How long one check may take before it counts as failed (HEALTH_CHECK_TIMEOUT_MS). */
export const DEFAULT_CHECK_TIMEOUT_MS = 3000;

async function runCheck(check: () => Promise<void | Record<string, unknown>>, timeoutMs: number): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const details = await Promise.race([
      check(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return details ? { status: 'ok', details } : { status: 'ok' };
  } catch (error) {
    // Only the message: never a stack or a connection string.
    return { status: (error as Error).message?.split('\n')[0]?.slice(0, 200) || 'failed' };
  } finally {
    clearTimeout(timer);
  }
}

/** Runs every check at once: each one's status ("ok" or its error), what some found, and whether all passed. */
export async function evaluateChecks(checks: HealthChecks, timeoutMs = DEFAULT_CHECK_TIMEOUT_MS): Promise<{ healthy: boolean; checks: Record<string, string>; details: Record<string, unknown> }> {
  const names = Object.keys(checks);
  const results = await Promise.all(names.map((name) => runCheck(checks[name]!, timeoutMs)));
  return {
    healthy: results.every((result) => result.status === 'ok'),
    checks: Object.fromEntries(names.map((name, index) => [name, results[index]!.status])),
    details: Object.fromEntries(names.flatMap((name, index) => (results[index]!.details ? [[name, results[index]!.details]] : []))),
  };
}

/** The probes' answers (also served by the worker's HEALTH_PORT listener): live needs nothing but a turning event loop. */
export const LIVE_ANSWER = { status: 'ok' } as const;

export async function readinessAnswer(checks: HealthChecks, timeoutMs = DEFAULT_CHECK_TIMEOUT_MS): Promise<{ statusCode: 200 | 503; body: { status: 'ready' | 'unready'; checks: Record<string, string> } }> {
  const result = await evaluateChecks(checks, timeoutMs);
  return { statusCode: result.healthy ? 200 : 503, body: { status: result.healthy ? 'ready' : 'unready', checks: result.checks } };
}

export const healthRoutes = (deps: { version: string; checks: HealthChecks; readiness: HealthChecks; timeoutMs: number }) => (api: ApiRouter) => {
  const handler = async (_req: Request, res: Response) => {
    const { healthy, checks, details } = await evaluateChecks(deps.checks, deps.timeoutMs);
    const body = { status: healthy ? 'ok' : 'degraded', version: deps.version, checks, ...(Object.keys(details).length > 0 ? { details } : {}) };
    res.status(healthy ? 200 : 503).json(body);
  };
  const spec = {
    method: 'get' as const,
    summary: 'Health: one check per configured integration',
    tag: 'health',
    auth: 'public' as const,
    responses: {
      200: {
        description: 'Every check is ok',
        schema: {
          type: 'object',
          properties: {
            status: { type: 'string' },
            version: { type: 'string' },
            checks: { type: 'object', additionalProperties: { type: 'string' } },
            details: { type: 'object', description: 'What some checks found, e.g. engine.servers with each GPU server health and VRAM', additionalProperties: { type: 'object' } },
          },
        },
      },
      503: { description: 'At least one check failed (status "degraded")' },
    },
  };
  api.add({ ...spec, path: '/' }, handler);
  api.add({ ...spec, path: '/health' }, handler);
  api.add(
    {
      method: 'get',
      path: '/health/live',
      summary: 'Liveness: 200 while the process runs its event loop; checks no dependency',
      tag: 'health',
      auth: 'public',
      responses: { 200: { description: 'Alive', schema: { type: 'object', properties: { status: { type: 'string', enum: ['ok'] } } } } },
    },
    (_req: Request, res: Response) => void res.json(LIVE_ANSWER),
  );
  api.add(
    {
      method: 'get',
      path: '/health/ready',
      summary: 'Readiness: the database and the queue answer (and, where the worker role runs, at least one engine server)',
      tag: 'health',
      auth: 'public',
      responses: {
        200: {
          description: 'Ready to take traffic or jobs',
          schema: { type: 'object', properties: { status: { type: 'string', enum: ['ready'] }, checks: { type: 'object', additionalProperties: { type: 'string' } } } },
        },
        503: { description: 'A dependency is unreachable (status "unready"; the failing check carries its error)' },
      },
    },
    async (_req: Request, res: Response) => {
      const answer = await readinessAnswer(deps.readiness, deps.timeoutMs);
      res.status(answer.statusCode).json(answer.body);
    },
  );
};
