import { randomUUID } from 'node:crypto';
import cookieParser from 'cookie-parser';
import cors from 'cors';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import swaggerUi from 'swagger-ui-express';
import type { Logger } from '../../core/ports/logger.port.ts';
import { ApiRouter } from './api-router.ts';
import type { AuthDeps } from './auth-middleware.ts';
import { setXsrfCookie, XSRF_COOKIE, type CookiePolicy } from './cookies.ts';
import { errorBody, HttpError } from './error-table.ts';
import { JSON_DEPTH_MAX, jsonDepth } from './json-shape.ts';
import { AsyncApiDocument } from './asyncapi.ts';
import { errorSchema, OpenApiDocument } from './openapi.ts';
import { NAMED_SCHEMAS } from './openapi-components.ts';
import { webAppRouter } from './web-app.ts';
import { connectPagesRouter } from './connect-pages.ts';
import { documentMetrics, METRICS_PATH, metricsHandler, type MetricsEndpoint } from './metrics-route.ts';

export const API_PREFIX = '/api/v1';
export const LEGACY_PREFIX = '/api';

export type RouteModule = (api: ApiRouter) => void;

export interface HttpAppOptions {
  version: string;
  corsOrigins: readonly string[];
  cookies: CookiePolicy;
  auth: AuthDeps;
  logger: Logger;
  modules: RouteModule[];
  bodyLimit?: string;
  /** The built web client (web/dist), served at `/` with client-route fallback; none when null. */
  webRoot?: string | null;
  /** Origins of signed media URLs, allowed by the client's Content-Security-Policy. */
  mediaOrigins?: readonly string[];
  /** Where the social connection pages link back to (FRONTEND_URL). */
  frontendUrl?: string;
  /** Express's `trust proxy` (TRUST_PROXY): whose X-Forwarded-For sets req.ip, which the per-address limits count. */
  trustProxy?: boolean | number | string;
  /** `GET /metrics` on this server (METRICS_TOKEN set); absent: no such route. */
  metrics?: MetricsEndpoint & { token: string };
  /** Told of every finished request, by route pattern (metrics). */
  observeRequest?: (sample: { method: string; route: string; status: number; seconds: number }) => void;
}

/**
 * A request's route label: the pattern of the route that took it (`/api/v1/generate/:id`; Express keeps its mount
 * path in `baseUrl`, also when an error left the router), else one label for what no route matched, or a static file.
 */
function routeOf(req: Request, res: Response): string {
  if (req.route) return `${req.baseUrl}${(req.route as { path: string }).path}`;
  return res.statusCode === 404 ? 'unmatched' : 'static';
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Helmet's headers with the CSP's own directives added to its defaults. HSTS and upgrade-insecure-requests only when
 * the service is served over HTTPS (secure cookies): over plain HTTP the browser would remember to use https for the
 * host, or fetch the page's own scripts over https, and fail.
 */
function securityHeaders(https: boolean, directives: Record<string, string[]> = {}) {
  return helmet({
    ...(https ? {} : { strictTransportSecurity: false }),
    contentSecurityPolicy: { directives: { ...directives, ...(https ? {} : { 'upgrade-insecure-requests': null }) } },
  });
}

export interface HttpApp {
  app: Express;
  openapi: OpenApiDocument;
  /** Waits for route handlers still running (a client that hung up does not stop its handler). */
  drain(timeoutMs: number): Promise<void>;
}

export function createHttpApp(options: HttpAppOptions): HttpApp {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', options.trustProxy ?? 'loopback');
  // No weak ETag hashed over every JSON answer: the API's answers are per user and change with every write,
  // and no client of ours revalidates them. Static files (web client, downloads) keep their own validators.
  app.set('etag', false);
  const openapi = new OpenApiDocument({
    title: 'Media generation service',
    version: options.version,
    description: 'Generate images and videos from ComfyUI workflow templates. Authenticate with the access_token cookie or `Authorization: Bearer <ACCESS_TOKEN>`; scripts and servers use an API key, `Authorization: Bearer mgs_…`, on the operations that list apiKeyAuth (their x-api-key-scope). The WebSocket (/api/v1/ws) and the server-sent-event streams are described in the AsyncAPI document at [/api/v1/asyncapi.json](/api/v1/asyncapi.json).',
  }, NAMED_SCHEMAS);
  const asyncapi = new AsyncApiDocument({ title: 'Media generation service: real-time messages', version: options.version }, API_PREFIX, {
    HistoryItem: NAMED_SCHEMAS.HistoryItem!,
    GenerationJob: NAMED_SCHEMAS.GenerationJob!,
    Error: errorSchema,
  });

  app.use((req: Request, res: Response, next: NextFunction) => {
    // req.headers, not req.get() (a lookup that only adds the Referer alias): the same value, Node joins a repeated one.
    const incoming = req.headers['x-request-id'];
    req.requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', req.requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const durationMs = Number((process.hrtime.bigint() - started) / 1000n) / 1000;
      options.logger.info('request', {
        requestId: req.requestId,
        method: req.method,
        path: req.originalUrl.split('?')[0],
        status: res.statusCode,
        durationMs,
        userId: req.principal?.userId,
      });
      options.observeRequest?.({ method: req.method, route: routeOf(req, res), status: res.statusCode, seconds: durationMs / 1000 });
    });
    next();
  });
  // Before the browser-facing layers: a scraper needs no CORS, cookies or CSRF token.
  if (options.metrics) {
    app.get(METRICS_PATH, metricsHandler(options.metrics));
    documentMetrics(openapi);
  }
  app.use(securityHeaders(options.cookies.secure));
  app.use(
    cors({
      origin: (origin, callback) => callback(null, !origin || options.corsOrigins.includes(origin)),
      credentials: true,
      // One string, not an array that cors joins again on every request (the header's value is the same).
      exposedHeaders: 'X-Request-Id,Retry-After,Deprecation,Link,Idempotent-Replayed',
    }),
  );
  app.use(cookieParser());
  app.use(express.json({ limit: options.bodyLimit ?? '1mb', type: ['application/json', 'application/*+json'] }));
  // One layer for two checks (each layer costs every request a little): every route after this point may walk
  // the body, none has to guard against a stack-deep one; any response gives a browser its CSRF token when
  // it has none yet.
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (jsonDepth(req.body) > JSON_DEPTH_MAX) throw new HttpError(400, `Request body is nested deeper than ${JSON_DEPTH_MAX} levels`);
    if (!(req.cookies as Record<string, string>)[XSRF_COOKIE]) setXsrfCookie(res, options.cookies);
    next();
  });

  const api = new ApiRouter(options.auth, openapi, asyncapi);
  for (const register of options.modules) register(api);
  // The API first: its requests skip the document and Swagger UI layers below.
  app.use(API_PREFIX, api.router);
  // Before the legacy prefix (/api), which would otherwise take /api/v2 for a path of its own.
  for (const { prefix, router } of api.mounts()) app.use(prefix, router);

  app.get(`${API_PREFIX}/openapi.json`, (_req, res) => {
    res.json(openapi.toJSON(API_PREFIX));
  });
  // Served under the prefix like every other route, so it is listed too.
  openapi.addOperation('get', '/openapi.json', {
    summary: 'This OpenAPI 3.1 document',
    tags: ['docs'],
    security: [],
    responses: { 200: { description: 'The document', content: { 'application/json': { schema: { type: 'object' } } } } },
  });
  app.get(`${API_PREFIX}/asyncapi.json`, (_req, res) => {
    res.json(asyncapi.toJSON());
  });
  openapi.addOperation('get', '/asyncapi.json', {
    summary: 'The AsyncAPI 3.0 document of the WebSocket (/ws) and the server-sent-event streams',
    tags: ['docs'],
    security: [],
    responses: { 200: { description: 'The document', content: { 'application/json': { schema: { type: 'object', description: 'AsyncAPI 3.0' } } } } },
  });
  app.use(
    '/api/docs',
    // Swagger UI ships inline bootstrapping; relax the CSP only on its own pages.
    securityHeaders(options.cookies.secure, { 'script-src': ["'self'", "'unsafe-inline'"], 'img-src': ["'self'", 'data:'] }),
    swaggerUi.serve,
    swaggerUi.setup(undefined, { swaggerOptions: { url: `${API_PREFIX}/openapi.json`, persistAuthorization: true } }),
  );
  app.use(
    LEGACY_PREFIX,
    (req: Request, res: Response, next: NextFunction) => {
      res.setHeader('Deprecation', 'true');
      res.setHeader('Link', `<${API_PREFIX}${req.path === '/' ? '' : req.path}>; rel="successor-version"`);
      next();
    },
    api.router,
  );
  app.use(connectPagesRouter(options.frontendUrl ?? ''));
  if (options.webRoot) app.use(webAppRouter(options.webRoot, { secure: options.cookies.secure, mediaOrigins: options.mediaOrigins ?? [] }));

  app.use((req: Request, res: Response) => {
    res.status(404).json(errorBody(404, `No route for ${req.method} ${req.path}`));
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) {
      // The answer was under way (a stream that failed part-way): too late for an error body. Cut a response still
      // open, so its client sees an incomplete transfer instead of waiting for the rest forever, and say why.
      options.logger.error('error after the response started', { requestId: req.requestId, error });
      if (!res.writableEnded) res.destroy();
      return;
    }
    if (error instanceof HttpError) {
      for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
      res.status(error.statusCode).json(errorBody(error.statusCode, error.message, error.details));
      return;
    }
    const typed = error as { type?: string; status?: number };
    if (typed.type === 'entity.too.large') {
      res.status(413).json(errorBody(413, 'Request body is larger than 1 MiB'));
      return;
    }
    if (typed.type === 'entity.parse.failed') {
      res.status(400).json(errorBody(400, 'Request body is not valid JSON'));
      return;
    }
    if (typed.status && typed.status >= 400 && typed.status < 500) {
      res.status(typed.status).json(errorBody(typed.status, 'Bad request'));
      return;
    }
    options.logger.error('unhandled error', { requestId: req.requestId, error });
    res.status(500).json({ ...errorBody(500, `Unexpected error; quote request id ${req.requestId}`), requestId: req.requestId });
  });

  return { app, openapi, drain: (timeoutMs) => api.inFlight.drain(timeoutMs) };
}
