import { canonical, hoistBodies, refNamed, type SchemaRegistry } from './openapi-hoist.ts';

/** A tiny OpenAPI 3.1 document builder: routes describe themselves as they are registered. */
export type JsonSchema = Record<string, unknown>;

export interface OperationDoc {
  summary: string;
  tags: string[];
  security?: Record<string, string[]>[];
  parameters?: Record<string, unknown>[];
  requestBody?: Record<string, unknown>;
  responses: Record<string, unknown>;
  deprecated?: boolean;
  /** The API-key scope the operation needs, or null when it refuses keys (ADR 035). */
  'x-api-key-scope'?: string | null;
}

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

export const errorSchema: JsonSchema = {
  type: 'object',
  required: ['statusCode', 'error', 'message'],
  properties: {
    statusCode: { type: 'integer' },
    error: { type: 'string' },
    message: { type: 'string' },
    details: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } } },
    requestId: { type: 'string' },
  },
};

export const pageSchema = (item: JsonSchema): JsonSchema => ({
  type: 'object',
  required: ['items', 'page', 'limit', 'total', 'totalPages'],
  properties: {
    items: { type: 'array', items: item },
    page: { type: 'integer' },
    limit: { type: 'integer' },
    total: { type: 'integer' },
    totalPages: { type: 'integer' },
  },
});

export const pageQuery = {
  page: { type: 'integer', minimum: 1, default: 1 },
  limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
};

export class OpenApiDocument {
  private readonly paths: Record<string, Record<string, OperationDoc>> = {};
  private readonly schemas: Record<string, JsonSchema> = { Error: errorSchema };
  /** Canonical text → name of the components a body may reuse: the named ones, not those named after an operation. */
  private readonly reusable = new Map<string, string>([[canonical(errorSchema), 'Error']]);
  private readonly registry: SchemaRegistry = {
    nameOf: (schema) => this.reusable.get(canonical(schema)) ?? null,
    register: (name, schema) => {
      const held = this.schemas[name];
      if (held && canonical(held) !== canonical(schema)) throw new Error(`two different schemas would both be named ${name} in the OpenAPI document`);
      this.schemas[name] = schema;
    },
  };
  private readonly servers: Record<string, { url: string }[]> = {};
  private readonly securitySchemes: Record<string, JsonSchema> = {
    bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    apiKeyAuth: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'mgs_…',
      description: 'An API key (POST /api-keys) in Authorization: Bearer; no CSRF header. Each operation lists the scope it needs (x-api-key-scope); operations without apiKeyAuth refuse keys.',
    },
    cookieAuth: { type: 'apiKey', in: 'cookie', name: 'access_token' },
    xsrfHeader: {
      type: 'apiKey',
      in: 'header',
      name: 'X-XSRF-TOKEN',
      description:
        'CSRF double submit: with cookieAuth, every POST, PUT, PATCH and DELETE sends this header with the value of the XSRF-TOKEN cookie (readable by scripts; any response sets it when missing, login sets a fresh one); without it the answer is 403. Bearer tokens and API keys need no header.',
    },
  };

  /** `components`: schemas with a name of their own (User, GenerationJob...), reused wherever a body holds one. */
  constructor(
    private readonly info: { title: string; version: string; description?: string },
    components: Record<string, JsonSchema> = {},
  ) {
    for (const [name, schema] of Object.entries(components)) this.addSchema(name, schema);
  }

  addSecurityScheme(name: string, scheme: JsonSchema): void {
    this.securitySchemes[name] = scheme;
  }

  /** A named component: any body, or part of one, equal to it becomes a $ref to it (also inside other components). */
  addSchema(name: string, schema: JsonSchema): void {
    this.reusable.set(canonical(schema), name);
    this.schemas[name] = schema;
    for (const [held, body] of Object.entries(this.schemas)) this.schemas[held] = refNamed(body, this.registry, true);
  }

  /** `options.server`: an operation served outside the document's server (`/metrics` at the root). */
  addOperation(method: string, expressPath: string, operation: OperationDoc, options: { server?: string } = {}): void {
    const path = toOpenApiPath(expressPath);
    (this.paths[path] ??= {})[method] = hoistBodies(method, path, operation, this.registry);
    if (options.server !== undefined) this.servers[path] = [{ url: options.server }];
  }

  operations(): { method: string; path: string }[] {
    return Object.entries(this.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => ({ method, path })));
  }

  toJSON(serverPrefix: string): Record<string, unknown> {
    return {
      openapi: '3.1.0',
      info: this.info,
      servers: [{ url: serverPrefix }],
      paths: Object.fromEntries(Object.entries(this.paths).map(([path, item]) => [path, this.servers[path] ? { servers: this.servers[path], ...item } : item])),
      components: {
        schemas: this.schemas,
        securitySchemes: this.securitySchemes,
      },
    };
  }
}

/** Express's named parameters: `:id`, and Express 5 wildcards such as `*splat` (several segments). */
export const PATH_PARAMETER = /[:*]([A-Za-z0-9_]+)/g;

/** `/my-outputs/:id/view-url` → `/my-outputs/{id}/view-url`; `/files/*splat` → `/files/{splat}` */
export const toOpenApiPath = (expressPath: string): string => expressPath.replace(PATH_PARAMETER, '{$1}');
