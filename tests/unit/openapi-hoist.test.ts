import test from 'ava';
import { OpenApiDocument, ref } from '../../adapters/http/openapi.ts';
import { canonical, isInlineObject, operationName, refNamed, statusName } from '../../adapters/http/openapi-hoist.ts';

const shared = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } };
const doc = () => new OpenApiDocument({ title: 't', version: '1.0.0' }, { Thing: shared });
const schemasOf = (document: OpenApiDocument) => (document.toJSON('/api/v1').components as { schemas: Record<string, any> }).schemas;
const bodyOf = (document: OpenApiDocument, path: string, method: string, status: string) =>
  ((document.toJSON('/api/v1').paths as any)[path][method].responses[status].content['application/json'].schema as Record<string, unknown>);

test('names come from the operation alone', (t) => {
  t.is(operationName('post', '/generate'), 'PostGenerate');
  t.is(operationName('get', '/my-outputs/{id}/view-url'), 'GetMyOutputsByIdViewUrl');
  t.is(operationName('get', '/'), 'GetRoot');
  t.is(operationName('post', '/v2/jobs/{jobId}/events'), 'PostV2JobsByJobIdEvents');
  t.is(statusName('200'), 'Ok');
  t.is(statusName('202'), 'Accepted');
  t.is(statusName('429'), 'TooManyRequests');
});

test('a route added later (any branch) gets its inline bodies named; a shared shape is referred to by its name', (t) => {
  const document = doc();
  document.addOperation('post', '/v2/jobs', {
    summary: 's',
    tags: ['v2'],
    requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { thing: { ...shared }, n: { type: 'integer' } } } } } },
    responses: {
      201: { description: 'c', content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } } } },
      200: { description: 'o', content: { 'application/json': { schema: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } } } } },
      400: { description: 'e', content: { 'application/json': { schema: ref('Error') } } },
    },
  });
  const schemas = schemasOf(document);
  t.deepEqual(bodyOf(document, '/v2/jobs', 'post', '201'), { $ref: '#/components/schemas/Thing' });
  t.deepEqual(bodyOf(document, '/v2/jobs', 'post', '200'), { type: 'array', items: { $ref: '#/components/schemas/PostV2JobsOkItem' } });
  t.deepEqual(bodyOf(document, '/v2/jobs', 'post', '400'), { $ref: '#/components/schemas/Error' });
  t.deepEqual(schemas.PostV2JobsRequest.properties.thing, { $ref: '#/components/schemas/Thing' });
  t.deepEqual(schemas.PostV2JobsOkItem, { type: 'object', properties: { a: { type: 'string' } } });
});

test('two different bodies that would get one name stop the document from being built', (t) => {
  const document = doc();
  const body = (schema: object) => ({ summary: 's', tags: ['x'], responses: { 200: { description: 'o', content: { 'application/json': { schema } } } } });
  document.addOperation('get', '/a-b', body({ type: 'object', properties: { a: { type: 'string' } } }));
  t.throws(() => document.addOperation('get', '/a_b', body({ type: 'object', properties: { b: { type: 'string' } } })), { message: /GetABOk/ });
});

// Pins the pieces the naming rests on, each on its own: the canonical text (undefined members dropped, keys sorted,
// array order kept), what counts as an object written in place (an object by type, type list, properties or
// composition, never a $ref), and where named parts are found (properties, items, oneOf members).
test('canonical text, inline objects and references inside schemas', (t) => {
  t.is(canonical({ b: 1, a: undefined, c: [2, 1] }), canonical({ c: [2, 1], b: 1 }));
  t.not(canonical([1, 2]), canonical([2, 1]), 'array order matters (prefixItems, enums)');
  for (const inline of [{ type: 'object' }, { type: ['object', 'null'] }, { properties: {} }, { allOf: [] }, { oneOf: [] }, { anyOf: [] }]) t.true(isInlineObject(inline), JSON.stringify(inline));
  for (const other of [{ $ref: '#/components/schemas/Thing', type: 'object' }, { type: 'string' }, { type: 'array' }, null, [shared]]) t.false(isInlineObject(other), JSON.stringify(other));
  const registry = { nameOf: (schema: unknown) => (canonical(schema) === canonical(shared) ? 'Thing' : null), register: () => undefined };
  const thing = { $ref: '#/components/schemas/Thing' };
  t.deepEqual(refNamed({ type: 'array', items: { ...shared } }, registry), { type: 'array', items: thing });
  t.deepEqual(refNamed({ oneOf: [{ ...shared }, { type: 'null' }] }, registry), { oneOf: [thing, { type: 'null' }] });
  t.deepEqual(refNamed({ type: 'object', properties: { x: { ...shared } } }, registry), { type: 'object', properties: { x: thing } });
  t.is(statusName('599'), 'Status599', 'a status Node has no name for is named by its number');
});
