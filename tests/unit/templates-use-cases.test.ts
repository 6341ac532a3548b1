import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { BuiltinEngine } from '../../adapters/builtin-engine/builtin-engine.ts';
import type { NodeCatalog } from '../../core/ports/node-catalog.port.ts';
import type { ExecutionContext } from 'ava';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import { READY_TEMPLATES } from '../../core/domain/ready-templates.ts';
import type { Result } from '../../core/domain/result.ts';
import type { TemplateRules } from '../../core/domain/template-revision.ts';
import type { WorkflowTemplate } from '../../core/domain/workflow-template.ts';
import { CreateTemplate } from '../../core/use-cases/templates/create-template.use-case.ts';
import { DeleteTemplate } from '../../core/use-cases/templates/delete-template.use-case.ts';
import { GetCatalogueTemplate } from '../../core/use-cases/templates/get-catalogue-template.use-case.ts';
import { GetTemplateVersion } from '../../core/use-cases/templates/get-template-version.use-case.ts';
import { GetTemplate } from '../../core/use-cases/templates/get-template.use-case.ts';
import { InstallReadyTemplates } from '../../core/use-cases/templates/install-ready-templates.use-case.ts';
import { ListCatalogue } from '../../core/use-cases/templates/list-catalogue.use-case.ts';
import { ListTemplates } from '../../core/use-cases/templates/list-templates.use-case.ts';
import { PatchTemplate } from '../../core/use-cases/templates/patch-template.use-case.ts';
import { SetParameterMap } from '../../core/use-cases/templates/set-parameter-map.use-case.ts';
import { PublishTemplate } from '../../core/use-cases/templates/publish-template.use-case.ts';

const ADMIN = '00000000-0000-4000-8000-0000000000ad';

const setup = (rules: TemplateRules = {}, nodes?: NodeCatalog) => {
  const uow = new MemoryUnitOfWork(new MemoryStore());
  const templates = uow.autocommit.templates;
  let tick = Date.parse('2026-01-01T00:00:00Z');
  let seq = 0;
  const clock = { now: () => new Date((tick += 1000)) };
  const ids = { newId: () => `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}` };
  const write = { uow, clock, ids, rules };
  const catalog = nodes ? { nodes } : {};
  const create = new CreateTemplate({ templates, ...write, ...catalog });
  const setMap = new SetParameterMap(write);
  const patch = new PatchTemplate({ ...write, ...catalog });
  const remove = new DeleteTemplate(write);
  const publish = new PublishTemplate({ ...write, ...catalog });
  return {
    templates,
    write,
    audit: uow.autocommit.audit,
    create: { execute: (fields: unknown) => create.execute({ actorId: ADMIN, fields }) },
    setMap: { execute: (input: { id: string; parameterMap: unknown }) => setMap.execute({ actorId: ADMIN, ...input }) },
    patch: { execute: (input: { id: unknown; changes: unknown }) => patch.execute({ actorId: ADMIN, ...input }) },
    remove: { execute: (input: { id: string }) => remove.execute({ actorId: ADMIN, ...input }) },
    publish: { execute: (id: string, publishIt = true) => publish.execute({ actorId: ADMIN, id, publish: publishIt }) },
    list: new ListTemplates({ templates }),
    get: new GetTemplate({ templates }),
    catalogue: new ListCatalogue({ templates }),
    catalogueItem: new GetCatalogueTemplate({ templates }),
    version: new GetTemplateVersion({ templates }),
    install: (ready = READY_TEMPLATES, installRules = rules) =>
      new InstallReadyTemplates({ uow, ids, clock, rules: installRules, ready }).execute(),
  };
};

const workflow = () => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 64, batch_size: 1, color: 0 } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'test' } },
  '3': { class_type: 'PrimitiveString', inputs: { value: 'hello' } },
  '4': { class_type: 'PreviewAny', inputs: { source: ['3', 0] } },
});

const map = () => ({
  prompt: { preset: 'prompt', node_id: '3', input_name: 'value' },
  width: { preset: 'width', node_id: '1', input_name: 'width' },
});

const step1 = (extra: Record<string, unknown> = {}) => ({ name: 'Blue square', category: 'text-to-image', workflow: workflow(), cost: 2, outputType: 'image', ...extra });

const value = <T>(t: ExecutionContext, result: Result<T>): T => {
  if (!result.ok) throw new Error(`expected success, got ${result.code}: ${JSON.stringify(result.details ?? result.message)}`);
  return result.value;
};

const rejected = (t: ExecutionContext, result: Result<unknown>, code: string, field?: string): void => {
  if (result.ok) return void t.fail(`expected ${code}`);
  t.is(result.code as string, code);
  if (field) t.true(result.details?.some((p) => p.field === field) ?? false, `no problem on ${field}: ${JSON.stringify(result.details)}`);
};

const created = async (t: ExecutionContext, app: ReturnType<typeof setup>, extra: Record<string, unknown> = {}): Promise<WorkflowTemplate> =>
  value(t, await app.create.execute(step1(extra)));

test('create: step 1 starts at version 1 with an empty map, active, without description', async (t) => {
  const app = setup();
  const template = await created(t, app);
  t.like(template, { name: 'Blue square', version: 1, isActive: true, description: null, cost: 2, outputType: 'image' });
  t.deepEqual(template.parameterMap, {});
  t.deepEqual(value(t, await app.get.execute({ id: template.id })), template);
  t.is(value(t, await app.version.execute({ templateId: template.id, version: 1 })).version, 1);
});

test('create: every invalid field is reported at once, the workflow by node and input', async (t) => {
  const app = setup();
  const bad = { ...workflow(), '2': { class_type: 'SaveImage', inputs: { images: ['9', 0], filename_prefix: 'x' } } };
  const result = await app.create.execute({ name: ' ', category: 'painting', workflow: bad, cost: 1.5, outputType: 'gif', isActive: 'yes', description: 5 });
  if (result.ok) return t.fail();
  t.deepEqual(result.details?.map((p) => p.field).sort(), ['category', 'cost', 'description', 'isActive', 'name', 'outputType', 'workflow.2.inputs.images']);
  rejected(t, await app.create.execute({ ...step1(), workflow: undefined, cost: 1_000_001 }), 'VALIDATION.FAILED', 'workflow');
  t.deepEqual(await app.list.execute(), { ok: true, value: [] });
});

// Pins each field's limits literally, at the limit and one past it, on create and on patch: name 100, description 2000, cost 0..1000000 whole coins.
test('create and patch: name, description and cost are accepted up to their limits and refused one past them', async (t) => {
  const app = setup();
  const refusedOn = async (field: string, extra: Record<string, unknown>, id: string) => {
    rejected(t, await app.create.execute(step1({ name: `Past ${field}`, ...extra })), 'VALIDATION.FAILED', field);
    rejected(t, await app.patch.execute({ id, changes: extra }), 'VALIDATION.FAILED', field);
  };
  const edge = await created(t, app, { name: 'n'.repeat(100), description: 'd'.repeat(2000), cost: 1_000_000 });
  t.like(edge, { name: 'n'.repeat(100), description: 'd'.repeat(2000), cost: 1_000_000 });
  const free = await created(t, app, { name: 'Free', cost: 0 });
  t.is(free.cost, 0);
  await refusedOn('name', { name: 'n'.repeat(101) }, free.id);
  await refusedOn('name', { name: '   ' }, free.id);
  await refusedOn('description', { description: 'd'.repeat(2001) }, free.id);
  await refusedOn('cost', { cost: 1_000_001 }, free.id);
  await refusedOn('cost', { cost: -1 }, free.id);
  await refusedOn('cost', { cost: 0.5 }, free.id);
  t.deepEqual(value(t, await app.list.execute()).map((x) => [x.name, x.cost]), [['n'.repeat(100), 1_000_000], ['Free', 0]], 'nothing refused was stored');
});

// Pins the fields step 1 cannot do without: name, category, cost, outputType and workflow, each named when left out.
test('create: each required field left out is refused by name, and nothing is stored', async (t) => {
  const app = setup();
  for (const field of ['name', 'category', 'cost', 'outputType', 'workflow']) {
    const { [field]: _left, ...rest } = step1() as Record<string, unknown>;
    const result = await app.create.execute(rest);
    if (result.ok) {
      t.fail(`created without ${field}`);
      continue;
    }
    t.deepEqual(result.details, [{ field, message: 'is required' }], field);
  }
  t.deepEqual(value(t, await app.list.execute()), []);
});

test('create: ALLOWED_NODE_TYPES and OUTPUT_NODE_TYPES from the server rules apply', async (t) => {
  const strict = setup({ allowedNodeTypes: ['EmptyImage', 'SaveImage'] });
  rejected(t, await strict.create.execute(step1()), 'VALIDATION.FAILED', 'workflow.3.class_type');
  const custom = setup({ outputNodeTypes: ['VHS_VideoCombine'] });
  const onlyCustom = { '1': { class_type: 'EmptyImage', inputs: {} }, '2': { class_type: 'VHS_VideoCombine', inputs: { images: ['1', 0] } } };
  t.true((await custom.create.execute(step1({ workflow: onlyCustom }))).ok);
});

test("with an engine's node catalogue, a node class the engine does not know is refused on create and on patch, naming the node", async (t) => {
  const workDir = mkdtempSync(path.join(tmpdir(), 'catalog-'));
  t.teardown(() => rmSync(workDir, { recursive: true, force: true }));
  const app = setup({}, new BuiltinEngine({ workDir }));
  const custom = { ...workflow(), '5': { class_type: 'VHS_VideoCombine', inputs: { images: ['1', 0] } } };
  const refused = await app.create.execute(step1({ workflow: custom }));
  rejected(t, refused, 'VALIDATION.FAILED', 'workflow.5.class_type');
  t.regex(JSON.stringify(!refused.ok && refused.details), /node type VHS_VideoCombine does not exist/);
  const template = await created(t, app);
  rejected(t, await app.patch.execute({ id: template.id, changes: { workflow: custom } }), 'VALIDATION.FAILED', 'workflow.5.class_type');
  t.true((await app.patch.execute({ id: template.id, changes: { name: 'Renamed' } })).ok, 'a change without a workflow is not checked');
  t.true((await setup().create.execute(step1({ workflow: custom }))).ok, 'without a catalogue nothing is checked');
});

test('names are unique among live templates regardless of case, and free again after delete', async (t) => {
  const app = setup();
  const first = await created(t, app);
  rejected(t, await app.create.execute(step1({ name: 'BLUE SQUARE ' })), 'TEMPLATE.NAME_TAKEN');
  const other = await created(t, app, { name: 'Other' });
  rejected(t, await app.patch.execute({ id: other.id, changes: { name: 'blue square' } }), 'TEMPLATE.NAME_TAKEN');
  t.is(value(t, await app.patch.execute({ id: first.id, changes: { name: 'Blue Square' } })).name, 'Blue Square');
  value(t, await app.remove.execute({ id: first.id }));
  const again = await created(t, app);
  t.not(again.id, first.id);
});

test('versions grow only when workflow or parameter map change, and every version stays readable', async (t) => {
  const app = setup();
  const { id } = await created(t, app);
  const v2 = value(t, await app.setMap.execute({ id, parameterMap: map() }));
  t.is(v2.version, 2);
  t.is(v2.parameterMap['prompt']?.type, 'string');

  const renamed = value(t, await app.patch.execute({ id, changes: { name: 'Renamed', description: 'Blue', cost: 5, isActive: false } }));
  t.like(renamed, { version: 2, name: 'Renamed', description: 'Blue', cost: 5, isActive: false });
  t.is(value(t, await app.setMap.execute({ id, parameterMap: map() })).version, 2, 'the same map again is no change');
  t.is(value(t, await app.patch.execute({ id, changes: { workflow: workflow() } })).version, 2, 'the same workflow again is no change');

  const changed = workflow();
  changed['1'].inputs.color = 255;
  const v3 = value(t, await app.patch.execute({ id, changes: { workflow: changed, cost: 4 } }));
  t.is(v3.version, 3);
  const v4 = value(t, await app.patch.execute({ id, changes: { parameter_map: { prompt: map().prompt } } }));
  t.is(v4.version, 4);
  t.deepEqual(Object.keys(v4.parameterMap), ['prompt']);

  const first = value(t, await app.version.execute({ templateId: id, version: 1 }));
  t.deepEqual(first.parameterMap, {});
  const second = value(t, await app.version.execute({ templateId: id, version: 2 }));
  t.deepEqual(Object.keys(second.parameterMap).sort(), ['prompt', 'width']);
  t.is(second.workflow['1']?.inputs['color'], 0);
  t.is(second.cost, 5, 'the cost in force when version 2 was superseded');
  const third = value(t, await app.version.execute({ templateId: id, version: 3 }));
  t.like(third, { cost: 4, name: 'Renamed', isActive: false, deletedAt: null });
  t.is(third.workflow['1']?.inputs['color'], 255);
  t.is(value(t, await app.version.execute({ templateId: id })).version, 4, 'no version: the current one');
  rejected(t, await app.version.execute({ templateId: id, version: 5 }), 'NOT_FOUND');
});

// Pins what counts as a change: a link moved to another output of the same node, or an enum option more or less, is saved as a new version, not dropped as "the same".
test("a link's output slot and a list's length are changes: saved as a new version", async (t) => {
  const app = setup();
  const { id } = await created(t, app);
  const colours = (options: number[]) => ({ prompt: map().prompt, colour: { type: 'enum', node_id: '1', input_name: 'color', options } });
  t.is(value(t, await app.setMap.execute({ id, parameterMap: colours([0, 255, 65280]) })).version, 2);
  const shorter = value(t, await app.setMap.execute({ id, parameterMap: colours([0, 255]) }));
  t.is(shorter.version, 3);
  t.deepEqual(value(t, await app.get.execute({ id })).parameterMap['colour']?.options, [0, 255]);
  t.is(value(t, await app.setMap.execute({ id, parameterMap: colours([0, 255, 65280]) })).version, 4, 'and back: longer again');

  const rewired = workflow();
  rewired['4'].inputs.source = ['3', 1];
  const moved = value(t, await app.patch.execute({ id, changes: { workflow: rewired } }));
  t.is(moved.version, 5);
  t.deepEqual(value(t, await app.get.execute({ id })).workflow['4']?.inputs['source'], ['3', 1]);
  t.deepEqual(value(t, await app.version.execute({ templateId: id, version: 4 })).workflow['4']?.inputs['source'], ['3', 0], 'the version before keeps its wiring');
});

test('a new workflow re-checks the stored map; workflow and map sent together are checked together', async (t) => {
  const app = setup();
  const { id } = await created(t, app);
  value(t, await app.setMap.execute({ id, parameterMap: map() }));
  const { '3': _prompt, '4': _preview, ...withoutPrompt } = workflow();
  const result = await app.patch.execute({ id, changes: { workflow: withoutPrompt, cost: 9 } });
  rejected(t, result, 'VALIDATION.FAILED', 'parameter_map.prompt.node_id');
  t.like(value(t, await app.get.execute({ id })), { version: 2, cost: 2 }, 'nothing of a rejected patch is applied');

  const moved = { ...withoutPrompt, '5': { class_type: 'PrimitiveString', inputs: { value: 'x' } }, '6': { class_type: 'PreviewAny', inputs: { source: ['5', 0] } } };
  const both = { workflow: moved, parameter_map: { prompt: { preset: 'prompt', node_id: '5', input_name: 'value' } } };
  const patched = value(t, await app.patch.execute({ id, changes: both }));
  t.is(patched.version, 3);
  t.is(patched.parameterMap['prompt']?.node_id, '5');
  rejected(t, await app.patch.execute({ id, changes: { workflow: workflow(), parameter_map: { prompt: { preset: 'prompt', node_id: '5', input_name: 'value' } } } }), 'VALIDATION.FAILED', 'parameter_map.prompt.node_id');
});

test('a new category re-checks the stored map against what the category requires', async (t) => {
  const app = setup();
  const { id } = await created(t, app);
  value(t, await app.setMap.execute({ id, parameterMap: map() }));
  // Frames repeated one per second: a duration input, so text-to-video asks for a duration parameter.
  value(t, await app.patch.execute({ id, changes: { workflow: { ...workflow(), '5': { class_type: 'RepeatImageBatch', inputs: { image: ['1', 0], amount: 4 } } } } }));
  rejected(t, await app.patch.execute({ id, changes: { category: 'text-to-video' } }), 'VALIDATION.FAILED', 'parameter_map.duration');
  // No LoadImage in the graph: image-to-image cannot demand an image parameter of it (issue 24).
  t.is(value(t, await app.patch.execute({ id, changes: { category: 'image-to-image' } })).category, 'image-to-image');
});

// Pins the edges of template fields that the limits above leave open: a description null or blank is none, a body must be an object, a PUT must carry a map, and which change a misfit map is blamed on.
test('a blank or null description is none; a body that is not an object and a PUT without a map are refused; a misfit map names what changed', async (t) => {
  const app = setup();
  t.is((await created(t, app, { name: 'Blank', description: '   ' })).description, null, 'a blank description is stored as none');
  t.is((await created(t, app, { name: 'Null', description: null })).description, null);
  const { id } = await created(t, app, { description: 'Blue' });
  t.is(value(t, await app.patch.execute({ id, changes: { description: null } })).description, null, 'null clears it');
  t.is(value(t, await app.get.execute({ id })).description, null);
  for (const body of [[step1()], 'template', null]) rejected(t, await app.create.execute(body), 'VALIDATION.FAILED', 'body');
  for (const changes of [[{ cost: 9 }], 'cost=9', null]) rejected(t, await app.patch.execute({ id, changes }), 'VALIDATION.FAILED', 'body');
  value(t, await app.setMap.execute({ id, parameterMap: map() }));
  rejected(t, await app.setMap.execute({ id, parameterMap: undefined }), 'VALIDATION.FAILED');
  t.like(value(t, await app.get.execute({ id })), { version: 2, cost: 2 }, 'nothing of a refused body is applied');
  t.deepEqual(Object.keys(value(t, await app.get.execute({ id })).parameterMap).sort(), ['prompt', 'width'], 'the map a PUT without one left in place');
  const { '3': _prompt, '4': _preview, ...withoutPrompt } = workflow();
  const misfit = await app.patch.execute({ id, changes: { workflow: withoutPrompt } });
  if (misfit.ok) return t.fail('a workflow the map no longer fits was taken');
  t.regex(misfit.message ?? '', /new workflow/);
  value(t, await app.patch.execute({ id, changes: { workflow: { ...workflow(), '5': { class_type: 'RepeatImageBatch', inputs: { image: ['1', 0], amount: 4 } } } } }));
  const category = await app.patch.execute({ id, changes: { category: 'text-to-video' } });
  if (category.ok) return t.fail('a category the map does not fit was taken');
  t.regex(category.message ?? '', /new category/);
});

// Pins that a workflow equal to the stored one by the comparison (a link's node id as a number, nodes and inputs in another order) is no change and leaves the stored spelling, which its version holds, in place.
test('a workflow sent again in another spelling (numeric link ids, another key order) is no change, and the stored workflow stays as its version holds it', async (t) => {
  const app = setup();
  const { id } = await created(t, app);
  const stored = JSON.stringify(value(t, await app.get.execute({ id })).workflow);
  const respelled = Object.fromEntries(
    Object.entries(workflow() as unknown as Record<string, { class_type: string; inputs: Record<string, unknown> }>)
      .reverse()
      .map(([node, { class_type, inputs }]) => [node, { inputs: Object.fromEntries(Object.entries(inputs).reverse()), class_type }]),
  );
  respelled['2']!.inputs['images'] = [1, 0];
  t.is(value(t, await app.patch.execute({ id, changes: { workflow: respelled } })).version, 1);
  t.like(value(t, await app.patch.execute({ id, changes: { workflow: respelled, cost: 3 } })), { version: 1, cost: 3 }, 'with another change, saved');
  t.is(JSON.stringify(value(t, await app.get.execute({ id })).workflow), stored, 'the stored workflow keeps its spelling');
  t.is(JSON.stringify(value(t, await app.version.execute({ templateId: id, version: 1 })).workflow), stored);
});

test('an empty map (step 2 not done) does not block changing the workflow', async (t) => {
  const app = setup();
  const { id } = await created(t, app);
  const changed = workflow();
  changed['1'].inputs.width = 128;
  t.is(value(t, await app.patch.execute({ id, changes: { workflow: changed } })).version, 2);
  rejected(t, await app.setMap.execute({ id, parameterMap: {} }), 'VALIDATION.FAILED', 'parameter_map.prompt');
});

test('map errors name the item: unknown node or input, a preset used twice', async (t) => {
  const app = setup();
  const { id } = await created(t, app);
  rejected(t, await app.setMap.execute({ id, parameterMap: { ...map(), width: { preset: 'width', node_id: '42', input_name: 'width' } } }), 'VALIDATION.FAILED', 'parameter_map.width.node_id');
  rejected(t, await app.setMap.execute({ id, parameterMap: { ...map(), width: { preset: 'width', node_id: '1', input_name: 'depth' } } }), 'VALIDATION.FAILED', 'parameter_map.width.input_name');
  rejected(t, await app.setMap.execute({ id, parameterMap: { ...map(), w2: { preset: 'width', node_id: '1', input_name: 'height' } } }), 'VALIDATION.FAILED', 'parameter_map.w2.preset');
  rejected(t, await app.setMap.execute({ id, parameterMap: [] }), 'VALIDATION.FAILED', 'parameter_map');
});

test('soft delete: gone from every lookup, its versions stay readable', async (t) => {
  const app = setup();
  const { id } = await created(t, app);
  value(t, await app.setMap.execute({ id, parameterMap: map() }));
  value(t, await app.remove.execute({ id }));
  rejected(t, await app.get.execute({ id }), 'NOT_FOUND');
  rejected(t, await app.patch.execute({ id, changes: { cost: 1 } }), 'NOT_FOUND');
  rejected(t, await app.setMap.execute({ id, parameterMap: map() }), 'NOT_FOUND');
  rejected(t, await app.remove.execute({ id }), 'NOT_FOUND');
  rejected(t, await app.catalogueItem.execute({ id }), 'NOT_FOUND');
  t.deepEqual(value(t, await app.list.execute()), []);
  const old = value(t, await app.version.execute({ templateId: id, version: 2 }));
  t.truthy(old.deletedAt);
  t.is(old.parameterMap['prompt']?.node_id, '3');
  rejected(t, await app.version.execute({ templateId: id }), 'NOT_FOUND');
});

test('ids that are not UUIDs are simply not found; upper-case UUIDs are found', async (t) => {
  const app = setup();
  const { id } = await created(t, app);
  for (const bad of ['categories', '1', '', null, 42]) {
    rejected(t, await app.get.execute({ id: bad }), 'NOT_FOUND');
    rejected(t, await app.patch.execute({ id: bad, changes: {} }), 'NOT_FOUND');
  }
  t.is(value(t, await app.get.execute({ id: id.toUpperCase() })).id, id);
});

test('catalogue: active templates only, parameters without node wiring', async (t) => {
  const app = setup();
  const shown = await created(t, app);
  value(t, await app.setMap.execute({ id: shown.id, parameterMap: map() }));
  value(t, await app.publish.execute(shown.id));
  const hidden = await created(t, app, { name: 'Hidden', isActive: false });
  value(t, await app.setMap.execute({ id: hidden.id, parameterMap: map() }));
  value(t, await app.publish.execute(hidden.id));
  const draft = await created(t, app, { name: 'Draft' });
  value(t, await app.setMap.execute({ id: draft.id, parameterMap: map() }));
  const list = value(t, await app.catalogue.execute());
  t.deepEqual(list.map((x) => x.id), [shown.id]);
  rejected(t, await app.catalogueItem.execute({ id: draft.id }), 'NOT_FOUND');
  const item = list[0]!;
  t.deepEqual(Object.keys(item).sort(), ['category', 'cost', 'description', 'id', 'name', 'outputType', 'parameters']);
  t.deepEqual(item.parameters.map((p) => p.key).sort(), ['prompt', 'width']);
  for (const parameter of item.parameters) t.false('node_id' in parameter || 'input_name' in parameter);
  rejected(t, await app.catalogueItem.execute({ id: hidden.id }), 'NOT_FOUND');
  t.is(value(t, await app.catalogueItem.execute({ id: shown.id })).name, 'Blue square');
});

test('ready templates install once into a table that never held a template', async (t) => {
  const app = setup();
  const report = value(t, await app.install());
  t.true(report.installedNow);
  t.deepEqual(report.installed, READY_TEMPLATES.map((x) => x.name));
  const listed = value(t, await app.list.execute());
  t.is(listed.length, READY_TEMPLATES.length);
  for (const template of listed) t.is(template.version, 1);
  for (const template of listed) t.truthy(template.publishedAt, `${template.name} is published`);
  t.deepEqual(value(t, await app.catalogue.execute()).map((x) => x.name), READY_TEMPLATES.map((x) => x.name));
  t.false(value(t, await app.install()).installedNow);
  for (const template of listed) value(t, await app.remove.execute({ id: template.id }));
  t.false(value(t, await app.install()).installedNow, 'deleting them all does not bring them back');
  t.deepEqual(value(t, await app.list.execute()), []);
});

test('ready templates this server rejects are skipped with the reason', async (t) => {
  const app = setup();
  const allowed = ['EmptyImage', 'SaveImage', 'LoadImage', 'ImageScaleBy', 'PrimitiveString', 'RepeatImageBatch', 'CreateVideo', 'SaveVideo'];
  const report = value(t, await app.install(READY_TEMPLATES, { allowedNodeTypes: allowed }));
  t.deepEqual(report.installed, ['Resize image']);
  t.deepEqual(report.skipped.map((x) => x.name), ['Solid colour image', 'Solid colour video']);
  t.true(report.skipped[0]!.problems.some((p) => p.field === 'workflow.4.class_type'));
  // Pins: a ready template whose parameter map does not fit its workflow is skipped too, not installed with that map.
  const resize = READY_TEMPLATES.find((ready) => ready.name === 'Resize image')!;
  const broken = { ...resize, name: 'Broken map', parameterMap: { ...resize.parameterMap, scale_by: { ...resize.parameterMap['scale_by']!, node_id: '9' } } };
  const other = value(t, await setup().install([broken]));
  t.deepEqual(other.installed, []);
  t.deepEqual(other.skipped.map((x) => x.name), ['Broken map']);
  t.true(other.skipped[0]!.problems.length > 0);
});

/** The store as another process's install leaves it: its first template in, not yet visible when this one counted. */
const installingElsewhere = (uow: MemoryUnitOfWork, create = (real: (template: WorkflowTemplate) => Promise<boolean>) => real): MemoryUnitOfWork =>
  new Proxy(uow, {
    get(target, property, receiver) {
      if (property !== 'run') return Reflect.get(target, property, receiver);
      return (work: (tx: any) => Promise<unknown>) =>
        target.run((tx) => {
          const templates = new Proxy(tx.templates, {
            get(repository, name) {
              if (name === 'countEver') return async () => 0;
              if (name === 'create') return create(repository.create.bind(repository));
              const value = Reflect.get(repository, name);
              return typeof value === 'function' ? value.bind(repository) : value;
            },
          });
          return work({ ...tx, templates });
        });
    },
  });

test('ready templates installed by another process at the same moment: this one installs none and reports none', async (t) => {
  const uow = new MemoryUnitOfWork(new MemoryStore());
  let n = 0;
  const ids = { newId: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}` };
  const clock = { now: () => new Date('2026-01-01T00:00:00Z') };
  // The other process got the second ready template in first.
  const theirs = value(t, await new InstallReadyTemplates({ uow, ids, clock, rules: {}, ready: [READY_TEMPLATES[1]!] }).execute());
  t.deepEqual(theirs.installed, [READY_TEMPLATES[1]!.name]);
  const report = value(t, await new InstallReadyTemplates({ uow: installingElsewhere(uow), ids, clock, rules: {}, ready: READY_TEMPLATES }).execute());
  t.deepEqual(report, { installedNow: false, installed: [], skipped: [] });
  t.deepEqual((await uow.autocommit.templates.list()).map((x) => x.name), [READY_TEMPLATES[1]!.name], 'the first one this process created was rolled back');
});

test('ready templates: a store failure while installing is thrown, not taken for another process installing', async (t) => {
  const uow = new MemoryUnitOfWork(new MemoryStore());
  const failing = installingElsewhere(uow, () => async () => {
    throw new Error('disk full');
  });
  const install = new InstallReadyTemplates({ uow: failing, ids: { newId: () => '00000000-0000-4000-8000-000000000001' }, clock: { now: () => new Date() }, rules: {}, ready: READY_TEMPLATES });
  await t.throwsAsync(() => install.execute(), { message: 'disk full' });
});

test('a new template is a draft; publishing needs a complete map; back to draft hides it again', async (t) => {
  const app = setup();
  const template = await created(t, app);
  t.is(template.publishedAt, null);
  t.deepEqual(value(t, await app.catalogue.execute()), []);
  rejected(t, await app.publish.execute(template.id), 'VALIDATION.FAILED', 'parameter_map');
  t.is(value(t, await app.get.execute({ id: template.id })).publishedAt, null, 'a refused publish changes nothing');
  value(t, await app.setMap.execute({ id: template.id, parameterMap: map() }));
  const published = value(t, await app.publish.execute(template.id));
  t.truthy(published.publishedAt);
  t.deepEqual(value(t, await app.catalogue.execute()).map((x) => x.id), [template.id]);
  t.deepEqual(value(t, await app.publish.execute(template.id)).publishedAt, published.publishedAt, 'publishing again keeps the first date');
  t.is(value(t, await app.publish.execute(template.id, false)).publishedAt, null);
  t.deepEqual(value(t, await app.catalogue.execute()), []);
  rejected(t, await app.catalogueItem.execute({ id: template.id }), 'NOT_FOUND');
  rejected(t, await app.publish.execute('00000000-0000-4000-8000-999999999999'), 'NOT_FOUND');
});

test('publishing re-checks a stored map that no longer fits (stored under older rules)', async (t) => {
  const app = setup();
  const template = await created(t, app);
  // Written straight to the store, as an older release could have: the item names a node the workflow lacks.
  const stale = { prompt: { key: 'prompt', type: 'string' as const, node_id: '99', input_name: 'value' } };
  t.is(await app.templates.update({ ...template, parameterMap: stale, version: 2 }, { newVersion: true }), 'updated');
  rejected(t, await app.publish.execute(template.id), 'VALIDATION.FAILED', 'parameter_map.prompt.node_id');
  t.is(value(t, await app.get.execute({ id: template.id })).publishedAt, null);
});

test('every template change is audit-logged with the administrator, in the change itself', async (t) => {
  const app = setup();
  const template = await created(t, app);
  value(t, await app.setMap.execute({ id: template.id, parameterMap: map() }));
  value(t, await app.publish.execute(template.id));
  value(t, await app.patch.execute({ id: template.id, changes: { isActive: false } }));
  value(t, await app.patch.execute({ id: template.id, changes: { isActive: true } }));
  value(t, await app.patch.execute({ id: template.id, changes: { cost: 7, name: 'Dearer' } }));
  value(t, await app.patch.execute({ id: template.id, changes: { cost: 7 } }));
  value(t, await app.publish.execute(template.id, false));
  value(t, await app.remove.execute({ id: template.id }));
  const entries = (await app.audit.list({ page: 1, limit: 100 })).items.reverse();
  t.deepEqual(
    entries.map((e) => [e.action, e.actorId, e.targetUserId, e.details['templateId'], e.details['changed']]),
    [
      ['template.create', ADMIN, null, template.id, []],
      ['template.parameter_map', ADMIN, null, template.id, ['parameterMap']],
      ['template.publish', ADMIN, null, template.id, ['publishedAt']],
      ['template.deactivate', ADMIN, null, template.id, ['isActive']],
      ['template.activate', ADMIN, null, template.id, ['isActive']],
      ['template.update', ADMIN, null, template.id, ['name', 'cost']],
      ['template.unpublish', ADMIN, null, template.id, ['publishedAt']],
      ['template.delete', ADMIN, null, template.id, []],
    ],
  );
  t.deepEqual(entries.map((e) => e.details['version']), [1, 2, 2, 2, 2, 2, 2, 2]);
});

// Pins: the unique name index decides a race between two creators of one name. The one whose insert the index refuses
// (its name looked free a moment before) is told the name is taken, and no audit entry says it created anything.
test('create: a name taken between the check and the insert is refused, with no audit entry', async (t) => {
  const app = setup();
  await created(t, app);
  const before = (await app.audit.list({ page: 1, limit: 100 })).total;
  const racing = Object.create(app.templates) as typeof app.templates;
  racing.nameTaken = async () => false; // the check ran before the other creator's insert
  const create = new CreateTemplate({ ...app.write, templates: racing });
  rejected(t, await create.execute({ actorId: ADMIN, fields: step1() }), 'TEMPLATE.NAME_TAKEN');
  t.is((await app.audit.list({ page: 1, limit: 100 })).total, before);
  t.is(value(t, await app.list.execute()).length, 1, 'one template of that name');
});
