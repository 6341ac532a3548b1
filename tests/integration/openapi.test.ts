import test from 'ava';
import type { Express } from 'express';
import { toOpenApiPath } from '../../adapters/http/openapi.ts';
import { DATABASES } from '../support/databases.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const PREFIX = '/api/v1';
const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);

interface Layer {
  rawPath?: unknown;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/**
 * Every `METHOD path` Express serves, read from its own router stack (Express 5 / router 2):
 * route layers carry their path and methods, mounted routers their mount path and a nested stack.
 */
function servedRoutes(app: Express): string[] {
  const found: string[] = [];
  const join = (prefix: string, part: unknown): string => {
    if (typeof part !== 'string') throw new Error(`a route or mount path that is not a string: ${String(part)}`);
    return part === '/' ? prefix || '/' : `${prefix}${part}`;
  };
  const walk = (stack: Layer[], prefix: string): void => {
    for (const layer of stack) {
      if (layer.route) {
        const path = join(prefix, layer.route.path);
        for (const [method, on] of Object.entries(layer.route.methods)) if (on) found.push(`${method === '_all' ? 'ALL' : method.toUpperCase()} ${path}`);
      } else if (Array.isArray(layer.handle?.stack)) {
        walk(layer.handle.stack, layer.rawPath === undefined || layer.rawPath === '/' ? prefix : join(prefix, layer.rawPath));
      }
    }
  };
  const router = (app as unknown as { router: { stack: Layer[] } }).router;
  walk(router.stack, '');
  return [...new Set(found)].sort();
}

/** `/api/v1/my-outputs/:id` → `/my-outputs/{id}` (the document's paths are relative to its server, /api/v1). */
const documentPath = (expressPath: string): string => {
  return toOpenApiPath(expressPath.slice(PREFIX.length).replace(/\/$/, '') || '/');
};

let started: Promise<TestApp> | null = null;
const app = () => (started ??= startTestApp(DATABASES[0] ?? 'sqlite'));
test.after.always(async () => {
  if (started) await (await started).close();
});

test('every route Express serves under /api/v1 is in openapi.json, and every documented operation is served', async (t) => {
  const testApp = await app();
  // A path with servers of its own (the Comfy API v2 at /api/v2, ADR 040) is compared under that server.
  const V2 = '/api/v2';
  const served = servedRoutes(testApp.app.http!)
    .filter((route) => {
      const path = route.slice(route.indexOf(' ') + 1);
      return path === PREFIX || path.startsWith(`${PREFIX}/`) || path.startsWith(`${V2}/`);
    })
    .map((route) => {
      const [method, path] = route.split(' ') as [string, string];
      return path.startsWith(`${V2}/`) ? `${method} ${V2}${toOpenApiPath(path.slice(V2.length))}` : `${method} ${documentPath(path)}`;
    });
  t.true(served.includes('POST /auth/login'), `the walk found the auth routes: ${served.join(', ')}`);
  t.true(served.includes('GET /health'));

  const res = await testApp.client().get('/openapi.json');
  t.is(res.status, 200);
  const documented = Object.entries(res.body.paths as Record<string, Record<string, unknown> & { servers?: { url: string }[] }>)
    .flatMap(([path, operations]) => Object.keys(operations).filter((key) => METHODS.has(key)).map((method) => `${method.toUpperCase()} ${operations.servers?.[0]?.url ?? ''}${path}`))
    .sort();

  const undocumented = [...new Set(served)].filter((route) => !documented.includes(route));
  const notServed = documented.filter((route) => !served.includes(route));
  t.deepEqual(undocumented, [], 'served but missing from openapi.json');
  t.deepEqual(notServed, [], 'in openapi.json but not served');
});

test('openapi.json is OpenAPI 3.1 with bearerAuth on every protected operation', async (t) => {
  const res = await (await app()).client().get('/openapi.json');
  t.is(res.status, 200);
  const doc = res.body;
  t.regex(doc.openapi, /^3\.1\.\d+$/);
  t.is(typeof doc.info.title, 'string');
  t.regex(doc.info.version, /^\d+\.\d+\.\d+/);
  t.deepEqual(doc.servers, [{ url: PREFIX }]);
  t.like(doc.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer' });
  t.truthy(doc.components.schemas.Error);

  const profile = doc.paths['/auth/profile'].get;
  t.true(profile.security.some((requirement: Record<string, unknown>) => 'bearerAuth' in requirement));
  t.deepEqual(doc.paths['/auth/login'].post.security, [], 'login is public');
  type Operation = { security?: Record<string, unknown>[]; responses?: object; parameters?: { name: string; in: string }[] };
  for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
    t.notRegex(path, /[:*]/, `${path} is an OpenAPI path template, not an Express pattern`);
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]).sort();
    for (const [method, operation] of Object.entries(operations)) {
      if (!METHODS.has(method)) continue;
      const declared = (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name).sort();
      t.deepEqual(declared, templated, `${method} ${path} declares each path parameter`);
      t.truthy(operation.responses, `${method} ${path} has responses`);
      t.true(Array.isArray(operation.security), `${method} ${path} states its security`);
      if (operation.security!.length > 0) t.true(operation.security!.some((r) => 'bearerAuth' in r), `${method} ${path} accepts bearerAuth`);
    }
  }
});

test('GET /api/docs serves Swagger UI pointed at the document', async (t) => {
  const { baseUrl } = await app();
  const page = await fetch(`${baseUrl}/api/docs`);
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type') ?? '', /text\/html/);
  const html = await page.text();
  t.regex(html, /swagger-ui/i);
  const init = await fetch(new URL('swagger-ui-init.js', page.url));
  t.is(init.status, 200);
  t.true((await init.text()).includes(`${PREFIX}/openapi.json`));
});

test('the upload route documents its multipart body', async (t) => {
  const app = await startTestApp('sqlite');
  t.teardown(() => app.close());
  const doc = (await app.client().get('/openapi.json')).body;
  const body = doc.paths['/uploads'].post.requestBody;
  t.deepEqual(Object.keys(body.content), ['multipart/form-data']);
  const schema = doc.components.schemas[body.content['multipart/form-data'].schema.$ref.replace('#/components/schemas/', '')];
  t.is(schema.properties.file.format, 'binary');
});

/** Every route of API.md (§1–§10), as the document names them under /api/v1. */
const API_MD_ROUTES = [
  'POST /auth/register', 'POST /auth/login', 'POST /auth/refresh', 'POST /auth/logout', 'GET /auth/profile',
  'GET /auth/{provider}', 'GET /auth/{provider}/callback',
  'POST /coin/deduct', 'GET /coin/transactions', 'GET /admin/users', 'POST /admin/coin/add/{userId}', 'POST /admin/coin/deduct/{userId}',
  'GET /workflow-templates', 'POST /workflow-templates', 'GET /workflow-templates/{id}', 'PATCH /workflow-templates/{id}', 'DELETE /workflow-templates/{id}',
  'PUT /workflow-templates/{id}/parameter-map', 'GET /workflow-templates/categories', 'GET /workflow-templates/parameter-presets',
  'GET /templates', 'GET /templates/{id}',
  'POST /generate', 'GET /generate', 'GET /generate/{id}', 'POST /generate/{id}/cancel', 'POST /uploads',
  'GET /my-outputs', 'GET /my-outputs/{id}/view-url', 'GET /my-outputs/{id}/download-url', 'DELETE /my-outputs/{id}',
  'POST /my-outputs/{id}/publish', 'GET /my-outputs/{id}/publications',
  'GET /connect/{platform}', 'GET /connect/{platform}/callback', 'GET /connections', 'POST /disconnect/{platform}',
  'POST /llm/chat',
  'GET /test/sqs-peek-messages', 'POST /test/sqs-queue-stack-test', 'POST /test/storage', 'POST /test/cache',
  'GET /health', 'GET /openapi.json',
];

test('the OpenAPI document lists every route of API.md', async (t) => {
  const res = await (await app()).client().get('/openapi.json');
  const documented = new Set(
    Object.entries(res.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, operations]) =>
      Object.keys(operations).filter((key) => METHODS.has(key)).map((method) => `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`),
    ),
  );
  const missing = API_MD_ROUTES.filter((route) => !documented.has(route.replace(/\{[^}]+\}/g, '{}')));
  t.deepEqual(missing, []);
});
