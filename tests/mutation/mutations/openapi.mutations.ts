import { entriesOn, type Mutation } from '../mutation.ts';

const DOCUMENT = 'adapters/http/openapi.ts';
const HOIST = 'adapters/http/openapi-hoist.ts';
const ROUTER = 'adapters/http/api-router.ts';
const TRUTH = 'tests/integration/openapi-truth.test.ts';
const UNIT = 'tests/unit/openapi-hoist.test.ts';
const CLIENT = 'tests/integration/openapi-client.test.ts';
const ASYNCAPI = 'tests/integration/asyncapi.test.ts';

/** The guards of an OpenAPI document that tells the whole truth (ADR 041): each one gone must turn its tests red. */
const router = entriesOn('api router', ROUTER, ['tests/integration/auth-guards.test.ts', 'tests/integration/request-middleware.test.ts']);

const hoist = entriesOn('openapi hoist', HOIST, [UNIT]);

export const MUTATIONS: Mutation[] = [
  // adapters/http/openapi-hoist.ts (tests/unit/openapi-hoist.test.ts)
  hoist('canonical text keeps undefined members', ".filter(([, v]) => v !== undefined);", ';'),
  hoist('canonical text does not sort keys', 'entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(', 'entries.map('),
  hoist('canonical text of arrays ignores order', "if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;", "if (Array.isArray(value)) return `[${value.map(canonical).sort().join(',')}]`;"),
  hoist('a $ref is an inline object', "if (!isRecord(schema) || '$ref' in schema) return false;", 'if (!isRecord(schema)) return false;'),
  hoist('a type list with object is not an inline object', 'const types = Array.isArray(schema.type) ? schema.type : [schema.type];', 'const types = [schema.type];'),
  hoist('an object schema without type is not an inline object', "types.includes('object') || 'properties' in schema ||", "types.includes('object') ||"),
  hoist('a oneOf schema is not an inline object', "'allOf' in schema || 'oneOf' in schema || 'anyOf' in schema;", "'allOf' in schema || 'anyOf' in schema;"),
  hoist('properties are not replaced by references', '    out.properties = Object.fromEntries(', '    out.properties = schema.properties; void Object.fromEntries('),
  hoist('items are not replaced by references', "const SCHEMA_VALUES = ['items', 'additionalProperties', 'not'];", "const SCHEMA_VALUES = ['additionalProperties', 'not'];"),
  hoist('oneOf members are not replaced by references', "const SCHEMA_LISTS = ['allOf', 'oneOf', 'anyOf', 'prefixItems'];", "const SCHEMA_LISTS = ['allOf', 'anyOf', 'prefixItems'];"),
  hoist('a path parameter is named like a segment', 'return parameter ? `By${pascal(parameter[1]!)}` : pascal(segment);', 'return pascal(segment);'),
  hoist('the root path has no name', "return `${pascal(method)}${segments.join('') || 'Root'}`;", "return `${pascal(method)}${segments.join('')}`;"),
  hoist('200 is named OK', "(status === '200' ? 'Ok' : pascal(", '(false as boolean ? \'Ok\' : pascal('),
  hoist('an unknown status has no name', "STATUS_CODES[status] ?? `Status ${status}`", "STATUS_CODES[status] ?? ''"),
  // adapters/http/api-router.ts: the chain every route is registered with
  router('every route is public (no authentication in the chain)', "    if (spec.auth !== 'public') chain.push(requireAuth(this.auth, spec.auth, keyScopeOf(spec)) as RequestHandler);\n", ''),
  { ...router('request validation is skipped', '    if (spec.validate) chain.push(...(checkSchema(spec.validate) as unknown as RequestHandler[]), reportValidation);\n', ''), tests: ['tests/integration/coins.test.ts'] },
  { ...router('a surface asked for twice is made twice (the first one\'s routes are lost)', '    if (!surface) this.surfaces.set(prefix,', '    if (true as boolean) this.surfaces.set(prefix,'), tests: ['tests/integration/comfy-v2.test.ts'] },
  {
    name: 'openapi: operations keep their inline body schemas (no hoisting)',
    file: DOCUMENT,
    find: '(this.paths[path] ??= {})[method] = hoistBodies(method, path, operation, this.registry);',
    replace: '(this.paths[path] ??= {})[method] = operation;',
    tests: [TRUTH, UNIT],
  },
  {
    name: 'openapi: an inline object body is left in place',
    file: HOIST,
    find: 'if (isInlineObject(named)) {',
    replace: 'if (false) {',
    tests: [TRUTH, UNIT, CLIENT],
  },
  {
    name: 'openapi: the inline object items of an array body are left in place',
    file: HOIST,
    find: "if (named.type === 'array' && isInlineObject(named.items))",
    replace: 'if (false)',
    tests: [TRUTH, UNIT],
  },
  {
    name: 'openapi: a shared shape is repeated under operation names instead of referred to by its name',
    file: HOIST,
    find: 'if (name) return refTo(name);',
    replace: 'if (false) return refTo(name);',
    tests: [TRUTH, UNIT],
  },
  {
    name: 'openapi: two different bodies silently share one name',
    file: DOCUMENT,
    find: 'if (held && canonical(held) !== canonical(schema)) throw',
    replace: 'if (false) throw',
    tests: [UNIT],
  },
  {
    name: 'openapi: key routes do not document the per-key 429',
    file: ROUTER,
    find: 'if (keyScope) {\n      const own = spec.responses[429]',
    replace: 'if (false) {\n      const own = spec.responses[429]',
    tests: [TRUTH],
  },
  {
    name: 'openapi: a 429 does not document Retry-After',
    file: ROUTER,
    find: "if (responses['429']) responses['429'] = {",
    replace: "if (false) responses['429'] = {",
    tests: [TRUTH],
  },
  {
    name: 'openapi: the 403 of a state-changing route does not name the CSRF header',
    file: ROUTER,
    find: '...(STATE_CHANGING.has(spec.method) ? [{ text: `a missing or bad',
    replace: '...(false ? [{ text: `a missing or bad',
    tests: [TRUTH],
  },
  {
    name: "openapi: a route's own 403 description is not completed with the reasons it leaves out",
    file: ROUTER,
    find: '.filter((reason) => !own || !reason.named.test(own))',
    replace: '.filter((reason) => !own)',
    tests: [TRUTH],
  },
  {
    name: 'openapi: cookie authentication of a state-changing route does not require the CSRF header',
    file: ROUTER,
    find: '(STATE_CHANGING.has(method) ? { cookieAuth: [], xsrfHeader: [] }',
    replace: '(false ? { cookieAuth: [], xsrfHeader: [] }',
    tests: [TRUTH],
  },
  {
    name: "openapi: the login answer's fields are documented as optional (a generated client cannot rely on them)",
    file: 'adapters/http/routes/auth.routes.ts',
    find: "required: ['user', 'accessTokenExpiresAt', 'refreshTokenExpiresAt'],",
    replace: '',
    tests: [CLIENT],
  },
  {
    name: 'asyncapi: an event field the service sends is missing from its schema',
    file: 'adapters/http/user-event-schemas.ts',
    find: "'job.started': event('job.started', ['attempt', 'etaSeconds'], {\n    attempt: { type: 'integer', minimum: 1 },\n",
    replace: "'job.started': event('job.started', [], {\n",
    tests: [ASYNCAPI],
  },
  {
    name: 'asyncapi: the chat stream is not described',
    file: 'bootstrap/modules/chat.module.ts',
    find: '(api) => api.asyncapi.addSseStream(CHAT_STREAM),',
    replace: '() => undefined,',
    tests: [ASYNCAPI],
  },
  {
    name: 'asyncapi: the error event of the chat stream is described with another shape',
    file: 'adapters/http/chat-stream.ts',
    find: "chatError: { event: 'error', summary: 'The model failed mid-answer (the error body of API.md); the stream ends', payload: errorSchema },",
    replace: "chatError: { event: 'error', summary: 'x', payload: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } } },",
    tests: [ASYNCAPI],
  },
];
