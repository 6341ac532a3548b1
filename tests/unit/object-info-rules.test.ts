import test from 'ava';
import { jobRequirements, modelFilesOf, problemField, unmetRequirements, validateAgainstObjectInfo, type ObjectInfo } from '../../core/domain/object-info.ts';
import type { ParameterMap } from '../../core/domain/parameter-map.ts';
import { MAX_PROBLEMS } from '../../core/domain/workflow-graph.ts';

// The finer rules of checking a workflow against a server's /object_info, each pinned on its own: how types of a
// link match, how literals are read as numbers, malformed catalogue entries, the problem cap, and what a job needs.

const codes = (workflow: unknown, info: ObjectInfo, map?: ParameterMap) =>
  validateAgainstObjectInfo(workflow, info, map).map((p) => [p.nodeId, p.input ?? null, p.code]);

/** One source node whose single output has type `out`, linked into one input of type `wanted`. */
const linkCodes = (out: unknown, wanted: unknown) =>
  codes(
    { '1': { class_type: 'Source', inputs: {} }, '2': { class_type: 'Sink', inputs: { x: ['1', 0] } } },
    { Source: { input: { required: {} }, output: [out] }, Sink: { input: { required: { x: [wanted] } }, output: [] } },
  );

// Pins ComfyUI's validate_node_input: equal types, a shared member of comma lists (spaces around commas ignored), a
// `*` on either side; a combo list output feeds a combo input; other types, and a type that is no string, do not match.
test('link types: equal, comma lists, wildcards and combo lists match; others are a return_type_mismatch', (t) => {
  const matches: [unknown, unknown][] = [
    ['IMAGE', 'IMAGE'],
    ['IMAGE,MASK', 'MASK'],
    ['LATENT', 'IMAGE, LATENT'],
    ['IMAGE , MASK', 'MASK'],
    ['*', 'IMAGE'],
    ['IMAGE', '*'],
    [['a', 'b'], ['c']],
    [['a', 'b'], 'COMBO'],
  ];
  for (const [out, wanted] of matches) t.deepEqual(linkCodes(out, wanted), [], `${JSON.stringify(out)} → ${JSON.stringify(wanted)}`);
  const mismatches: [unknown, unknown][] = [
    ['IMAGE', 'MASK'],
    ['IMAGE,MASK', 'LATENT,VAE'],
    [null, 'IMAGE'],
    [7, 'IMAGE'],
    ['STRING', ['a']],
  ];
  for (const [out, wanted] of mismatches) t.deepEqual(linkCodes(out, wanted), [['2', 'x', 'return_type_mismatch']], `${JSON.stringify(out)} → ${JSON.stringify(wanted)}`);
});

test('links: a negative output slot and a source class without outputs are bad links; a source of unknown class is reported on the source only', (t) => {
  const info: ObjectInfo = {
    Source: { input: { required: {} }, output: ['IMAGE'] },
    Bare: { input: { required: {} } },
    Sink: { input: { required: { x: ['IMAGE'] } }, output: [] },
  };
  t.deepEqual(codes({ '1': { class_type: 'Source', inputs: {} }, '2': { class_type: 'Sink', inputs: { x: ['1', -1] } } }, info), [['2', 'x', 'bad_link']]);
  const bare = validateAgainstObjectInfo({ '1': { class_type: 'Bare', inputs: {} }, '2': { class_type: 'Sink', inputs: { x: ['1', 0] } } }, info);
  t.deepEqual(bare.map((p) => [p.nodeId, p.code, p.message]), [['2', 'bad_link', 'links to output 0 of node 1 (Bare), which has 0 outputs']]);
  t.deepEqual(codes({ '1': { class_type: 'Gone', inputs: {} }, '2': { class_type: 'Sink', inputs: { x: ['1', 0] } } }, info), [['1', null, 'node_missing']]);
});

const NUMBERS: ObjectInfo = {
  N: {
    input: {
      required: { i: ['INT', { min: 1, max: 31 }], f: ['FLOAT', { min: 0.5, max: 10 }] },
      optional: { o: ['INT', { min: 0, max: 5 }], bare: ['INT'], loose: ['INT', { min: null, max: '3' }] },
    },
    output: [],
  },
};
const numberCodes = (inputs: Record<string, unknown>) => codes({ '1': { class_type: 'N', inputs: { i: 2, f: 1, ...inputs } } }, NUMBERS).map(([, input, code]) => [input, code]);

// Pins what ComfyUI's int()/float() accept: booleans are 1 and 0, an INT is truncated before its bounds are checked,
// an INT string must be digits, a blank string or null is no number; a FLOAT string may be any number.
test('literals are read as ComfyUI reads them before min/max', (t) => {
  t.deepEqual(numberCodes({ i: true }), [], 'true is 1');
  t.deepEqual(numberCodes({ i: false }), [['i', 'value_smaller_than_min']], 'false is 0');
  t.deepEqual(numberCodes({ i: 31.9 }), [], 'int(31.9) is 31');
  t.deepEqual(numberCodes({ i: ' 7 ' }), []);
  t.deepEqual(numberCodes({ i: '1.5' }), [['i', 'invalid_input_type']], "int('1.5') raises");
  t.deepEqual(numberCodes({ f: '' }), [['f', 'invalid_input_type']]);
  t.deepEqual(numberCodes({ f: '   ' }), [['f', 'invalid_input_type']]);
  t.deepEqual(numberCodes({ f: null }), [['f', 'invalid_input_type']]);
  t.deepEqual(numberCodes({ f: 'abc' }), [['f', 'invalid_input_type']]);
  t.deepEqual(numberCodes({ f: '2.5e0' }), []);
  t.deepEqual(numberCodes({ i: { __value__: 40 } }), [['i', 'value_bigger_than_max']], 'a __value__ wrapper is unwrapped');
});

test('optional inputs are checked when given; specs without options, or with bounds that are no numbers, check no bounds', (t) => {
  t.deepEqual(numberCodes({ o: 6 }), [['o', 'value_bigger_than_max']]);
  t.deepEqual(numberCodes({}), [], 'a missing optional input is no problem');
  t.deepEqual(numberCodes({ bare: -5 }), []);
  t.deepEqual(numberCodes({ loose: -5 }), []);
  t.deepEqual(numberCodes({ bare: 'x' }), [['bare', 'invalid_input_type']]);
});

// Pins: a catalogue entry we cannot read (a spec that is no [type, options?] list, a class without inputs) is not
// checked rather than reported or crashed on; a node that is no object, or has no class_type, is an invalid_node; a
// node without inputs misses every required one; a class name that is an Object.prototype member is still unknown.
test('malformed catalogue entries and nodes', (t) => {
  const info: ObjectInfo = {
    Odd: { input: { required: { a: [], b: 'INT', c: null } }, output: [] },
    Empty: { output: ['IMAGE'] },
    Needs: { input: { required: { w: ['INT', { min: 1 }], h: ['INT'] } }, output: [] },
  };
  t.deepEqual(codes({ '1': { class_type: 'Odd', inputs: {} }, '2': { class_type: 'Empty', inputs: { x: 1 } } }, info), []);
  t.deepEqual(codes({ '1': 'Odd', '2': { inputs: {} }, '3': { class_type: 5 } }, info), [
    ['1', null, 'invalid_node'],
    ['2', null, 'invalid_node'],
    ['3', null, 'invalid_node'],
  ]);
  t.deepEqual(codes({ '1': { class_type: 'Needs' } }, info), [
    ['1', 'w', 'required_input_missing'],
    ['1', 'h', 'required_input_missing'],
  ]);
  t.deepEqual(codes({ '1': { class_type: 'toString', inputs: {} }, '2': { class_type: 'constructor', inputs: {} } }, info), [
    ['1', null, 'node_missing'],
    ['2', null, 'node_missing'],
  ]);
  t.deepEqual(validateAgainstObjectInfo('not a workflow', info), []);
});

test(`at most ${MAX_PROBLEMS} problems are reported, also when one node's inputs cross the limit`, (t) => {
  const info: ObjectInfo = { Four: { input: { required: { a: ['INT'], b: ['INT'], c: ['INT'], d: ['INT'] } }, output: [] } };
  const workflow: Record<string, unknown> = {};
  for (let i = 1; i < MAX_PROBLEMS; i += 1) workflow[String(i)] = { class_type: 'Unknown', inputs: {} };
  workflow['zz'] = { class_type: 'Four', inputs: {} };
  const problems = validateAgainstObjectInfo(workflow, info);
  t.is(problems.length, MAX_PROBLEMS);
  t.deepEqual(problems.at(-1), { nodeId: 'zz', classType: 'Four', input: 'a', code: 'required_input_missing', message: 'is required but missing' });
});

test('combo messages: a long list is counted, an empty list is named', (t) => {
  const many = Array.from({ length: 21 }, (_, i) => `m${i}.safetensors`);
  const info: ObjectInfo = { L: { input: { required: { many: [many], few: [[]], twenty: [many.slice(0, 20)] } }, output: [] } };
  const messages = validateAgainstObjectInfo({ '1': { class_type: 'L', inputs: { many: 'x', few: 'x', twenty: 'x' } } }, info).map((p) => p.message);
  t.deepEqual(messages, ['"x" is not one of a list of 21 choices', '"x" is not one of an empty list', `"x" is not one of ${many.slice(0, 20).map((m) => `"${m}"`).join(', ')}`]);
});

const MAPPED: ObjectInfo = {
  KSampler: {
    input: { required: { seed: ['INT', { min: 0, max: 0xffffffffffffffff }], sampler_name: [['euler', 'dpmpp_2m']], steps: ['INT', { min: 1, max: 10000 }] } },
    output: ['LATENT'],
  },
  Small: { input: { required: { seed: ['INT', { min: 0, max: 1000 }] } }, output: [] },
  LoadImage: { input: { required: { image: [['a.png'], { image_upload: true }] } }, output: ['IMAGE', 'MASK'] },
};
const sampler = () => ({ '1': { class_type: 'KSampler', inputs: { seed: 0, sampler_name: 'euler', steps: 20 } } });

// Pins: a seed parameter ranges over 0..MAX_SEED unless the map narrows it (and never below 0, the only seeds a
// user can send), so a seed input with ComfyUI's full range fits, and a node that caps seeds lower does not.
test('a seed parameter spans 0..MAX_SEED unless narrowed', (t) => {
  const seed: ParameterMap = { seed: { key: 'seed', type: 'seed', node_id: '1', input_name: 'seed' } };
  t.deepEqual(codes(sampler(), MAPPED, seed), []);
  const below: ParameterMap = { seed: { ...seed['seed']!, min: -5 } };
  t.deepEqual(codes(sampler(), MAPPED, below), [], 'a seed below 0 cannot be sent, whatever the map says');
  t.deepEqual(codes({ '1': { class_type: 'Small', inputs: { seed: 0 } } }, MAPPED, seed), [['1', 'seed', 'parameter_out_of_bounds']]);
  const narrowed: ParameterMap = { seed: { ...seed['seed']!, max: 1000 } };
  t.deepEqual(codes({ '1': { class_type: 'Small', inputs: { seed: 0 } } }, MAPPED, narrowed), []);
});

// Pins: on a combo input, a non-enum parameter is checked by its default (none: nothing to check), an enum by its
// options; on an upload combo (the input folder) nothing is checked.
test('a parameter on a combo input: its default or its options must be in the list; upload combos are not checked', (t) => {
  const text = (extra: object): ParameterMap => ({ sampler: { key: 'sampler', type: 'string', node_id: '1', input_name: 'sampler_name', ...extra } });
  t.deepEqual(codes(sampler(), MAPPED, text({})), []);
  t.deepEqual(codes(sampler(), MAPPED, text({ default: 'dpmpp_2m' })), []);
  t.deepEqual(codes(sampler(), MAPPED, text({ default: 'ddim' })), [['1', 'sampler_name', 'parameter_out_of_bounds']]);
  const upload: ParameterMap = { file: { key: 'file', type: 'string', node_id: '2', input_name: 'image', default: 'b.png' } };
  t.deepEqual(codes({ ...sampler(), '2': { class_type: 'LoadImage', inputs: { image: 'PLACEHOLDER' } } }, MAPPED, upload), []);
});

test("a job's requirements: node classes and string values only; optional combo choices are checked too", (t) => {
  t.deepEqual(jobRequirements(null), { nodeTypes: [], choices: [] });
  t.deepEqual(jobRequirements({ '1': { class_type: 'KSampler', inputs: { seed: 5, sampler_name: 'euler', model: ['2', 0] } }, '2': 'junk', '3': { inputs: {} } }), {
    nodeTypes: ['KSampler'],
    choices: [{ nodeId: '1', classType: 'KSampler', input: 'sampler_name', value: 'euler' }],
  });
  const info: ObjectInfo = { Up: { input: { optional: { method: [['nearest', 'area']] } }, output: [] } };
  t.deepEqual(unmetRequirements(info, jobRequirements({ '1': { class_type: 'Up', inputs: { method: 'lanczos' } } })), ['method "lanczos" (node 1, Up)']);
  t.deepEqual(unmetRequirements(info, jobRequirements({ '1': { class_type: 'Up', inputs: { method: 'area' } } })), []);
});

test("a server's model files: only *_name combo inputs of loaders, sorted by input", (t) => {
  const info: ObjectInfo = {
    VAELoader: { input: { required: { vae_name: [['v.safetensors']] } }, output: ['VAE'] },
    UNETLoader: { input: { required: { unet_name: [['u.safetensors']], weight_dtype: [['default', 'fp8_e4m3fn']] } }, output: ['MODEL'] },
    KSampler: { input: { required: { sampler_name: [['euler']] } }, output: ['LATENT'] },
  };
  t.deepEqual(Object.entries(modelFilesOf(info)), [
    ['unet_name', ['u.safetensors']],
    ['vae_name', ['v.safetensors']],
  ]);
});

test('a problem as a field error of the validation body', (t) => {
  t.deepEqual(problemField({ nodeId: '3', classType: 'KSampler', input: 'steps', code: 'value_bigger_than_max', message: '20000 is bigger than the maximum 10000' }), {
    field: 'workflow.3.inputs.steps',
    message: 'KSampler #3 steps: 20000 is bigger than the maximum 10000 (value_bigger_than_max)',
  });
  t.deepEqual(problemField({ nodeId: '9', classType: '', code: 'invalid_node', message: 'must be an object with a class_type' }), {
    field: 'workflow.9.class_type',
    message: 'node #9: must be an object with a class_type (invalid_node)',
  });
});
