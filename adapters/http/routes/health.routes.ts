import type { Request, Response } from 'express';
import type { ApiRouter } from '../api-router.ts';

export type HealthChecks = Record<string, () => Promise<void>>;

const CHECK_TIMEOUT_MS = 3000;

async function runCheck(check: () => Promise<void>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return 'ok';
  } catch (error) {
    // Only the message: never a stack or a connection string.
    return (error as Error).message?.split('\n')[0]?.slice(0, 200) || 'failed';
  } finally {
    clearTimeout(timer);
  }
}

export const healthRoutes = (deps: { version: string; checks: HealthChecks }) => (api: ApiRouter) => {
  const handler = async (_req: Request, res: Response) => {
    const names = Object.keys(deps.checks);
    const results = await Promise.all(names.map((name) => runCheck(deps.checks[name]!)));
    const checks = Object.fromEntries(names.map((name, index) => [name, results[index]]));
    const healthy = results.every((result) => result === 'ok');
    res.status(healthy ? 200 : 503).json({ status: healthy ? 'ok' : 'degraded', version: deps.version, checks });
  };
  const spec = {
    method: 'get' as const,
    summary: 'Health: one check per configured integration',
    tag: 'health',
    auth: 'public' as const,
    responses: {
      200: {
        description: 'Every check is ok',
        schema: { type: 'object', properties: { status: { type: 'string' }, version: { type: 'string' }, checks: { type: 'object', additionalProperties: { type: 'string' } } } },
      },
      503: { description: 'At least one check failed (status "degraded")' },
    },
  };
  api.add({ ...spec, path: '/' }, handler);
  api.add({ ...spec, path: '/health' }, handler);
};
