import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/** The document tells the whole truth (ADR 041): named bodies, resolvable refs, CSRF and rate limits where they happen. */
const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'trace'];
type Json = Record<string, any>;

let started: Promise<TestApp> | null = null;
// With mail configured (a relay nobody calls here): the routes that exist only then are in the document too.
const app = () => (started ??= startTestApp('sqlite', { SMTP_URL: 'smtp://127.0.0.1:9', MAIL_FROM: 'no-reply@example.com' }));
test.after.always(async () => {
  if (started) await (await started).close();
});
const documentOf = async (): Promise<Json> => (await (await app()).client().get('/openapi.json')).body as Json;

function operationsOf(doc: Json): { key: string; operation: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, operation: operation as Json })),
  );
}

/** Every body schema of an operation: its request body and each response's, by media type. */
function bodiesOf(operation: Json): { where: string; schema: Json }[] {
  const bodies: { where: string; schema: Json }[] = [];
  for (const [type, media] of Object.entries((operation.requestBody?.content ?? {}) as Json)) bodies.push({ where: `request ${type}`, schema: media.schema });
  for (const [status, response] of Object.entries(operation.responses as Json)) {
    for (const [type, media] of Object.entries((response.content ?? {}) as Json)) bodies.push({ where: `${status} ${type}`, schema: media.schema });
  }
  return bodies;
}

const isObjectSchema = (schema: Json): boolean =>
  !('$ref' in schema) && ([schema.type].flat().includes('object') || 'properties' in schema || 'allOf' in schema || 'oneOf' in schema || 'anyOf' in schema);

test('no request or response body is an inline object schema: each is a $ref (or an array of them, or not an object)', async (t) => {
  const doc = await documentOf();
  const inline: string[] = [];
  for (const { key, operation } of operationsOf(doc)) {
    for (const { where, schema } of bodiesOf(operation)) {
      if (isObjectSchema(schema) || (schema.type === 'array' && isObjectSchema(schema.items ?? {}))) inline.push(`${key} ${where}`);
    }
  }
  t.deepEqual(inline, []);
  t.true(operationsOf(doc).length > 50, 'the walk saw the operations');
});

test('bodies are named after their operation, or by the shared name of their shape', async (t) => {
  const doc = await documentOf();
  const refOf = (path: string, method: string, where: string): string => {
    const operation = doc.paths[path][method];
    const content = where === 'request' ? operation.requestBody.content : operation.responses[where].content;
    const schema = content['application/json'] ?? content['multipart/form-data'];
    return (schema.schema.$ref ?? `array of ${schema.schema.items?.$ref}`).replace('#/components/schemas/', '');
  };
  // Pinned literally: these names are what generated clients call the types.
  t.is(refOf('/generate', 'post', 'request'), 'PostGenerateRequest');
  t.is(refOf('/generate', 'post', '202'), 'GenerationJob');
  t.is(refOf('/generate', 'post', '400'), 'Error');
  t.is(refOf('/generate', 'get', '200'), 'GetGenerateOk');
  t.is(refOf('/auth/login', 'post', 'request'), 'PostAuthLoginRequest');
  t.is(refOf('/auth/login', 'post', '200'), 'PostAuthLoginOk');
  t.is(refOf('/auth/register', 'post', '201'), 'User');
  t.is(refOf('/auth/refresh', 'post', '200'), 'Message');
  t.is(refOf('/my-outputs/{id}/view-url', 'get', '200'), 'GetMyOutputsByIdViewUrlOk');
  t.is(refOf('/uploads', 'post', 'request'), 'PostUploadsRequest');
  t.is(refOf('/templates', 'get', '200'), 'array of CatalogueTemplate');
  t.is(refOf('/api-keys', 'get', '200'), 'array of GetApiKeysOkItem');
  // The Comfy API v2 assets (ADR 042): one Asset shape for uploads and outputs, its own error envelope.
  t.is(refOf('/assets/{id}', 'get', '200'), 'ComfyV2Asset');
  t.is(refOf('/assets', 'post', '201'), 'ComfyV2Asset');
  t.is(refOf('/assets/from-hash', 'post', '201'), 'ComfyV2Asset');
  t.is(refOf('/assets', 'post', 'request'), 'PostAssetsRequest');
  t.is(refOf('/assets/from-hash', 'post', 'request'), 'PostAssetsFromHashRequest');
  t.is(refOf('/assets/{id}', 'delete', '409'), 'ComfyV2Error');
  // A shared shape nested in another is referred to there as well.
  t.deepEqual(doc.components.schemas.PostAuthLoginOk.properties.user, { $ref: '#/components/schemas/User' });
  t.deepEqual(doc.components.schemas.GenerationJob.properties.outputs.items, { $ref: '#/components/schemas/HistoryItem' });
  t.deepEqual(doc.components.schemas.GetGenerateOk.properties.items.items, { $ref: '#/components/schemas/GenerationJob' });
});

test('every $ref resolves, and component names are valid keys that stay distinct ignoring case', async (t) => {
  const doc = await documentOf();
  const refs: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (value === null || typeof value !== 'object') return;
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') refs.push(inner);
      else walk(inner);
    }
  };
  walk(doc);
  t.true(refs.length > 100, `${refs.length} refs`);
  const resolve = (pointer: string): unknown =>
    pointer
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Json)[part] : undefined), doc);
  const dangling = [...new Set(refs)].filter((ref) => !ref.startsWith('#/') || resolve(ref) === undefined);
  t.deepEqual(dangling, []);
  const names = Object.keys(doc.components.schemas);
  t.deepEqual(names.filter((name) => !/^[a-zA-Z0-9._-]+$/.test(name)), [], 'OpenAPI component keys');
  const lower = names.map((name) => name.toLowerCase());
  t.deepEqual(names.filter((_, index) => lower.indexOf(lower[index]!) !== index), [], 'distinct ignoring case (file names of generated code)');
  const unused = names.filter((name) => !refs.includes(`#/components/schemas/${name}`));
  t.deepEqual(unused, [], 'every component is used');
});

test('the document has the structure OpenAPI 3.1 requires', async (t) => {
  const doc = await documentOf();
  t.regex(doc.openapi, /^3\.1\.\d+$/);
  t.is(typeof doc.info.title, 'string');
  t.is(typeof doc.info.version, 'string');
  const schemes = doc.components.securitySchemes as Json;
  for (const [name, scheme] of Object.entries(schemes)) {
    t.true(['apiKey', 'http', 'oauth2', 'openIdConnect', 'mutualTLS'].includes(scheme.type), `${name} type`);
    if (scheme.type === 'apiKey') t.true(['query', 'header', 'cookie'].includes(scheme.in) && typeof scheme.name === 'string', `${name} apiKey`);
    if (scheme.type === 'http') t.is(typeof scheme.scheme, 'string', `${name} http`);
  }
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    t.true(path.startsWith('/'), path);
    for (const key of Object.keys(item)) t.true(METHODS.includes(key) || ['servers', 'parameters', 'summary', 'description'].includes(key), `${path}: ${key}`);
  }
  for (const { key, operation } of operationsOf(doc)) {
    t.true(Object.keys(operation.responses).length > 0, `${key} has responses`);
    for (const [status, response] of Object.entries(operation.responses as Json)) {
      t.regex(status, /^([1-5](\d\d|XX)|default)$/, `${key} ${status}`);
      t.is(typeof response.description, 'string', `${key} ${status} description`);
      for (const header of Object.values((response.headers ?? {}) as Json)) t.truthy(header.schema, `${key} ${status} header schema`);
    }
    for (const parameter of operation.parameters ?? []) {
      t.true(['query', 'header', 'path', 'cookie'].includes(parameter.in) && typeof parameter.name === 'string' && 'schema' in parameter, `${key} parameter`);
      if (parameter.in === 'path') t.true(parameter.required, `${key} path parameter ${parameter.name} is required`);
    }
    if (operation.requestBody) t.true(Object.keys(operation.requestBody.content).length > 0, `${key} request content`);
    t.true(Array.isArray(operation.tags) && operation.tags.every((tag: unknown) => typeof tag === 'string'), `${key} tags`);
    for (const requirement of operation.security ?? []) {
      for (const name of Object.keys(requirement)) t.truthy(schemes[name], `${key}: security scheme ${name} is defined`);
    }
  }
});

/** The error body of an operation: v2's envelope on the /api/v2 surface (its paths carry their own server), else API.md's. */
const errorBodyOf = (doc: Json, key: string): string =>
  doc.paths[key.slice(key.indexOf(' ') + 1)].servers ? '#/components/schemas/ComfyV2Error' : '#/components/schemas/Error';

/** Every operation that answers 429 (pinned): the sign-up and login limits, chat, too many active jobs, and the per-key limit of every route a key may call. */
const RATE_LIMITED = [
  'POST /auth/register', 'POST /auth/login', 'POST /llm/chat',
  // A wrong current password counts as a failed login (ADR 062).
  'POST /auth/password',
  // So does a wrong password when deleting the account (ADR 063).
  'DELETE /auth/account',
  // Mail (ADR 064, 065): reset requests per email and address; a change of email's proof and its limit per user.
  'POST /auth/forgot-password', 'POST /auth/email',
  'GET /auth/profile', 'POST /uploads', 'POST /coin/deduct', 'GET /coin/transactions',
  'GET /templates', 'GET /templates/{id}', 'POST /generate', 'GET /generate', 'GET /generate/{id}', 'POST /generate/{id}/cancel',
  'GET /my-outputs', 'GET /my-outputs/{id}/view-url', 'GET /my-outputs/{id}/download-url', 'DELETE /my-outputs/{id}',
  'POST /admin/coin/add/{userId}', 'POST /admin/coin/deduct/{userId}', 'GET /admin/users', 'GET /admin/users/{id}/transactions', 'GET /admin/audit',
  'GET /workflow-templates/categories', 'GET /workflow-templates/parameter-presets', 'POST /workflow-templates', 'GET /workflow-templates',
  'PUT /workflow-templates/{id}/parameter-map', 'PATCH /workflow-templates/{id}', 'GET /workflow-templates/{id}', 'DELETE /workflow-templates/{id}',
  'GET /admin/jobs', 'POST /admin/jobs/{id}/cancel', 'GET /admin/queue', 'GET /admin/dead-letters', 'POST /admin/dead-letters/{id}/redrive',
  'DELETE /admin/dead-letters/{id}', 'GET /admin/templates/stats', 'GET /admin/fleet',
  'GET /test/sqs-peek-messages', 'POST /test/sqs-queue-stack-test', 'POST /test/storage', 'POST /test/cache',
  'POST /templates/{id}/publish', 'POST /templates/{id}/unpublish', 'POST /admin/templates/{id}/test-runs', 'GET /admin/templates/{id}/test-runs',
  // The Comfy API v2 surface (/api/v2): the per-key limit.
  'POST /jobs', 'GET /jobs/{id}', 'GET /jobs/{id}/workflow', 'GET /jobs/{id}/events', 'POST /jobs/{id}/cancel', 'GET /assets/{id}', 'GET /assets/{id}/content',
  'POST /assets', 'POST /assets/from-hash', 'HEAD /assets/by-hash/{hash}', 'DELETE /assets/{id}',
].sort();

test('429 is documented exactly where a limit answers it, with the error body and Retry-After', async (t) => {
  const doc = await documentOf();
  const limited = operationsOf(doc).filter(({ operation }) => operation.responses['429']);
  t.deepEqual(limited.map(({ key }) => key).sort(), RATE_LIMITED);
  for (const { key, operation } of limited) {
    const response = operation.responses['429'];
    t.deepEqual(response.content, { 'application/json': { schema: { $ref: errorBodyOf(doc, key) } } }, key);
    t.like(response.headers?.['Retry-After'], { required: true, schema: { type: 'integer' } }, `${key} Retry-After`);
    if (operation['x-api-key-scope']) t.regex(response.description, /API_KEY_RATE_LIMIT_PER_MINUTE/, `${key} names the per-key limit`);
  }
  t.regex(doc.paths['/generate'].post.responses['429'].description, /MAX_ACTIVE_JOBS_PER_USER.*API_KEY_RATE_LIMIT_PER_MINUTE/, 'both limits of POST /generate');
});

test('cookie-authenticated state-changing operations require the CSRF header and document its 403; others do not', async (t) => {
  const doc = await documentOf();
  t.like(doc.components.securitySchemes.xsrfHeader, { type: 'apiKey', in: 'header', name: 'X-XSRF-TOKEN' });
  t.regex(doc.components.securitySchemes.xsrfHeader.description, /XSRF-TOKEN cookie/);
  let checked = 0;
  for (const { key, operation } of operationsOf(doc)) {
    const security = (operation.security ?? []) as Json[];
    const cookie = security.find((requirement) => 'cookieAuth' in requirement);
    const changes = /^(POST|PUT|PATCH|DELETE) /.test(key);
    if (!cookie) continue;
    if (changes) {
      checked += 1;
      t.deepEqual(cookie, { cookieAuth: [], xsrfHeader: [] }, `${key}: the cookie goes with the header`);
      const forbidden = operation.responses['403'];
      t.regex(forbidden?.description ?? '', /X-XSRF-TOKEN/, `${key} 403 names the header`);
      t.deepEqual(forbidden.content, { 'application/json': { schema: { $ref: errorBodyOf(doc, key) } } }, `${key} 403 body`);
    } else {
      t.deepEqual(cookie, { cookieAuth: [] }, `${key}: a safe method needs no header`);
      t.notRegex(operation.responses['403']?.description ?? '', /X-XSRF-TOKEN/, `${key}: no CSRF 403`);
    }
  }
  t.true(checked > 20, `${checked} state-changing cookie operations`);
  t.deepEqual(doc.paths['/auth/login'].post.security, [], 'login is public: no CSRF check');

  // What the document says is what the service does.
  const client = (await app()).client();
  const email = `csrf-${randomUUID()}@example.com`;
  t.is((await client.post('/auth/register', { email, password: 'a-long-password-1', displayName: 'C' })).status, 201);
  t.is((await client.post('/auth/login', { email, password: 'a-long-password-1' })).status, 200);
  client.sendXsrf = false;
  const refused = await client.post('/auth/logout');
  t.is(refused.status, 403);
  t.like(refused.body, { statusCode: 403, error: 'Forbidden' });
  t.regex(refused.body.message, /X-XSRF-TOKEN/);
});
