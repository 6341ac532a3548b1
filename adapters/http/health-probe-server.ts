import { createServer, type Server, type ServerResponse } from 'node:http';
import { errorBody } from './error-table.ts';
import { LIVE_ANSWER, readinessAnswer, type HealthChecks } from './routes/health.routes.ts';

/** The probe paths, the same as the API's, so one probe definition fits every role. */
export const PROBE_PATHS = { live: '/api/v1/health/live', ready: '/api/v1/health/ready' } as const;

function send(res: ServerResponse, statusCode: number, body: unknown): void {
  res.writeHead(statusCode, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/**
 * The HEALTH_PORT listener: only the live and ready probes, for a process without the HTTP API (a worker), so a
 * supervisor or Kubernetes can probe it. Plain node:http: nothing else is served here, so nothing else is exposed.
 */
export function createHealthProbeServer(readiness: HealthChecks, timeoutMs: number): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === PROBE_PATHS.live) return send(res, 200, LIVE_ANSWER);
    if (req.method !== 'GET' || path !== PROBE_PATHS.ready) return send(res, 404, errorBody(404, `No route for ${req.method} ${path}`));
    readinessAnswer(readiness, timeoutMs).then(
      (answer) => send(res, answer.statusCode, answer.body),
      () => send(res, 500, errorBody(500, 'Readiness could not be evaluated')),
    );
  });
}
