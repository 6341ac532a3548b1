import type { Request, Response } from 'express';
import type { ApiRouter } from '../api-router.ts';

/** A check resolves (ok, optionally with details such as the GPU servers' VRAM) or throws (its message is shown). */
export type HealthChecks = Record<string, () => Promise<void | Record<string, unknown>>>;

type CheckResult = { status: string; details?: Record<string, unknown> };

const CHECK_TIMEOUT_MS = 3000;

async function runCheck(check: () => Promise<void | Record<string, unknown>>): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const details = await Promise.race([
      check(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
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

export const healthRoutes = (deps: { version: string; checks: HealthChecks }) => (api: ApiRouter) => {
  const handler = async (_req: Request, res: Response) => {
    const names = Object.keys(deps.checks);
    const results = await Promise.all(names.map((name) => runCheck(deps.checks[name]!)));
    const checks = Object.fromEntries(names.map((name, index) => [name, results[index]!.status]));
    const details = Object.fromEntries(names.flatMap((name, index) => (results[index]!.details ? [[name, results[index]!.details]] : [])));
    const healthy = results.every((result) => result.status === 'ok');
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
};
