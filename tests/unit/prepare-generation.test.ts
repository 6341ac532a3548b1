import test, { type ExecutionContext } from 'ava';
import type { ParameterMap } from '../../core/domain/parameter-map.ts';
import { DEFAULT_RESOURCE_LIMITS } from '../../core/domain/resource-limits.ts';
import type { Result } from '../../core/domain/result.ts';
import type { UserRole } from '../../core/domain/user.ts';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';
import type { ActiveTemplates, TemplateForGeneration } from '../../core/use-cases/generation/active-templates.service.ts';
import type { InputImage, InputImages } from '../../core/use-cases/generation/input-images.service.ts';
import { PrepareGeneration, type PreparedGeneration } from '../../core/use-cases/generation/prepare-generation.service.ts';

// What a generation request becomes before any coin moves: which template it runs (and so what it costs), or why it
// is refused. Each rule is pinned on its own, with the request shapes a client can send.

const T1 = 'aaaaaaaa-1111-4111-8111-111111111111';
const T2 = 'bbbbbbbb-2222-4222-8222-222222222222';
const PHOTO_TEMPLATE = '33333333-3333-4333-8333-333333333333';
const MY_UPLOAD = '44444444-4444-4444-8444-444444444444';
const SOMEONE_ELSES = '55555555-5555-4555-8555-555555555555';

const colorWorkflow = (color = 0, prefix = 'out'): WorkflowGraph => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 16, height: 8, batch_size: 1, color } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: prefix } },
});
const colorMap: ParameterMap = { color: { key: 'color', type: 'integer', node_id: '1', input_name: 'color', min: 0, max: 0xffffff } };

const template = (id: string, over: Partial<TemplateForGeneration> = {}): TemplateForGeneration => ({
  id,
  version: 3,
  workflow: colorWorkflow(),
  parameterMap: colorMap,
  cost: 5,
  outputType: 'image',
  ...over,
});

const photoTemplate = template(PHOTO_TEMPLATE, {
  workflow: {
    '1': { class_type: 'LoadImage', inputs: { image: 'placeholder.png' } },
    '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'photo' } },
  },
  parameterMap: { photo: { key: 'photo', type: 'image', node_id: '1', input_name: 'image' } },
  cost: 7,
});

const setup = (options: { templates?: TemplateForGeneration[]; allowedNodeTypes?: string[] } = {}) => {
  const active = options.templates ?? [template(T1), photoTemplate];
  const templates = {
    find: async (id: string) => active.find((t) => t.id === id) ?? null,
    list: async () => active,
  } as unknown as ActiveTemplates;
  const mine: InputImage = { id: MY_UPLOAD, storageKey: 'uploads/u1/a.png', mimeType: 'image/png', kind: 'upload' };
  const images = { find: async (userId: string, id: string) => (userId === 'u1' && id === MY_UPLOAD ? mine : null) } as unknown as InputImages;
  return new PrepareGeneration({
    templates,
    images,
    random: () => 0.5,
    outputNodeTypes: [],
    allowedNodeTypes: options.allowedNodeTypes ?? null,
    raw: { roles: ['admin'], cost: 9 },
    limits: DEFAULT_RESOURCE_LIMITS,
  });
};

const run = (request: { workflow?: unknown; templateId?: unknown; parameters?: unknown; role?: UserRole }, prepare = setup()) =>
  prepare.execute({ userId: 'u1', role: request.role ?? 'user', ...request });

const problemsOf = (t: ExecutionContext, result: Result<PreparedGeneration>) => {
  if (result.ok) {
    t.fail('expected a refusal');
    return { code: '', fields: [] };
  }
  return { code: result.code, fields: (result.details ?? []).map((d) => d.field) };
};
const valueOf = (t: ExecutionContext, result: Result<PreparedGeneration>): PreparedGeneration => {
  if (!result.ok) throw new Error(`refused: ${result.message} ${JSON.stringify(result.details)}`);
  t.pass();
  return result.value;
};

test('a request names a workflow or a template; a workflow is an object, and comes without parameters', async (t) => {
  t.deepEqual(problemsOf(t, await run({})), { code: 'VALIDATION.FAILED', fields: ['workflow'] });
  t.deepEqual(problemsOf(t, await run({ workflow: [colorWorkflow()], role: 'admin' })).fields, ['workflow']);
  t.deepEqual(problemsOf(t, await run({ workflow: 'not a graph', role: 'admin' })).fields, ['workflow']);
  t.deepEqual(problemsOf(t, await run({ workflow: colorWorkflow(), parameters: { color: 1 }, role: 'admin' })).fields, ['parameters']);
  t.deepEqual(problemsOf(t, await run({ workflow: colorWorkflow(), templateId: T1, parameters: { color: 1 } })).fields, ['parameters']);
});

test('a graph that is no valid workflow is refused, even with a templateId', async (t) => {
  const dangling = { '2': { class_type: 'SaveImage', inputs: { images: ['9', 0], filename_prefix: 'x' } } };
  t.deepEqual(problemsOf(t, await run({ workflow: dangling, templateId: T1 })), { code: 'VALIDATION.FAILED', fields: ['workflow.2.inputs.images'] });
});

test('a templateId is a UUID of an active template, in any case; the job runs its current version at its cost', async (t) => {
  for (const templateId of ['T1', 42, `${T1}x`]) {
    const refused = await run({ templateId });
    t.deepEqual(refused.ok ? null : refused.details, [{ field: 'templateId', message: 'must be a UUID' }], String(templateId));
  }
  t.deepEqual(problemsOf(t, await run({ templateId: '99999999-9999-4999-8999-999999999999' })).fields, ['templateId']);
  const prepared = valueOf(t, await run({ templateId: T1.toUpperCase(), parameters: { color: 255 } }));
  t.like(prepared, { templateId: T1, templateVersion: 3, price: 5, outputType: 'image', usedParameters: { color: 255 } });
  t.is(prepared.workflow['1']!.inputs['color'], 255);
});

// Pins: a workflow sent with its templateId is checked against the template (only mapped inputs may differ), not
// silently replaced by a render of the template's defaults.
test('a workflow sent with a templateId must conform to it, and its mapped values are the parameters', async (t) => {
  const prepared = valueOf(t, await run({ workflow: colorWorkflow(0x00ff00), templateId: T1 }));
  t.like(prepared, { templateId: T1, price: 5, usedParameters: { color: 0x00ff00 } });
  t.is(prepared.workflow['1']!.inputs['color'], 0x00ff00);
  t.like(problemsOf(t, await run({ workflow: colorWorkflow(0, 'elsewhere'), templateId: T1 })), { code: 'VALIDATION.FAILED' });
});

// Pins: no generation is free unless priced at 0. A raw workflow that is a run of an active template costs the
// template; another is refused for users (with the template's problems when it has the template's shape) and costs
// administrators RAW_WORKFLOW_COST.
test('a raw workflow: a run of an active template costs that template; any other is for administrators at the raw cost', async (t) => {
  t.like(valueOf(t, await run({ workflow: colorWorkflow(7) })), { templateId: T1, price: 5, usedParameters: { color: 7 } });
  const changed = colorWorkflow(7, 'elsewhere'); // an unmapped input changed: not a run of T1
  const refusal = problemsOf(t, await run({ workflow: changed }));
  t.deepEqual(refusal.fields, ['workflow.2.inputs.filename_prefix'], "a user is told what differs from the template of that shape");
  t.like(valueOf(t, await run({ workflow: changed, role: 'admin' })), { templateId: null, templateVersion: null, price: 9, usedParameters: {}, fitChoices: '' });
  const other = { ...colorWorkflow(), '3': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'twice' } } };
  const generic = await run({ workflow: other });
  t.false(generic.ok);
  if (!generic.ok) t.regex(generic.message + JSON.stringify(generic.details), /matches no active template/, 'a graph of another shape (one node more) is no run of the template');
  const renamed = { '1': { class_type: 'SolidMask', inputs: { value: 1, width: 8, height: 8 } }, '2': colorWorkflow()['2']! };
  const notRun = await run({ workflow: renamed });
  t.false(notRun.ok);
  if (!notRun.ok) t.regex(JSON.stringify(notRun.details), /matches no active template/, 'same node ids, another class: no run of the template');
});

test('a raw workflow is matched against the oldest active template that accepts it; when none does, the oldest one explains', async (t) => {
  const strict = template(T2, { parameterMap: {} }); // the same graph, nothing mapped: only its exact literals conform
  const both = setup({ templates: [strict, template(T1)] });
  t.like(valueOf(t, await run({ workflow: colorWorkflow(7) }, both)), { templateId: T1 }, 'the older one refuses it, the next accepts it');
  t.like(valueOf(t, await run({ workflow: colorWorkflow(0) }, both)), { templateId: T2 }, 'both accept it: the oldest');
  const strictOther = template(T1, { parameterMap: {}, workflow: colorWorkflow(1, 'other') });
  const neither = setup({ templates: [strict, strictOther] });
  t.deepEqual(problemsOf(t, await run({ workflow: colorWorkflow(7) }, neither)).fields, ['workflow.1.inputs.color'], "the oldest template's problems, not the newer one's");
});

test('a raw workflow with a video output node is a video job', async (t) => {
  const video = { ...colorWorkflow(), '2': { class_type: 'SaveWEBM', inputs: { images: ['1', 0], filename_prefix: 'v', codec: 'vp9', fps: 24, crf: 32 } } };
  t.like(valueOf(t, await run({ workflow: video, role: 'admin' })), { outputType: 'video' });
  t.like(valueOf(t, await run({ workflow: colorWorkflow(), role: 'admin' }, setup({ templates: [] }))), { outputType: 'image' });
});

// Pins: a template saved before ALLOWED_NODE_TYPES was tightened cannot run a node type no longer allowed.
test('the rendered graph of a template run is checked against the allowed node types of today', async (t) => {
  const refused = problemsOf(t, await run({ templateId: T1 }, setup({ allowedNodeTypes: ['EmptyImage', 'PreviewImage'] })));
  t.is(refused.code, 'VALIDATION.FAILED');
  t.true(refused.fields.some((field) => field.startsWith('workflow.2')), refused.fields.join());
  valueOf(t, await run({ templateId: T1 }, setup({ allowedNodeTypes: ['EmptyImage', 'SaveImage'] })));
});

test("an image parameter must be one of the caller's uploads or outputs", async (t) => {
  const prepared = valueOf(t, await run({ templateId: PHOTO_TEMPLATE, parameters: { photo: MY_UPLOAD } }));
  t.like(prepared, { price: 7, images: [{ id: MY_UPLOAD, kind: 'upload' }] });
  t.deepEqual(prepared.imageRefs.map((ref) => ref.id), [MY_UPLOAD]);
  t.deepEqual(problemsOf(t, await run({ templateId: PHOTO_TEMPLATE, parameters: { photo: SOMEONE_ELSES } })), { code: 'VALIDATION.FAILED', fields: ['parameters.photo'] });
});

// Pins that an asset reference without an asset id is refused as such (the field and what is missing), before the graph
// is checked, on a template run as on a raw workflow.
test('a core/ASSET reference without an asset id is refused, naming the input', async (t) => {
  const reference = { __type: 'core/ASSET', info: { name: 'photo.png' } };
  const workflow = { ...photoTemplate.workflow, '1': { class_type: 'LoadImage', inputs: { image: reference } } };
  for (const request of [{ workflow, templateId: PHOTO_TEMPLATE }, { workflow, role: 'admin' as const }]) {
    const result = await run(request);
    if (result.ok) return t.fail('accepted');
    t.deepEqual(result.details, [{ field: 'workflow.1.inputs.image', message: 'is a core/ASSET reference without an asset id (info.id)' }]);
  }
});
