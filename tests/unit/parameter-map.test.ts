import test from 'ava';
import type { ExecutionContext } from 'ava';
import type { Result } from '../../core/domain/result.ts';
import {
  checkParameterValue,
  publicParameters,
  validateParameterMap,
  withClassTypes,
} from '../../core/domain/parameter-map.ts';
import type { ParameterMap } from '../../core/domain/parameter-map.ts';
import {
  CATEGORIES,
  findPreset,
  PARAMETER_PRESETS,
  presetsForCategory,
  REQUIRED_BY_CATEGORY,
} from '../../core/domain/parameter-presets.ts';
import type { Category } from '../../core/domain/parameter-presets.ts';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';
import { requiredKeysFor } from '../../core/domain/category-inputs.ts';

const rejects = (t: ExecutionContext, result: Result<unknown>, field: string, fragment: string): void => {
  if (result.ok) {
    t.fail(`expected a rejection on ${field}`);
    return;
  }
  t.is(result.code, 'VALIDATION.FAILED');
  const problem = result.details?.find((p) => p.field === field);
  t.truthy(problem, `no problem on ${field}; got ${JSON.stringify(result.details)}`);
  t.true(problem!.message.includes(fragment), `"${problem?.message}" lacks "${fragment}"`);
};

const workflow: WorkflowGraph = {
  '3': {
    class_type: 'KSampler',
    inputs: {
      seed: 5, steps: 20, cfg: 8, sampler_name: 'euler', scheduler: 'normal', denoise: 1,
      model: ['4', 0], positive: ['6', 0], negative: ['7', 0], latent_image: ['5', 0],
    },
  },
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'model.safetensors' } },
  '5': { class_type: 'EmptyLatentImage', inputs: { width: 512, height: 512, batch_size: 1 } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a cat', clip: ['4', 1] } },
  '7': { class_type: 'CLIPTextEncode', inputs: { text: '', clip: ['4', 1] } },
  '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
  '9': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'ComfyUI' } },
  '10': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
};

const prompt = { preset: 'prompt', node_id: '6', input_name: 'text' };
const base = (extra: Record<string, unknown>): Record<string, unknown> => ({ prompt, ...extra });
const check = (input: unknown, category: Category = 'text-to-image') => validateParameterMap(input, workflow, category);

test('fills preset fields, keys and node ids, coerces defaults and drops unknown fields', (t) => {
  const result = check({
    prompt: { ...prompt, label: 'Describe it', class_type: 'ignored' },
    seed: { preset: 'seed', node_id: 3, input_name: 'seed' },
    steps: { key: 'steps', type: 'integer', node_id: '3', input_name: 'steps', default: '30', min: 1, max: 50 },
    sampler_name: { preset: 'sampler_name', node_id: '3', input_name: 'sampler_name', options: ['euler', 'ddim'] },
  });
  if (!result.ok) return t.fail(JSON.stringify(result.details));
  const map = result.value;
  t.deepEqual(Object.keys(map), ['prompt', 'seed', 'steps', 'sampler_name']);
  t.is(map['prompt']!.key, 'prompt');
  t.is(map['prompt']!.type, 'string');
  t.is(map['prompt']!.label, 'Describe it');
  t.is(map['prompt']!.description, findPreset('prompt')!.description);
  t.false('class_type' in map['prompt']!);
  t.is(map['seed']!.node_id, '3');
  t.is(map['seed']!.default, -1);
  t.is(map['steps']!.default, 30);
  t.deepEqual(map['sampler_name']!.options, ['euler', 'ddim']);
  t.is(map['sampler_name']!.default, 'euler');
});

test('an explicit null default removes the preset default', (t) => {
  const result = check(base({ steps: { preset: 'steps', node_id: '3', input_name: 'steps', default: null } }));
  if (!result.ok) return t.fail(JSON.stringify(result.details));
  t.false('default' in result.value['steps']!);
  t.is(result.value['steps']!.min, 1);
});

test('rejects a map that is not an object', (t) => {
  rejects(t, check([prompt]), 'parameter_map', 'must be an object from parameter name');
  rejects(t, check(null), 'parameter_map', 'must be an object');
});

test('rejects a parameter name that cannot travel as a field path', (t) => {
  rejects(t, check(base({ 'my.steps': { type: 'integer', node_id: '3', input_name: 'steps' } })), 'parameter_map.my.steps', 'must start with a letter');
});

// Pins that "__proto__" (as JSON.parse hands it over, an own key) is refused rather than stored nowhere while the map answers success.
test('rejects the parameter name __proto__, which no map could hold', (t) => {
  const input = JSON.parse(`{"prompt": ${JSON.stringify(prompt)}, "__proto__": {"type": "integer", "node_id": "3", "input_name": "steps"}}`) as unknown;
  rejects(t, check(input), 'parameter_map.__proto__', 'is reserved');
});

test('rejects an item that is not an object', (t) => {
  rejects(t, check(base({ steps: 'integer' })), 'parameter_map.steps', 'must be an object with key, type');
});

test('rejects a key that differs from the entry name', (t) => {
  rejects(t, check(base({ steps: { key: 'stepz', type: 'integer', node_id: '3', input_name: 'steps' } })), 'parameter_map.steps.key', 'must equal the entry\'s name "steps"');
});

test('rejects a missing or unknown type', (t) => {
  rejects(t, check(base({ steps: { node_id: '3', input_name: 'steps' } })), 'parameter_map.steps.type', 'must be one of string, integer');
  rejects(t, check(base({ steps: { type: 'float', node_id: '3', input_name: 'steps' } })), 'parameter_map.steps.type', 'must be one of');
});

test('rejects a node_id that is missing or names no node', (t) => {
  rejects(t, check(base({ steps: { type: 'integer', input_name: 'steps' } })), 'parameter_map.steps.node_id', 'is required');
  rejects(t, check(base({ steps: { type: 'integer', node_id: '99', input_name: 'steps' } })), 'parameter_map.steps.node_id', 'names node 99, which does not exist');
});

test('rejects an input_name that is missing or not an input of the node', (t) => {
  rejects(t, check(base({ steps: { type: 'integer', node_id: '3' } })), 'parameter_map.steps.input_name', 'is required');
  rejects(t, check(base({ steps: { type: 'integer', node_id: '3', input_name: 'stepz' } })), 'parameter_map.steps.input_name', 'node 3 (KSampler) has no input "stepz"');
});

test('rejects an input that is a link', (t) => {
  rejects(t, check(base({ model: { type: 'string', node_id: '3', input_name: 'model' } })), 'parameter_map.model.input_name', 'is linked to node 4; only a literal input');
});

test('rejects two items mapping the same node input', (t) => {
  const result = check(base({ text: { type: 'string', node_id: '6', input_name: 'text' } }));
  rejects(t, result, 'parameter_map.text.input_name', 'input "text" of node 6 (CLIPTextEncode) is already mapped by parameter prompt');
});

test('rejects an enum without options, with bad or repeated options, or with a default outside them', (t) => {
  const at = { node_id: '3', input_name: 'scheduler' };
  rejects(t, check(base({ sched: { type: 'enum', ...at } })), 'parameter_map.sched.options', 'non-empty list');
  rejects(t, check(base({ sched: { type: 'enum', ...at, options: [] } })), 'parameter_map.sched.options', 'non-empty list');
  rejects(t, check(base({ sched: { type: 'enum', ...at, options: ['a', {}] } })), 'parameter_map.sched.options', 'strings or numbers');
  rejects(t, check(base({ sched: { type: 'enum', ...at, options: ['a', 'a'] } })), 'parameter_map.sched.options', 'lists "a" twice');
  rejects(t, check(base({ sched: { type: 'enum', ...at, options: ['a', 'b'], default: 'c' } })), 'parameter_map.sched.default', 'must be one of "a", "b"');
});

test('rejects options on a type other than enum', (t) => {
  rejects(t, check(base({ steps: { type: 'integer', node_id: '3', input_name: 'steps', options: [1, 2] } })), 'parameter_map.steps.options', 'applies only to enum');
});

test('rejects min greater than max, a non-numeric bound, and bounds on non-numeric types', (t) => {
  const at = { node_id: '3', input_name: 'steps' };
  rejects(t, check(base({ steps: { type: 'integer', ...at, min: 10, max: 5 } })), 'parameter_map.steps.min', 'must not be greater than max (10 > 5)');
  rejects(t, check(base({ steps: { type: 'integer', ...at, max: '5' } })), 'parameter_map.steps.max', 'must be a number');
  rejects(t, check(base({ note: { type: 'string', node_id: '9', input_name: 'filename_prefix', min: 1 } })), 'parameter_map.note.min', 'applies only to integer, number and seed');
});

test('rejects a preset min overridden past the preset max', (t) => {
  rejects(t, check(base({ width: { preset: 'width', node_id: '5', input_name: 'width', min: 20000 } })), 'parameter_map.width.min', 'must not be greater than max (20000 > 16384)');
});

test('rejects a default that breaks the item\'s own type or range', (t) => {
  const at = { node_id: '3', input_name: 'steps' };
  rejects(t, check(base({ steps: { type: 'integer', ...at, default: 2.5 } })), 'parameter_map.steps.default', 'must be an integer');
  rejects(t, check(base({ steps: { type: 'integer', ...at, min: 1, max: 50, default: 80 } })), 'parameter_map.steps.default', 'must be at most 50 (got 80)');
  rejects(t, check(base({ flag: { type: 'boolean', node_id: '3', input_name: 'denoise', default: 'yes' } })), 'parameter_map.flag.default', 'must be true or false');
  rejects(t, check(base({ pic: { type: 'image', node_id: '10', input_name: 'image', default: 'example.png' } })), 'parameter_map.pic.default', 'UUID');
});

test('rejects an unknown preset', (t) => {
  rejects(t, check(base({ strength: { preset: 'strength', type: 'number', node_id: '3', input_name: 'denoise' } })), 'parameter_map.strength.preset', 'names no known preset');
});

test('rejects a preset whose key or type the item contradicts', (t) => {
  rejects(t, check(base({ positive: { preset: 'steps', node_id: '3', input_name: 'steps' } })), 'parameter_map.positive.key', 'must be "steps" because the item uses preset steps');
  rejects(t, check(base({ steps: { preset: 'steps', type: 'number', node_id: '3', input_name: 'steps' } })), 'parameter_map.steps.type', 'must be integer because the item uses preset steps');
});

test('rejects the same preset used twice', (t) => {
  const result = check(base({
    seed: { preset: 'seed', node_id: '3', input_name: 'seed' },
    seed2: { preset: 'seed', node_id: '3', input_name: 'steps' },
  }));
  rejects(t, result, 'parameter_map.seed2.preset', 'preset seed is used twice (also by seed)');
});

test('rejects a map that lacks a parameter its category requires, naming it', (t) => {
  const image = { preset: 'image', node_id: '10', input_name: 'image' };
  rejects(t, check({ image }, 'image-to-image'), 'parameter_map.prompt', 'parameter prompt is required for category image-to-image');
  rejects(t, check({ prompt }, 'image-to-image'), 'parameter_map.image', 'parameter image is required for category image-to-image');
  const videoWorkflow: WorkflowGraph = { ...workflow, '5': { class_type: 'EmptyHunyuanLatentVideo', inputs: { width: 512, height: 512, length: 25, batch_size: 1 } } };
  const video = validateParameterMap({ steps: { preset: 'steps', node_id: '3', input_name: 'steps' } }, videoWorkflow, 'text-to-video');
  rejects(t, video, 'parameter_map.prompt', 'required for category text-to-video');
  rejects(t, video, 'parameter_map.duration', 'parameter duration is required for category text-to-video');
  rejects(t, check({}, 'upscale'), 'parameter_map.image', 'required for category upscale');
  t.true(check({ image }, 'upscale').ok);
});

test('a category requires only what the workflow has an input for (issue 24)', (t) => {
  // A blur: an image in, an image out, no text anywhere but the file-name prefix.
  const blur: WorkflowGraph = {
    '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
    '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 3, sigma: 1 } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'blurred' } },
  };
  const image = { preset: 'image', node_id: '1', input_name: 'image' };
  t.deepEqual(requiredKeysFor('image-to-image', blur), ['image']);
  t.true(validateParameterMap({ image }, blur, 'image-to-image').ok);
  rejects(t, validateParameterMap({}, blur, 'image-to-image'), 'parameter_map.image', 'parameter image is required for category image-to-image');
  // A text-only graph offers no image and no duration: text-to-video then asks for the prompt alone.
  const textOnly: WorkflowGraph = {
    '1': { class_type: 'PrimitiveString', inputs: { value: 'hello' } },
    '2': { class_type: 'PreviewAny', inputs: { source: ['1', 0] } },
  };
  t.deepEqual(requiredKeysFor('text-to-video', textOnly), ['prompt']);
  t.deepEqual(requiredKeysFor('image-to-video', textOnly), []);
  // The standard SD graph (CLIPTextEncode text, LoadImage image) keeps every requirement of its categories.
  t.deepEqual(requiredKeysFor('image-to-image', workflow), ['prompt', 'image']);
  t.deepEqual(requiredKeysFor('text-to-video', workflow), ['prompt']);
  // A linked text input carries nothing an admin can map.
  const linked: WorkflowGraph = { ...workflow, '6': { class_type: 'CLIPTextEncode', inputs: { text: ['1', 0], clip: ['4', 1] } }, '7': { class_type: 'CLIPTextEncode', inputs: { text: ['1', 0], clip: ['4', 1] } } };
  t.deepEqual(requiredKeysFor('text-to-image', linked), []);
});

test('rejects a category-required parameter of the wrong type', (t) => {
  rejects(t, check({ image: { type: 'string', node_id: '10', input_name: 'image' } }, 'upscale'), 'parameter_map.image.type', 'must be image because image is required for category upscale');
});

test('rejects an unknown category, a non-boolean required and an oversized label', (t) => {
  rejects(t, validateParameterMap({ prompt }, workflow, 'text-to-audio' as Category), 'category', 'must be one of text-to-image');
  rejects(t, check({ prompt: { ...prompt, required: 'yes' } }), 'parameter_map.prompt.required', 'must be true or false');
  rejects(t, check({ prompt: { ...prompt, label: 'x'.repeat(201) } }), 'parameter_map.prompt.label', 'at most 200 characters');
  rejects(t, check({ prompt: { ...prompt, description: 7 } }), 'parameter_map.prompt.description', 'must be a string');
});

test('reports every problem of a map at once', (t) => {
  const result = check({ steps: { type: 'integer', node_id: '99', input_name: 'steps', min: 9, max: 1 } });
  rejects(t, result, 'parameter_map.steps.node_id', 'node 99');
  rejects(t, result, 'parameter_map.steps.min', 'greater than max');
  rejects(t, result, 'parameter_map.prompt', 'required for category');
});

test('publicParameters hides where values land and shows the literal a missing value keeps', (t) => {
  const result = check({
    prompt,
    seed: { type: 'seed', node_id: '3', input_name: 'seed' },
    steps: { type: 'integer', node_id: '3', input_name: 'steps' },
    image: { preset: 'image', node_id: '10', input_name: 'image', required: false },
  });
  if (!result.ok) return t.fail(JSON.stringify(result.details));
  const list = publicParameters(result.value, workflow);
  t.deepEqual(list.map((p) => p.key), ['prompt', 'seed', 'steps', 'image']);
  for (const p of list) {
    t.false('node_id' in p);
    t.false('input_name' in p);
  }
  t.is(list[0]!.default, 'a cat');
  t.is(list[1]!.default, undefined);
  t.is(list[2]!.default, 20);
  t.is(list[3]!.default, undefined);
});

test('withClassTypes adds each item\'s node class_type', (t) => {
  const map: ParameterMap = {
    prompt: { key: 'prompt', type: 'string', node_id: '6', input_name: 'text' },
    steps: { key: 'steps', type: 'integer', node_id: '3', input_name: 'steps' },
  };
  const out = withClassTypes(map, workflow);
  t.is(out['prompt']!.class_type, 'CLIPTextEncode');
  t.is(out['steps']!.class_type, 'KSampler');
  t.is(out['steps']!.node_id, '3');
});

test('presets: categories, required keys, filtering and self-consistent defaults', (t) => {
  t.deepEqual([...CATEGORIES], ['text-to-image', 'image-to-image', 'text-to-video', 'image-to-video', 'upscale']);
  // Pinned literally: what each category promises its users they can steer.
  t.deepEqual(Object.fromEntries(Object.entries(REQUIRED_BY_CATEGORY).map(([category, keys]) => [category, [...keys]])), {
    'text-to-image': ['prompt'],
    'image-to-image': ['prompt', 'image'],
    'text-to-video': ['prompt', 'duration'],
    'image-to-video': ['image', 'duration'],
    upscale: ['image'],
  });
  const keys = PARAMETER_PRESETS.map((p) => p.key);
  for (const key of ['prompt', 'negative_prompt', 'seed', 'steps', 'cfg', 'width', 'height', 'batch_size', 'denoise',
    'sampler_name', 'scheduler', 'image', 'duration', 'fps']) {
    t.true(keys.includes(key), key);
  }
  for (const preset of PARAMETER_PRESETS) {
    if (preset.default !== undefined) t.true(checkParameterValue(preset, preset.default).ok, preset.key);
    for (const category of preset.requiredFor) t.true(preset.categories.includes(category), `${preset.key} ${category}`);
  }
  for (const category of CATEGORIES) {
    const available = presetsForCategory(category).map((p) => p.key);
    for (const key of REQUIRED_BY_CATEGORY[category]) t.true(available.includes(key), `${category} offers ${key}`);
  }
  t.is(presetsForCategory().length, PARAMETER_PRESETS.length);
  t.false(presetsForCategory('upscale').some((p) => p.key === 'prompt'));
  t.is(findPreset('width')!.min, 64);
  t.true(findPreset('sampler_name')!.options!.includes('dpmpp_2m'));
  t.throws(() => {
    (findPreset('width') as { min: number }).min = 1;
  });
});

// Pins every preset's type, default and bounds literally: the bounds are the limits users meet on every template mapping a preset (batch size, steps, size, duration).
test('presets: type, default, min and max of each, written out', (t) => {
  t.deepEqual(
    Object.fromEntries(PARAMETER_PRESETS.map((p) => [p.key, [p.type, p.default, p.min, p.max]])),
    {
      prompt: ['string', undefined, undefined, undefined],
      negative_prompt: ['string', '', undefined, undefined],
      seed: ['seed', -1, undefined, undefined],
      steps: ['integer', 20, 1, 10000],
      cfg: ['number', 8, 0, 100],
      width: ['integer', 512, 64, 16384],
      height: ['integer', 512, 64, 16384],
      batch_size: ['integer', 1, 1, 4096],
      denoise: ['number', 1, 0, 1],
      sampler_name: ['enum', 'euler', undefined, undefined],
      scheduler: ['enum', 'normal', undefined, undefined],
      image: ['image', undefined, undefined, undefined],
      duration: ['number', 4, 0.5, 120],
      fps: ['number', 24, 1, 120],
    },
  );
  // A map using a preset inherits its bounds: one past them is refused.
  const result = check({ prompt, batch_size: { preset: 'batch_size', node_id: '5', input_name: 'batch_size', default: 4097 } });
  rejects(t, result, 'parameter_map.batch_size.default', 'must be at most 4096 (got 4097)');
});

/** The fields of a refusal's problems, in order (an accepted map has none). */
const fields = (result: Result<unknown>): string[] => (result.ok ? [] : (result.details ?? []).map((p) => p.field));

test('checkParameterValue: text beyond the safe or finite range is refused, "false" is false, and a long option list is cut at 20', (t) => {
  t.deepEqual(checkParameterValue({ type: 'integer' }, '9007199254740993'), { ok: false, message: 'must be an integer' });
  t.deepEqual(checkParameterValue({ type: 'integer' }, '9007199254740991'), { ok: true, value: 9007199254740991 });
  t.deepEqual(checkParameterValue({ type: 'number' }, '1e999'), { ok: false, message: 'must be a number' });
  t.deepEqual(checkParameterValue({ type: 'boolean' }, 'false'), { ok: true, value: false });
  const options = Array.from({ length: 25 }, (_, i) => `o${i}`);
  const shown = options.slice(0, 20).map((o) => `"${o}"`).join(', ');
  t.deepEqual(checkParameterValue({ type: 'enum', options }, 'x'), { ok: false, message: `must be one of ${shown} and 5 more` });
  t.deepEqual(checkParameterValue({ type: 'enum', options: ['a', 1] }, 'x'), { ok: false, message: 'must be one of "a", 1' });
});

test('a refused map names at most 50 problems', (t) => {
  const input = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`bad.${i}`, { type: 'integer', node_id: '3', input_name: 'steps' }]));
  t.is(fields(check(input)).length, 50);
});

// A rule already refused is not used to check the default: each mistake is reported once, not again as a "bad default".
test('a default is checked only against rules that passed', (t) => {
  const steps = { node_id: '3', input_name: 'steps' };
  const sched = { node_id: '3', input_name: 'scheduler' };
  t.deepEqual(fields(check(base({ steps: { ...steps, type: 'integer', min: 'one', max: 5, default: 9 } }))), ['parameter_map.steps.min']);
  t.deepEqual(fields(check(base({ note: { type: 'string', node_id: '9', input_name: 'filename_prefix', min: 1, default: 5 } }))), ['parameter_map.note.min']);
  t.deepEqual(fields(check(base({ steps: { ...steps, type: 'integer', min: 10, max: 5, default: 7 } }))), ['parameter_map.steps.min']);
  t.deepEqual(fields(check(base({ sched: { ...sched, type: 'enum', options: 'ab', default: 'a' } }))), ['parameter_map.sched.options']);
  t.deepEqual(fields(check(base({ sched: { ...sched, type: 'enum', options: ['a', 'a'], default: 'b' } }))), ['parameter_map.sched.options']);
  t.deepEqual(fields(check(base({ steps: { ...steps, type: 'integer', options: [1], default: 'x' } }))), ['parameter_map.steps.options']);
  t.deepEqual(fields(check(base({ steps: { ...steps, type: 'float', default: 3 } }))), ['parameter_map.steps.type']);
  t.deepEqual(fields(check({ image: { type: 'string', node_id: '10', input_name: 'image', default: 5 } }, 'upscale')), ['parameter_map.image.type']);
});

test('rejects an empty node_id or input_name, infinite bounds and options, and options of other types', (t) => {
  const steps = { type: 'integer', node_id: '3', input_name: 'steps' };
  const sched = { type: 'enum', node_id: '3', input_name: 'scheduler' };
  rejects(t, check(base({ steps: { ...steps, node_id: '' } })), 'parameter_map.steps.node_id', 'is required');
  rejects(t, check(base({ steps: { ...steps, input_name: '' } })), 'parameter_map.steps.input_name', 'is required');
  // JSON reads 1e999 as Infinity.
  const infinite = JSON.parse(`{"prompt": ${JSON.stringify(prompt)}, "steps": ${JSON.stringify({ ...steps, max: 0 }).replace('"max":0', '"max":1e999')}}`) as unknown;
  rejects(t, check(infinite), 'parameter_map.steps.max', 'must be a number');
  rejects(t, check(base({ sched: { ...sched, options: ['a', Infinity] } })), 'parameter_map.sched.options', 'strings or numbers');
  rejects(t, check(base({ sched: { ...sched, options: ['a', true] } })), 'parameter_map.sched.options', 'strings or numbers');
  rejects(t, check(base({ sched: { ...sched, options: ['a', null] } })), 'parameter_map.sched.options', 'strings or numbers');
});

test('an input is told apart by node and name however they are spelt', (t) => {
  // Node "1" input "1a" and node "11" input "a": written one after the other they read the same.
  const graph: WorkflowGraph = {
    '1': { class_type: 'Mixer', inputs: { '1a': 1 } },
    '11': { class_type: 'Mixer', inputs: { a: 2 } },
  };
  const result = validateParameterMap({ first: { type: 'integer', node_id: '1', input_name: '1a' }, second: { type: 'integer', node_id: '11', input_name: 'a' } }, graph, 'text-to-image');
  t.deepEqual(fields(result).filter((field) => field.startsWith('parameter_map.second')), []);
});

test('a normalised item carries only the fields it has (no key set to undefined)', (t) => {
  const result = check(base({ steps: { type: 'integer', node_id: '3', input_name: 'steps' } }));
  if (!result.ok) return t.fail(JSON.stringify(result.details));
  t.deepEqual(result.value['steps'], { key: 'steps', type: 'integer', node_id: '3', input_name: 'steps' });
});

test("the normalised map has an options list of its own, apart from the input's and the preset's", (t) => {
  const options = ['a', 'b'];
  const first = check(base({ sched: { type: 'enum', node_id: '3', input_name: 'scheduler', options }, sampler_name: { preset: 'sampler_name', node_id: '3', input_name: 'sampler_name' } }));
  if (!first.ok) return t.fail(JSON.stringify(first.details));
  options.push('c');
  t.deepEqual(first.value['sched']!.options, ['a', 'b']);
  const presetOptions = [...findPreset('sampler_name')!.options!];
  first.value['sampler_name']!.options!.push('spoiled');
  t.deepEqual(findPreset('sampler_name')!.options, presetOptions);
});

test('publicParameters keeps an explicit default, shows none for a required item or a literal that breaks the rules, and reads a missing node as no literal', (t) => {
  const map: ParameterMap = {
    steps: { key: 'steps', type: 'integer', node_id: '3', input_name: 'steps', default: 30 },
    cfg: { key: 'cfg', type: 'number', node_id: '3', input_name: 'cfg', required: true },
    sampler: { key: 'sampler', type: 'enum', node_id: '3', input_name: 'sampler_name', options: ['ddim'] },
    seed: { key: 'seed', type: 'seed', node_id: '3', input_name: 'seed' },
    gone: { key: 'gone', type: 'string', node_id: '99', input_name: 'text' },
    // A server-side file name, even one that reads as an upload id, is no default a user could send.
    pic: { key: 'pic', type: 'image', node_id: '11', input_name: 'image' },
  };
  const graph: WorkflowGraph = { ...workflow, '11': { class_type: 'LoadImage', inputs: { image: '0b6f8a52-3c1e-4d7a-9f21-5e8c4b2a7d10' } } };
  t.deepEqual(publicParameters(map, graph), [
    { key: 'steps', type: 'integer', default: 30 },
    { key: 'cfg', type: 'number', required: true },
    { key: 'sampler', type: 'enum', options: ['ddim'] },
    { key: 'seed', type: 'seed' },
    { key: 'gone', type: 'string' },
    { key: 'pic', type: 'image' },
  ]);
  t.deepEqual(withClassTypes({ gone: map['gone']! }, workflow), { gone: { ...map['gone']!, class_type: null } });
});
