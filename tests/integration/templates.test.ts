import { randomUUID } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { READY_TEMPLATES } from '../../core/domain/ready-templates.ts';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import type { TestClient, TestResponse } from '../support/test-client.ts';

const ADMIN = 'admin@example.com';

const workflow = () => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 64, batch_size: 1, color: 0 } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'test' } },
  '3': { class_type: 'PrimitiveString', inputs: { value: 'hello' } },
  '4': { class_type: 'PreviewAny', inputs: { source: ['3', 0] } },
});

const parameterMap = () => ({
  prompt: { preset: 'prompt', node_id: '3', input_name: 'value', required: true },
  width: { preset: 'width', node_id: '1', input_name: 'width', max: 1024 },
});

const step1 = (extra: Record<string, unknown> = {}) => ({
  name: `Square ${randomUUID()}`,
  category: 'text-to-image',
  workflow: workflow(),
  cost: 2,
  outputType: 'image',
  ...extra,
});

/** A 400 whose details name `field`, with the contract's error shape. */
const assertInvalid = (t: ExecutionContext, res: TestResponse, field: string, fragment?: string): void => {
  t.is(res.status, 400, JSON.stringify(res.body));
  t.like(res.body, { statusCode: 400, error: 'Bad Request' });
  const problem = (res.body.details as { field: string; message: string }[] | undefined)?.find((p) => p.field === field);
  t.truthy(problem, `no detail on ${field}: ${JSON.stringify(res.body.details)}`);
  if (fragment) t.true(problem!.message.includes(fragment), `"${problem?.message}" lacks "${fragment}"`);
};

function suite(db: TestDatabase): void {
  const title = (name: string) => `[${db}] ${name}`;
  let started: Promise<{ app: TestApp; admin: TestClient; user: TestClient }> | null = null;
  const ctx = () =>
    (started ??= (async () => {
      const app = await startTestApp(db, { ADMIN_EMAILS: ADMIN, SEED_TEMPLATES: 'false' });
      const admin = app.client();
      await admin.signUp({ email: ADMIN });
      const user = app.client();
      await user.signUp();
      return { app, admin, user };
    })());
  test.after.always(async () => {
    if (started) await (await started).app.close();
  });

  const createTemplate = async (admin: TestClient, extra: Record<string, unknown> = {}) => {
    const res = await admin.post('/workflow-templates', step1(extra));
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string; name: string; version: number };
  };

  test(title('two-step flow: create, then PUT the map; the response shows each item\'s class_type and version 2'), async (t) => {
    const { admin } = await ctx();
    const body = step1({ description: 'A test square' });
    const created = await admin.post('/workflow-templates', body);
    t.is(created.status, 201, JSON.stringify(created.body));
    t.like(created.body, { name: body.name, description: 'A test square', category: 'text-to-image', cost: 2, outputType: 'image', isActive: true, version: 1, parameter_map: {} });
    t.deepEqual(created.body.workflow, workflow());
    t.regex(created.body.id, /^[0-9a-f-]{36}$/);
    t.is(new Date(created.body.createdAt).toISOString(), created.body.createdAt);

    const put = await admin.put(`/workflow-templates/${created.body.id}/parameter-map`, parameterMap());
    t.is(put.status, 200, JSON.stringify(put.body));
    t.is(put.body.version, 2);
    t.like(put.body.parameter_map.prompt, { key: 'prompt', type: 'string', node_id: '3', input_name: 'value', class_type: 'PrimitiveString', preset: 'prompt', required: true });
    t.like(put.body.parameter_map.width, { type: 'integer', class_type: 'EmptyImage', min: 64, max: 1024, default: 512 });

    const got = await admin.get(`/workflow-templates/${created.body.id}`);
    t.is(got.status, 200);
    t.deepEqual(got.body, put.body);
    const list = await admin.get('/workflow-templates');
    t.is(list.status, 200);
    t.deepEqual(list.body.find((x: { id: string }) => x.id === created.body.id), put.body);
    const wrapped = await admin.put(`/workflow-templates/${created.body.id}/parameter-map`, { parameter_map: parameterMap() });
    t.like(wrapped.body, { version: 2 }, 'the same map, wrapped, is no change');
    // Only a wrapper alone is one: beside another key, "parameter_map" is an item of the map, and not a valid one.
    const crowded = await admin.put(`/workflow-templates/${created.body.id}/parameter-map`, { parameter_map: parameterMap(), note: 'x' });
    t.is(crowded.status, 400);
    t.true(crowded.body.details.some((d: { field: string }) => d.field.startsWith('parameter_map.parameter_map')), JSON.stringify(crowded.body.details));
  });

  test(title('a bad workflow is 400 naming the node and input; nothing is stored'), async (t) => {
    const { admin } = await ctx();
    const broken = { ...workflow(), '2': { class_type: 'SaveImage', inputs: { images: ['9', 0], filename_prefix: 'x' } } };
    const name = `Broken ${randomUUID()}`;
    assertInvalid(t, await admin.post('/workflow-templates', step1({ name, workflow: broken })), 'workflow.2.inputs.images', 'node 9');
    const noOutput = { '1': workflow()['1'] };
    assertInvalid(t, await admin.post('/workflow-templates', step1({ workflow: noOutput })), 'workflow', 'no output node');
    const many = await admin.post('/workflow-templates', { name: '', category: 'painting', workflow: workflow(), cost: -1, outputType: 'gif' });
    t.deepEqual(many.body.details.map((p: { field: string }) => p.field).sort(), ['category', 'cost', 'name', 'outputType']);
    const list = await admin.get('/workflow-templates');
    t.false(list.body.some((x: { name: string }) => x.name === name));
  });

  test(title('map errors are 400 naming the item: unknown node or input, missing required parameter, preset used twice'), async (t) => {
    const { admin } = await ctx();
    const { id } = await createTemplate(admin);
    const put = (map: unknown) => admin.put(`/workflow-templates/${id}/parameter-map`, map);
    assertInvalid(t, await put({ ...parameterMap(), width: { preset: 'width', node_id: '77', input_name: 'width' } }), 'parameter_map.width.node_id', '77');
    assertInvalid(t, await put({ ...parameterMap(), width: { preset: 'width', node_id: '1', input_name: 'depth' } }), 'parameter_map.width.input_name', 'depth');
    assertInvalid(t, await put({ width: parameterMap().width }), 'parameter_map.prompt', 'prompt');
    assertInvalid(t, await put({ ...parameterMap(), w2: { preset: 'width', node_id: '1', input_name: 'height' } }), 'parameter_map.w2.preset', 'twice');
    t.is((await admin.get(`/workflow-templates/${id}`)).body.version, 1, 'no rejected map was stored');
  });

  test(title('a taken name is 409, case-insensitively, on create and on rename'), async (t) => {
    const { admin } = await ctx();
    const first = await createTemplate(admin);
    const again = await admin.post('/workflow-templates', step1({ name: first.name.toUpperCase() }));
    t.is(again.status, 409);
    t.like(again.body, { statusCode: 409, error: 'Conflict' });
    const second = await createTemplate(admin);
    t.is((await admin.patch(`/workflow-templates/${second.id}`, { name: first.name })).status, 409);
  });

  test(title('PATCH: metadata keeps the version, a new workflow bumps it and re-checks the map'), async (t) => {
    const { admin } = await ctx();
    const { id } = await createTemplate(admin);
    await admin.put(`/workflow-templates/${id}/parameter-map`, parameterMap());
    const meta = await admin.patch(`/workflow-templates/${id}`, { cost: 7, description: 'Now with a description', isActive: false, unknownField: 1 });
    t.is(meta.status, 200, JSON.stringify(meta.body));
    t.like(meta.body, { cost: 7, description: 'Now with a description', isActive: false, version: 2 });

    const { '3': _p, '4': _q, ...withoutPrompt } = workflow();
    const breaking = await admin.patch(`/workflow-templates/${id}`, { workflow: withoutPrompt });
    assertInvalid(t, breaking, 'parameter_map.prompt.node_id');

    const changed = workflow();
    changed['1'].inputs.color = 0xff0000;
    const bumped = await admin.patch(`/workflow-templates/${id}`, { workflow: changed });
    t.is(bumped.status, 200, JSON.stringify(bumped.body));
    t.like(bumped.body, { version: 3, cost: 7 });
    t.is(bumped.body.workflow['1'].inputs.color, 0xff0000);
    t.is(bumped.body.parameter_map.width.class_type, 'EmptyImage');

    const both = await admin.patch(`/workflow-templates/${id}`, { parameter_map: { prompt: parameterMap().prompt }, cost: 'free' });
    assertInvalid(t, both, 'cost');
    t.is((await admin.get(`/workflow-templates/${id}`)).body.version, 3);
  });

  test(title('DELETE is 204; then every admin route for it is 404 and its name is free'), async (t) => {
    const { admin } = await ctx();
    const { id, name } = await createTemplate(admin);
    const deleted = await admin.delete(`/workflow-templates/${id}`);
    t.is(deleted.status, 204);
    t.is(deleted.body, '');
    t.is((await admin.get(`/workflow-templates/${id}`)).status, 404);
    t.is((await admin.put(`/workflow-templates/${id}/parameter-map`, parameterMap())).status, 404);
    t.is((await admin.patch(`/workflow-templates/${id}`, { cost: 1 })).status, 404);
    t.is((await admin.delete(`/workflow-templates/${id}`)).status, 404);
    t.false((await admin.get('/workflow-templates')).body.some((x: { id: string }) => x.id === id));
    t.is((await admin.post('/workflow-templates', step1({ name }))).status, 201);
  });

  test(title('unknown and non-UUID ids are 404 everywhere'), async (t) => {
    const { admin, user } = await ctx();
    for (const id of [randomUUID(), 'not-a-uuid', '12345']) {
      t.is((await admin.get(`/workflow-templates/${id}`)).status, 404, id);
      t.is((await admin.patch(`/workflow-templates/${id}`, { cost: 1 })).status, 404, id);
      t.is((await admin.put(`/workflow-templates/${id}/parameter-map`, parameterMap())).status, 404, id);
      t.is((await admin.delete(`/workflow-templates/${id}`)).status, 404, id);
      t.is((await user.get(`/templates/${id}`)).status, 404, id);
    }
  });

  test(title('categories and parameter presets; categories is not captured by /:id'), async (t) => {
    const { admin } = await ctx();
    const categories = await admin.get('/workflow-templates/categories');
    t.is(categories.status, 200);
    t.deepEqual(categories.body, ['text-to-image', 'image-to-image', 'text-to-video', 'image-to-video', 'upscale']);
    const all = await admin.get('/workflow-templates/parameter-presets');
    t.is(all.status, 200);
    for (const key of ['prompt', 'negative_prompt', 'seed', 'steps', 'cfg', 'width', 'height', 'batch_size', 'denoise', 'sampler_name', 'scheduler', 'image', 'duration', 'fps']) {
      t.true(all.body.some((p: { key: string }) => p.key === key), key);
    }
    t.deepEqual((await admin.get('/workflow-templates/parameter-presets?category=')).body, all.body, 'an empty category is no filter');
    const upscale = await admin.get('/workflow-templates/parameter-presets?category=upscale');
    const keys = upscale.body.map((p: { key: string }) => p.key);
    t.true(keys.includes('image'));
    t.false(keys.includes('prompt'));
    t.like(upscale.body.find((p: { key: string }) => p.key === 'image'), { type: 'image', requiredFor: ['image-to-image', 'image-to-video', 'upscale'] });
    assertInvalid(t, await admin.get('/workflow-templates/parameter-presets?category=painting'), 'category');
  });

  test(title('non-admins get 403, anonymous callers 401'), async (t) => {
    const { app, admin, user } = await ctx();
    const { id } = await createTemplate(admin);
    const anonymous = app.client();
    const calls: [string, string, unknown?][] = [
      ['GET', '/workflow-templates/categories'],
      ['GET', '/workflow-templates/parameter-presets'],
      ['POST', '/workflow-templates', step1()],
      ['PUT', `/workflow-templates/${id}/parameter-map`, parameterMap()],
      ['PATCH', `/workflow-templates/${id}`, { cost: 0 }],
      ['GET', '/workflow-templates'],
      ['GET', `/workflow-templates/${id}`],
      ['DELETE', `/workflow-templates/${id}`],
    ];
    for (const [method, path, body] of calls) {
      t.is((await user.request(method, path, body)).status, 403, `${method} ${path} as a user`);
      t.is((await anonymous.request(method, path, body)).status, 401, `${method} ${path} anonymously`);
    }
    t.is((await anonymous.get('/templates')).status, 401);
    t.is((await anonymous.get(`/templates/${id}`)).status, 401);
    t.is((await admin.get(`/workflow-templates/${id}`)).body.cost, 2, 'nothing changed');
  });

  test(title('catalogue: active templates with public parameters, no node wiring; inactive and deleted are 404'), async (t) => {
    const { admin, user } = await ctx();
    const shown = await createTemplate(admin, { description: 'Shown' });
    await admin.put(`/workflow-templates/${shown.id}/parameter-map`, parameterMap());
    t.is((await admin.post(`/templates/${shown.id}/publish`, {})).status, 200);
    const inactive = await createTemplate(admin, { isActive: false });
    const deleted = await createTemplate(admin);
    await admin.delete(`/workflow-templates/${deleted.id}`);

    const list = await user.get('/templates');
    t.is(list.status, 200);
    const ids = list.body.map((x: { id: string }) => x.id);
    t.true(ids.includes(shown.id));
    t.false(ids.includes(inactive.id));
    t.false(ids.includes(deleted.id));
    const one = await user.get(`/templates/${shown.id}`);
    t.is(one.status, 200);
    t.deepEqual(Object.keys(one.body).sort(), ['category', 'cost', 'description', 'id', 'name', 'outputType', 'parameters']);
    t.deepEqual(one.body, list.body.find((x: { id: string }) => x.id === shown.id));
    t.like(one.body, { name: shown.name, description: 'Shown', category: 'text-to-image', cost: 2, outputType: 'image' });
    t.deepEqual(one.body.parameters.map((p: { key: string }) => p.key).sort(), ['prompt', 'width']);
    t.notRegex(JSON.stringify(one.body), /node_id|input_name|class_type|EmptyImage|PrimitiveString/);
    t.is((await user.get(`/templates/${inactive.id}`)).status, 404);
    t.is((await user.get(`/templates/${deleted.id}`)).status, 404);
  });

  test(title('the legacy /api prefix serves the same routes, and OpenAPI documents them'), async (t) => {
    const { admin } = await ctx();
    const legacy = await admin.get('/api/workflow-templates/categories');
    t.is(legacy.status, 200);
    t.is(legacy.headers.get('deprecation'), 'true');
    const doc = await admin.get('/openapi.json');
    for (const path of ['/workflow-templates', '/workflow-templates/{id}', '/workflow-templates/{id}/parameter-map', '/workflow-templates/categories', '/workflow-templates/parameter-presets', '/templates', '/templates/{id}']) {
      t.truthy(doc.body.paths[path], path);
    }
  });

  test(title('a fresh app with SEED_TEMPLATES=true has the ready templates, mapped and in the catalogue'), async (t) => {
    const app = await startTestApp(db, { ADMIN_EMAILS: ADMIN, SEED_TEMPLATES: 'true' });
    try {
      const admin = app.client();
      await admin.signUp({ email: ADMIN });
      const listed = await admin.get('/workflow-templates');
      t.is(listed.status, 200);
      t.deepEqual(listed.body.map((x: { name: string }) => x.name).sort(), READY_TEMPLATES.map((x) => x.name).sort());
      for (const template of listed.body) {
        t.is(template.version, 1);
        t.is(template.status, 'published', template.name);
        t.true(Object.keys(template.parameter_map).length > 0, template.name);
        for (const item of Object.values(template.parameter_map) as { class_type: string | null }[]) t.truthy(item.class_type);
      }
      const video = listed.body.find((x: { category: string }) => x.category === 'text-to-video');
      t.like(video, { outputType: 'video' });
      t.like(video.parameter_map.duration, { node_id: '2', input_name: 'amount', class_type: 'RepeatImageBatch' });
      const catalogue = await admin.get('/templates');
      t.is(catalogue.body.length, READY_TEMPLATES.length);
      const image = catalogue.body.find((x: { category: string }) => x.category === 'upscale');
      t.true(image.parameters.some((p: { key: string; type: string; required: boolean }) => p.key === 'image' && p.type === 'image' && p.required));
    } finally {
      await app.close();
    }
  });
}

for (const db of DATABASES) suite(db);
