import test from 'ava';
import type { ExecutionContext } from 'ava';
import type { Result } from '../../core/domain/result.ts';
import { validateParameterMap } from '../../core/domain/parameter-map.ts';
import { checkConformance, randomSeed, renderWorkflow } from '../../core/domain/render-workflow.ts';
import type { RenderTemplate } from '../../core/domain/render-workflow.ts';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';

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

const UPLOAD_ID = '0b7e4c1a-3f2d-4e5b-9a8c-1d2e3f4a5b6c';
const half = (): number => 0.5;
const never = (): number => {
  throw new Error('random() must not be called here');
};

const workflow = (): WorkflowGraph => ({
  '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
  '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 3, sigma: 1 } },
  '3': {
    class_type: 'KSampler',
    inputs: { seed: 5, steps: 20, cfg: 8, sampler_name: 'euler', scheduler: 'normal', denoise: 1, model: ['4', 0] },
  },
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'model.safetensors' } },
  '5': { class_type: 'StringConcatenate', inputs: { string_a: 'a cat', string_b: '', delimiter: ' ' } },
  '6': { class_type: 'SaveAnimatedWEBP', inputs: { images: ['2', 0], filename_prefix: 'out', fps: 6, lossless: false, quality: 80, method: 'default' } },
  '7': { class_type: 'GetImageSize', inputs: { image: ['2', 0] }, _meta: { title: 'size' } },
});

const makeTemplate = (): RenderTemplate => {
  const graph = workflow();
  const map = validateParameterMap(
    {
      prompt: { preset: 'prompt', node_id: '5', input_name: 'string_a', required: true },
      negative_prompt: { preset: 'negative_prompt', node_id: '5', input_name: 'string_b' },
      image: { preset: 'image', node_id: '1', input_name: 'image' },
      seed: { type: 'seed', node_id: '3', input_name: 'seed' },
      steps: { preset: 'steps', node_id: '3', input_name: 'steps', max: 100 },
      cfg: { type: 'number', node_id: '3', input_name: 'cfg', min: 0, max: 30 },
      sampler_name: { preset: 'sampler_name', node_id: '3', input_name: 'sampler_name' },
      lossless: { type: 'boolean', node_id: '6', input_name: 'lossless' },
      quality: { type: 'integer', node_id: '6', input_name: 'quality', min: 0, max: 100 },
      blur_radius: { type: 'integer', node_id: '2', input_name: 'blur_radius', min: 1, max: 31 },
    },
    graph,
    'image-to-image',
  );
  if (!map.ok) throw new Error(JSON.stringify(map.details));
  return { workflow: graph, parameterMap: map.value };
};

const ok = <T>(t: ExecutionContext, result: Result<T>): T => {
  if (!result.ok) {
    t.fail(JSON.stringify(result.details));
    throw new Error('unexpected rejection');
  }
  return result.value;
};

test('renders checked and coerced values into a copy of the workflow', (t) => {
  const template = makeTemplate();
  const before = JSON.stringify(template);
  const rendered = ok(t, renderWorkflow(template, {
    prompt: 'a dog', image: UPLOAD_ID, seed: '123', steps: '42', cfg: '7.5', sampler_name: 'dpmpp_2m',
    lossless: 'true', quality: 90, blur_radius: 5,
  }, never));
  const w = rendered.workflow;
  t.is(w['5']!.inputs['string_a'], 'a dog');
  t.is(w['3']!.inputs['seed'], 123);
  t.is(w['3']!.inputs['steps'], 42);
  t.is(w['3']!.inputs['cfg'], 7.5);
  t.is(w['3']!.inputs['sampler_name'], 'dpmpp_2m');
  t.is(w['6']!.inputs['lossless'], true);
  t.is(w['1']!.inputs['image'], UPLOAD_ID);
  t.deepEqual(rendered.imageRefs, [{ key: 'image', id: UPLOAD_ID, nodeId: '1', inputName: 'image' }]);
  t.deepEqual(w['3']!.inputs['model'], ['4', 0]);
  t.deepEqual(w['7']!._meta, { title: 'size' });
  t.is(rendered.usedParameters['steps'], 42);
  t.is(JSON.stringify(template), before, 'the template is unchanged');
  (w['3']!.inputs['model'] as unknown[])[0] = '99';
  w['4']!.inputs['ckpt_name'] = 'other';
  t.deepEqual(template.workflow['3']!.inputs['model'], ['4', 0], 'the result shares no link with the template');
  t.is(template.workflow['4']!.inputs['ckpt_name'], 'model.safetensors');
});

test('uses defaults, keeps and records template literals, and treats null as absent', (t) => {
  const template = makeTemplate();
  const rendered = ok(t, renderWorkflow(template, { prompt: 'x', seed: 9, cfg: null }, never));
  t.is(rendered.workflow['3']!.inputs['steps'], 20, 'preset default');
  t.is(rendered.usedParameters['steps'], 20);
  t.is(rendered.workflow['5']!.inputs['string_b'], '', 'preset default of negative_prompt');
  t.is(rendered.workflow['3']!.inputs['cfg'], 8, 'literal kept');
  t.is(rendered.usedParameters['cfg'], 8);
  t.is(rendered.usedParameters['image'], 'example.png');
  t.is(rendered.usedParameters['quality'], 80);
  t.deepEqual(rendered.imageRefs, [], 'a kept literal is no upload');
});

test('an absent seed or -1 becomes a recorded random 32-bit seed, deterministic for a fixed random', (t) => {
  const template = makeTemplate();
  const absent = ok(t, renderWorkflow(template, { prompt: 'x' }, half));
  t.is(absent.workflow['3']!.inputs['seed'], 2147483648);
  t.is(absent.usedParameters['seed'], 2147483648);
  const minusOne = ok(t, renderWorkflow(template, { prompt: 'x', seed: -1 }, () => 0.999999999999));
  t.is(minusOne.usedParameters['seed'], 4294967295);
  const again = ok(t, renderWorkflow(template, { prompt: 'x', seed: '-1' }, half));
  t.is(again.usedParameters['seed'], absent.usedParameters['seed']);
  t.is(randomSeed(() => 0), 0);
  t.is(randomSeed(() => 1), 4294967295, 'clamped even if random() misbehaves');
  t.is(randomSeed(half, 10, 20), 15, 'kept within the item\'s min and max');
});

test('absent parameters count as an empty object', (t) => {
  const template = makeTemplate();
  rejects(t, renderWorkflow(template, undefined, half), 'parameters.prompt', 'is required');
});

test('rejects parameters that are not an object', (t) => {
  rejects(t, renderWorkflow(makeTemplate(), ['a dog'], half), 'parameters', 'must be an object');
  rejects(t, renderWorkflow(makeTemplate(), 'a dog', half), 'parameters', 'must be an object');
});

test('rejects unknown parameter names, naming them', (t) => {
  const result = renderWorkflow(makeTemplate(), { prompt: 'x', stepz: 3, ckpt_name: 'evil' }, half);
  rejects(t, result, 'parameters.stepz', 'is not a parameter of this template (known: prompt');
  rejects(t, result, 'parameters.ckpt_name', 'is not a parameter of this template');
});

test('rejects a missing required parameter', (t) => {
  rejects(t, renderWorkflow(makeTemplate(), { steps: 3 }, half), 'parameters.prompt', 'is required');
});

const cases: [string, Record<string, unknown>, string, string][] = [
  ['a string that is too long', { prompt: 'x'.repeat(10_001) }, 'parameters.prompt', 'at most 10000 characters'],
  ['a non-string string', { prompt: 5 }, 'parameters.prompt', 'must be a string'],
  ['a fractional integer', { steps: 1.5 }, 'parameters.steps', 'must be an integer'],
  ['a non-numeric integer text', { steps: '4x' }, 'parameters.steps', 'must be an integer'],
  ['an integer below min', { steps: 0 }, 'parameters.steps', 'must be at least 1 (got 0)'],
  ['an integer above max', { steps: 101 }, 'parameters.steps', 'must be at most 100 (got 101)'],
  ['a non-numeric number', { cfg: 'high' }, 'parameters.cfg', 'must be a number'],
  ['a number above max', { cfg: '30.5' }, 'parameters.cfg', 'must be at most 30'],
  ['a non-boolean', { lossless: 'yes' }, 'parameters.lossless', 'must be true or false'],
  ['an enum value outside the options', { sampler_name: 'warp' }, 'parameters.sampler_name', 'must be one of "euler"'],
  ['an image that is not an id', { image: 'example.png' }, 'parameters.image', 'must be the id (a UUID)'],
  ['a seed below -1', { seed: -2 }, 'parameters.seed', 'must be an integer from 0 to 9007199254740991, or -1'],
  ['a seed beyond 2^53-1', { seed: 2 ** 53 }, 'parameters.seed', 'must be an integer from 0'],
  ['a fractional seed', { seed: 1.5 }, 'parameters.seed', 'must be an integer from 0'],
];
for (const [label, params, field, fragment] of cases) {
  test(`rejects ${label}`, (t) => {
    rejects(t, renderWorkflow(makeTemplate(), { prompt: 'x', ...params }, half), field, fragment);
  });
}

// Pins that only decimal text and finite numbers pass as numbers: hex, exponent and padded text, and a JSON 1e999 (Infinity), never reach the graph.
test('rejects number text that is not plain decimal and numbers that are not finite', (t) => {
  const graph = workflow();
  const map = validateParameterMap(
    {
      prompt: { preset: 'prompt', node_id: '5', input_name: 'string_a' },
      image: { preset: 'image', node_id: '1', input_name: 'image' },
      quality: { type: 'integer', node_id: '6', input_name: 'quality' },
      cfg: { type: 'number', node_id: '3', input_name: 'cfg' },
    },
    graph,
    'image-to-image',
  );
  if (!map.ok) return t.fail(JSON.stringify(map.details));
  const template = { workflow: graph, parameterMap: map.value };
  for (const quality of ['0x10', '1e1', ' 7', '']) {
    rejects(t, renderWorkflow(template, { quality }, half), 'parameters.quality', 'must be an integer');
  }
  for (const cfg of ['0x10', ' 7', '', '1_0']) {
    rejects(t, renderWorkflow(template, { cfg }, half), 'parameters.cfg', 'must be a number');
  }
  const infinite = JSON.parse('{"cfg": 1e999}') as Record<string, unknown>;
  rejects(t, renderWorkflow(template, infinite, half), 'parameters.cfg', 'must be a number');
  rejects(t, renderWorkflow(template, { cfg: -Infinity }, half), 'parameters.cfg', 'must be a number');
  const plain = ok(t, renderWorkflow(template, { quality: '-3', cfg: '.5e1' }, half));
  t.is(plain.workflow['6']!.inputs['quality'], -3);
  t.is(plain.workflow['3']!.inputs['cfg'], 5);
});

// Pins a seed item's own min/max: a typed seed outside them is refused, and a random one is drawn inside them.
test("a seed item's min and max bound typed seeds and the random seed drawn for -1", (t) => {
  const graph = workflow();
  const map = validateParameterMap(
    {
      prompt: { preset: 'prompt', node_id: '5', input_name: 'string_a' },
      image: { preset: 'image', node_id: '1', input_name: 'image' },
      seed: { type: 'seed', node_id: '3', input_name: 'seed', min: 1000, max: 1009 },
    },
    graph,
    'image-to-image',
  );
  if (!map.ok) return t.fail(JSON.stringify(map.details));
  const template = { workflow: graph, parameterMap: map.value };
  rejects(t, renderWorkflow(template, { seed: 999 }, half), 'parameters.seed', 'must be at least 1000 (got 999)');
  rejects(t, renderWorkflow(template, { seed: 1010 }, half), 'parameters.seed', 'must be at most 1009 (got 1010)');
  t.is(ok(t, renderWorkflow(template, { seed: 1009 }, never)).workflow['3']!.inputs['seed'], 1009);
  for (const draw of [0, 0.5, 0.999999999999]) {
    const seed = ok(t, renderWorkflow(template, { seed: -1 }, () => draw)).workflow['3']!.inputs['seed'] as number;
    t.true(seed >= 1000 && seed <= 1009, `random ${draw} drew seed ${seed}`);
  }
  const absent = ok(t, renderWorkflow(template, {}, () => 0)).usedParameters['seed'];
  t.is(absent, 1000, 'an absent seed is drawn within the bounds too');
});

test('reports every bad value at once', (t) => {
  const result = renderWorkflow(makeTemplate(), { steps: 0, cfg: 'x', nope: 1 }, half);
  rejects(t, result, 'parameters.prompt', 'is required');
  rejects(t, result, 'parameters.steps', 'at least 1');
  rejects(t, result, 'parameters.cfg', 'must be a number');
  rejects(t, result, 'parameters.nope', 'not a parameter');
});

const submittedFrom = (edit: (w: WorkflowGraph) => void): WorkflowGraph => {
  const w = workflow();
  edit(w);
  return w;
};

test('conformance accepts changed mapped values and extracts them as used parameters', (t) => {
  const template = makeTemplate();
  const submitted = submittedFrom((w) => {
    w['5']!.inputs['string_a'] = 'a dog';
    w['3']!.inputs['steps'] = 35;
    w['3']!.inputs['seed'] = 77;
    w['1']!.inputs['image'] = UPLOAD_ID;
    w['2']!.inputs['image'] = [1, 0];
    w['7']!._meta = { title: 'renamed' };
  });
  const rendered = ok(t, checkConformance(template, submitted, never));
  t.is(rendered.usedParameters['prompt'], 'a dog');
  t.is(rendered.usedParameters['steps'], 35);
  t.is(rendered.usedParameters['seed'], 77);
  t.is(rendered.usedParameters['cfg'], 8);
  t.is(rendered.workflow['3']!.inputs['steps'], 35);
  t.deepEqual(rendered.imageRefs, [{ key: 'image', id: UPLOAD_ID, nodeId: '1', inputName: 'image' }]);
});

test('conformance turns a submitted seed of -1 into a recorded random seed', (t) => {
  const rendered = ok(t, checkConformance(makeTemplate(), submittedFrom((w) => {
    w['3']!.inputs['seed'] = -1;
  }), half));
  t.is(rendered.workflow['3']!.inputs['seed'], 2147483648);
  t.is(rendered.usedParameters['seed'], 2147483648);
});

test('conformance rejects a changed unmapped value', (t) => {
  const result = checkConformance(makeTemplate(), submittedFrom((w) => {
    w['4']!.inputs['ckpt_name'] = 'other.safetensors';
  }));
  rejects(t, result, 'workflow.4.inputs.ckpt_name', 'differs from the template (no input of this node is a parameter)');
  const sigma = checkConformance(makeTemplate(), submittedFrom((w) => {
    w['2']!.inputs['sigma'] = 2;
  }));
  rejects(t, sigma, 'workflow.2.inputs.sigma', 'only blur_radius may change on this node');
});

test('conformance rejects a rewired link', (t) => {
  const result = checkConformance(makeTemplate(), submittedFrom((w) => {
    w['7']!.inputs['image'] = ['1', 0];
  }));
  rejects(t, result, 'workflow.7.inputs.image', 'differs from the template');
  // Pins that a link's output slot counts: the same node, another output, is a rewiring too.
  const slot = checkConformance(makeTemplate(), submittedFrom((w) => {
    w['7']!.inputs['image'] = ['2', 1];
  }));
  rejects(t, slot, 'workflow.7.inputs.image', 'differs from the template');
});

test('conformance rejects missing, extra and retyped nodes', (t) => {
  rejects(t, checkConformance(makeTemplate(), submittedFrom((w) => delete w['7'])), 'workflow.7', 'is missing: the template has node 7 (GetImageSize)');
  rejects(t, checkConformance(makeTemplate(), submittedFrom((w) => {
    w['8'] = { class_type: 'PreviewImage', inputs: { images: ['2', 0] } };
  })), 'workflow.8', 'is not in the template');
  rejects(t, checkConformance(makeTemplate(), submittedFrom((w) => {
    w['2']!.class_type = 'ImageSharpen';
  })), 'workflow.2.class_type', 'must be ImageBlur as in the template');
});

test('conformance rejects missing and extra inputs', (t) => {
  rejects(t, checkConformance(makeTemplate(), submittedFrom((w) => delete w['6']!.inputs['method'])), 'workflow.6.inputs.method', 'is missing; the template sets it');
  rejects(t, checkConformance(makeTemplate(), submittedFrom((w) => {
    w['4']!.inputs['extra'] = 1;
  })), 'workflow.4.inputs.extra', 'is not in the template');
});

test('conformance checks mapped values like rendering does', (t) => {
  rejects(t, checkConformance(makeTemplate(), submittedFrom((w) => {
    w['3']!.inputs['steps'] = 500;
  })), 'workflow.3.inputs.steps', 'parameter steps: must be at most 100 (got 500)');
  rejects(t, checkConformance(makeTemplate(), submittedFrom((w) => {
    w['1']!.inputs['image'] = 'other.png';
  })), 'workflow.1.inputs.image', 'parameter image: must be the id (a UUID)');
  rejects(t, checkConformance(makeTemplate(), submittedFrom((w) => {
    w['3']!.inputs['cfg'] = ['4', 0];
  })), 'workflow.3.inputs.cfg', 'parameter cfg: must be a value, not a link');
});

test('conformance applies defaults and required to a mapped input left out', (t) => {
  const rendered = ok(t, checkConformance(makeTemplate(), submittedFrom((w) => delete w['3']!.inputs['steps']), half));
  t.is(rendered.workflow['3']!.inputs['steps'], 20);
  const template = makeTemplate();
  rejects(t, checkConformance(template, submittedFrom((w) => delete w['5']!.inputs['string_a'])), 'workflow.5.inputs.string_a', 'parameter prompt: is required');
});

test('conformance keeps an unchanged template literal that a user could not have supplied', (t) => {
  const rendered = ok(t, checkConformance(makeTemplate(), workflow(), half));
  t.is(rendered.workflow['1']!.inputs['image'], 'example.png');
  t.is(rendered.usedParameters['image'], 'example.png');
  t.deepEqual(rendered.imageRefs, []);
  t.is(rendered.usedParameters['prompt'], 'a cat');
});
