import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { checkSchema, validationResult, type Schema } from 'express-validator';
import type { FieldProblem } from '../../core/domain/result.ts';
import { keyScopeOf } from './api-key-scopes.ts';
import { requireAuth, type AuthDeps, type AuthLevel } from './auth-middleware.ts';
import { HttpError } from './error-table.ts';
import { PATH_PARAMETER, ref, type JsonSchema, type OpenApiDocument } from './openapi.ts';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

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

/** Every reason a protected route answers 403, as documented (the CSRF check, administrators only, API keys). */
function forbiddenWhen(spec: RouteSpec, keyScope: string | null): string {
  const reasons = [
    ...(spec.auth === 'admin' ? ['not an administrator'] : []),
    ...(STATE_CHANGING.has(spec.method) ? ['a missing or bad X-XSRF-TOKEN header (cookie authentication only)'] : []),
    keyScope ? `an API key without the ${keyScope} scope` : 'an API key (this route needs a session)',
  ];
  return `Forbidden: ${reasons.join('; ')}`;
}

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
  readonly inFlight = new InFlightHandlers();

  constructor(
    private readonly auth: AuthDeps,
    private readonly doc: OpenApiDocument,
  ) {}

  add(spec: RouteSpec, handler: Handler): void {
    const chain: RequestHandler[] = [];
    if (spec.auth !== 'public') chain.push(requireAuth(this.auth, spec.auth, keyScopeOf(spec)) as RequestHandler);
    if (spec.validate) chain.push(...(checkSchema(spec.validate) as unknown as RequestHandler[]), reportValidation);
    chain.push(this.inFlight.track(handler));
    this.router[spec.method](spec.path, ...chain);
    this.document(spec);
  }

  /** Mounts a plain Express handler (static pages, signed downloads) and documents it. */
  addRaw(spec: RouteSpec, ...handlers: RequestHandler[]): void {
    const chain: RequestHandler[] = spec.auth === 'public' ? [] : [requireAuth(this.auth, spec.auth, keyScopeOf(spec)) as RequestHandler];
    this.router[spec.method](spec.path, ...chain, ...handlers);
    this.document(spec);
  }

  private document(spec: RouteSpec): void {
    const responses: Record<string, unknown> = {};
    const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ref('Error') } } });
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
    if (spec.auth !== 'public' && !responses['403']) responses['403'] = errorResponse(forbiddenWhen(spec, keyScope));
    if (keyScope && !responses['429']) responses['429'] = errorResponse("The API key's requests per minute are used up (API_KEY_RATE_LIMIT_PER_MINUTE); see Retry-After");
    const parameters = [
      ...[...spec.path.matchAll(PATH_PARAMETER)].map((match) => ({ name: match[1], in: 'path', required: true, schema: { type: 'string' } })),
      ...Object.entries(spec.query ?? {}).map(([name, schema]) => ({ name, in: 'query', required: false, schema })),
      ...Object.entries(spec.headers ?? {}).map(([name, { description, ...schema }]) => ({ name, in: 'header', required: false, description, schema })),
    ];
    this.doc.addOperation(spec.method, spec.path, {
      summary: spec.summary,
      tags: [spec.tag],
      ...(spec.auth === 'public' ? { security: [] } : { security: [{ bearerAuth: [] }, { cookieAuth: [] }, ...(keyScope ? [{ apiKeyAuth: [keyScope] }] : [])] }),
      ...(spec.auth === 'public' ? {} : { 'x-api-key-scope': keyScope }),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(spec.body ? { requestBody: { required: true, content: { [spec.bodyContentType ?? 'application/json']: { schema: spec.body } } } } : {}),
      responses,
    });
  }
}
