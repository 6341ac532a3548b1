import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { checkSchema, validationResult, type Schema } from 'express-validator';
import type { FieldProblem } from '../../core/domain/result.ts';
import { keyScopeOf } from './api-key-scopes.ts';
import type { AsyncApiDocument } from './asyncapi.ts';
import { requireAuth, type AuthDeps, type AuthLevel } from './auth-middleware.ts';
import { HttpError } from './error-table.ts';
import { PATH_PARAMETER, ref, type JsonSchema, type OpenApiDocument } from './openapi.ts';

export type Method = 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteSpec {
  method: Method;
  /** Express path relative to the API prefix, e.g. `/my-outputs/:id/view-url`. */
  path: string;
  summary: string;
  tag: string;
  auth: AuthLevel;
  /** express-validator schema for body, params and query. */
  validate?: Schema;
  body?: JsonSchema;
  /** Media type of `body` in the document; JSON unless a route reads something else (multipart uploads). */
  bodyContentType?: string;
  query?: Record<string, JsonSchema>;
  headers?: Record<string, JsonSchema & { description?: string }>;
  responses: Record<number, { description: string; schema?: JsonSchema; headers?: Record<string, unknown> }>;
}

const STATE_CHANGING = new Set<Method>(['post', 'put', 'patch', 'delete']);

/** The CSRF check (API.md §1), as a client must satisfy it; the security scheme and every 403 it causes say so. */
const CSRF_HEADER_DOC = 'X-XSRF-TOKEN header equal to the XSRF-TOKEN cookie (cookie authentication only; Bearer tokens and API keys need none)';

/**
 * Every reason a protected route answers 403, as documented (administrators only, the CSRF check, API keys), each
 * with the words that show a route's own 403 description already names it.
 */
function forbiddenReasons(spec: RouteSpec, keyScope: string | null): { text: string; named: RegExp }[] {
  return [
    ...(spec.auth === 'admin' ? [{ text: 'not an administrator', named: /administrator/i }] : []),
    ...(STATE_CHANGING.has(spec.method) ? [{ text: `a missing or bad ${CSRF_HEADER_DOC}`, named: /X-XSRF-TOKEN/ }] : []),
    keyScope ? { text: `an API key without the ${keyScope} scope`, named: /API key/i } : { text: 'an API key (this route needs a session)', named: /API key/i },
  ];
}

/** The 403 description: the route's own, completed with every reason it does not name yet. */
function forbiddenWhen(spec: RouteSpec, keyScope: string | null, own: string | undefined): string {
  const missing = forbiddenReasons(spec, keyScope).filter((reason) => !own || !reason.named.test(own)).map((reason) => reason.text);
  if (!own) return `Forbidden: ${missing.join('; ')}`;
  return missing.length > 0 ? `${own}; or ${missing.join('; ')}` : own;
}

/** Every 429 the API sends carries Retry-After (the limiters all know when they free up). */
const RETRY_AFTER_HEADER = { 'Retry-After': { description: 'Seconds to wait before trying again', required: true, schema: { type: 'integer', minimum: 1 } } };
const KEY_LIMIT = "the API key's requests per minute are used up (API_KEY_RATE_LIMIT_PER_MINUTE)";

/** With the cookie, a state-changing request also needs the CSRF header: both schemes in one requirement (AND). */
const cookieRequirement = (method: Method): Record<string, string[]> => (STATE_CHANGING.has(method) ? { cookieAuth: [], xsrfHeader: [] } : { cookieAuth: [] });

export type Handler = (req: Request, res: Response) => Promise<void> | void;

/** Collects express-validator failures into the contract's `details`. */
const reportValidation: RequestHandler = (req: Request, _res: Response, next: NextFunction) => {
  const result = validationResult(req);
  if (result.isEmpty()) return next();
  const seen = new Set<string>();
  const details: FieldProblem[] = [];
  for (const error of result.array()) {
    const field = error.type === 'field' ? error.path : error.type;
    if (seen.has(field)) continue;
    seen.add(field);
    details.push({ field, message: String(error.msg) });
  }
  next(new HttpError(400, 'Validation failed', details));
};

/**
 * Every route is registered through here, so the OpenAPI document lists exactly the routes that exist
 * (a test walks Express's own router to prove it).
 */
/** Counts route handlers still running, so shutdown can wait for them after clients hung up. */
export class InFlightHandlers {
  private running = 0;
  private idle: (() => void)[] = [];

  track(handler: Handler): RequestHandler {
    return async (req, res) => {
      this.running += 1;
      try {
        await handler(req, res);
      } finally {
        this.running -= 1;
        if (this.running === 0) for (const resolve of this.idle.splice(0)) resolve();
      }
    };
  }

  /** Resolves when no handler runs, or after `timeoutMs`. */
  async drain(timeoutMs: number): Promise<void> {
    if (this.running === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.idle.push(resolve)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
  }
}

export class ApiRouter {
  readonly router: Router = express.Router();
  private readonly surfaces = new Map<string, ApiRouter>();

  /** `server`: the prefix of a surface served beside the main API (its operations name it as their server). */
  constructor(
    private readonly auth: AuthDeps,
    private readonly doc: OpenApiDocument,
    /** Where a module describes its WebSocket or server-sent-event messages (`addSseStream`), served as asyncapi.json. */
    readonly asyncapi: AsyncApiDocument,
    private readonly server?: string,
    readonly inFlight: InFlightHandlers = new InFlightHandlers(),
  ) {}

  /** The routes served under another prefix (the Comfy API v2 at /api/v2): same authentication, same document. */
  at(prefix: string): ApiRouter {
    let surface = this.surfaces.get(prefix);
    if (!surface) this.surfaces.set(prefix, (surface = new ApiRouter(this.auth, this.doc, this.asyncapi, prefix, this.inFlight)));
    return surface;
  }

  /** Every surface made with `at`, to be mounted at its prefix. */
  mounts(): { prefix: string; router: Router }[] {
    return [...this.surfaces].map(([prefix, surface]) => ({ prefix, router: surface.router }));
  }

  add(spec: RouteSpec, handler: Handler): void {
    const chain: RequestHandler[] = [];
    if (spec.auth !== 'public') chain.push(requireAuth(this.auth, spec.auth, keyScopeOf(spec)) as RequestHandler);
    if (spec.validate) chain.push(...(checkSchema(spec.validate) as unknown as RequestHandler[]), reportValidation);
    chain.push(this.inFlight.track(handler));
    this.router[spec.method](spec.path, ...chain);
    this.document(spec);
  }


  private document(spec: RouteSpec): void {
    const responses: Record<string, unknown> = {};
    // The Comfy API v2 surface answers its own error envelope (comfy-v2-views.ts), every other surface API.md's body.
    const errorBody = ref(this.server ? 'ComfyV2Error' : 'Error');
    const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: errorBody } } });
    for (const [status, response] of Object.entries(spec.responses)) {
      responses[status] = {
        description: response.description,
        ...(response.headers ? { headers: response.headers } : {}),
        ...(response.schema ? { content: { 'application/json': { schema: response.schema } } } : {}),
      };
    }
    if (spec.validate && !responses['400']) responses['400'] = errorResponse('Validation failed');
    if (spec.auth !== 'public' && !responses['401']) responses['401'] = errorResponse('Missing, invalid or expired access token');
    const keyScope = spec.auth === 'public' ? null : keyScopeOf(spec);
    if (spec.auth !== 'public') {
      const own = spec.responses[403]?.description;
      responses['403'] = { ...errorResponse(''), ...(responses['403'] as object | undefined), description: forbiddenWhen(spec, keyScope, own) };
    }
    if (keyScope) {
      const own = spec.responses[429]?.description;
      responses['429'] = { ...errorResponse(''), ...(responses['429'] as object | undefined), description: own ? `${own}; or ${KEY_LIMIT}` : `Too many requests: ${KEY_LIMIT}` };
    }
    if (responses['429']) responses['429'] = { ...(responses['429'] as object), headers: RETRY_AFTER_HEADER };
    const parameters = [
      ...[...spec.path.matchAll(PATH_PARAMETER)].map((match) => ({ name: match[1], in: 'path', required: true, schema: { type: 'string' } })),
      ...Object.entries(spec.query ?? {}).map(([name, schema]) => ({ name, in: 'query', required: false, schema })),
      ...Object.entries(spec.headers ?? {}).map(([name, { description, ...schema }]) => ({ name, in: 'header', required: false, description, schema })),
    ];
    this.doc.addOperation(spec.method, spec.path, {
      summary: spec.summary,
      tags: [spec.tag],
      ...(spec.auth === 'public' ? { security: [] } : { security: [{ bearerAuth: [] }, cookieRequirement(spec.method), ...(keyScope ? [{ apiKeyAuth: [keyScope] }] : [])] }),
      ...(spec.auth === 'public' ? {} : { 'x-api-key-scope': keyScope }),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(spec.body ? { requestBody: { required: true, content: { [spec.bodyContentType ?? 'application/json']: { schema: spec.body } } } } : {}),
      responses,
    }, this.server === undefined ? {} : { server: this.server });
  }
}
