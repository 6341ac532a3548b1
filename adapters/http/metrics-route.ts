import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import { errorBody } from './error-table.ts';
import type { OpenApiDocument } from './openapi.ts';

/** `GET /metrics` (ADR 029): Prometheus' text format, behind METRICS_TOKEN when one is set. */
export interface MetricsEndpoint {
  /** Required as `Authorization: Bearer <token>` when set; null only on the separate METRICS_PORT listener. */
  token: string | null;
  contentType: string;
  render(): Promise<string>;
}

export const METRICS_PATH = '/metrics';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Constant time whatever the lengths: both sides are hashed to 32 bytes first. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '');
  const same = timingSafeEqual(digest(match?.[1] ?? ''), digest(token));
  return match !== null && same;
}

export function metricsHandler(endpoint: MetricsEndpoint): RequestHandler {
  return async (req: Request, res: Response) => {
    if (endpoint.token !== null && !bearerMatches(req.get('authorization'), endpoint.token)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      res.status(401).json(errorBody(401, 'Metrics need Authorization: Bearer <METRICS_TOKEN>'));
      return;
    }
    const body = await endpoint.render();
    res.setHeader('Cache-Control', 'no-store');
    res.type(endpoint.contentType).send(body);
  };
}

/** Lists `GET /metrics` in the API's document: served at the root, not under the API prefix, hence its own server. */
export function documentMetrics(openapi: OpenApiDocument): void {
  openapi.addSecurityScheme('metricsToken', { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN' });
  openapi.addOperation(
    'get',
    METRICS_PATH,
    {
      summary: 'Prometheus metrics of this process (text exposition format)',
      tags: ['operations'],
      security: [{ metricsToken: [] }],
      responses: {
        200: { description: 'The metrics', content: { 'text/plain': { schema: { type: 'string' } } } },
        401: { description: 'Missing or wrong METRICS_TOKEN', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
    },
    { server: '/' },
  );
}

/** The separate listener of METRICS_PORT (api and worker processes): `GET /metrics` and nothing else. */
export function createMetricsApp(endpoint: MetricsEndpoint): Express {
  const app = express();
  app.disable('x-powered-by');
  app.get(METRICS_PATH, metricsHandler(endpoint));
  app.use((req: Request, res: Response) => {
    res.status(404).json(errorBody(404, `No route for ${req.method} ${req.path}`));
  });
  return app;
}
