import test from 'ava';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BuiltinRuntime } from '../../adapters/builtin-engine/builtin-runtime.ts';

const makeRuntime = (): BuiltinRuntime => {
  const root = mkdtempSync(path.join(tmpdir(), 'builtin-rt-'));
  return new BuiltinRuntime({ inputDir: path.join(root, 'in'), outputDir: path.join(root, 'out'), tempDir: path.join(root, 'tmp') });
};

const empty = (over: Record<string, unknown> = {}) => ({
  class_type: 'EmptyImage',
  inputs: { width: 64, height: 64, batch_size: 1, color: 0, ...over },
});
const save = (images: unknown) => ({ class_type: 'SaveImage', inputs: { images, filename_prefix: 'ComfyUI' } });
const SAVE_IMAGES_CONFIG = ['IMAGE', { tooltip: 'The images to save.' }];

test('no prompt key gives no_prompt', (t) => {
  t.deepEqual(makeRuntime().validate(undefined), {
    ok: false,
    error: { type: 'no_prompt', message: 'No prompt provided', details: 'No prompt provided', extra_info: {} },
    node_errors: {},
  });
});

test('unknown class_type gives invalid_prompt naming the node', (t) => {
  t.deepEqual(makeRuntime().validate({ '1': { class_type: 'Nope', inputs: {} } }), {
    ok: false,
    error: { type: 'invalid_prompt', message: 'Cannot execute because node Nope does not exist.', details: "Node ID '#1'", extra_info: {} },
    node_errors: {},
  });
});

test('node without class_type gives invalid_prompt', (t) => {
  const r = makeRuntime().validate({ '1': empty(), '7': { inputs: {} } });
  t.false(r.ok);
  if (r.ok) return;
  t.is(r.error.type, 'invalid_prompt');
  t.is(r.error.details, "Node ID '#7'");
  t.deepEqual(r.node_errors, {});
});

test('graph without output node gives prompt_no_outputs', (t) => {
  t.deepEqual(makeRuntime().validate({ '1': empty() }), {
    ok: false,
    error: { type: 'prompt_no_outputs', message: 'Prompt has no outputs', details: '', extra_info: {} },
    node_errors: {},
  });
});

test('missing required input: defaults are not filled in', (t) => {
  const r = makeRuntime().validate({ '1': { class_type: 'EmptyImage', inputs: { width: 64, batch_size: 1, color: 0 } }, '2': save(['1', 0]) });
  t.deepEqual(r, {
    ok: false,
    error: { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation', details: '', extra_info: {} },
    node_errors: {
      '1': {
        errors: [{ type: 'required_input_missing', message: 'Required input is missing', details: 'height', extra_info: { input_name: 'height' } }],
        dependent_outputs: ['2'],
        class_type: 'EmptyImage',
      },
    },
  });
  const noPrefix = makeRuntime().validate({ '1': empty(), '2': { class_type: 'SaveImage', inputs: { images: ['1', 0] } } });
  t.false(noPrefix.ok);
  if (!noPrefix.ok) {
    t.is(noPrefix.node_errors['2']!.errors[0]!.details, 'filename_prefix');
    t.is(noPrefix.error.details, 'Required input is missing: filename_prefix', 'errors on the output node itself are repeated in details');
  }
});

test('link to a missing node from an output node: exception_during_validation with KeyError', (t) => {
  const r = makeRuntime().validate({ '1': empty(), '2': save(['99', 0]) });
  t.false(r.ok);
  if (r.ok) return;
  const e = r.node_errors['2']!.errors[0]!;
  t.is(e.type, 'exception_during_validation');
  t.is(e.message, 'Exception when validating node');
  t.is(e.details, "'99'");
  t.is(e.extra_info['exception_type'], 'KeyError');
  t.true(Array.isArray(e.extra_info['traceback']));
  t.is(r.error.details, "Exception when validating node: '99'");
});

test('link to a missing node from an inner node: exception_during_inner_validation on the linked-to node', (t) => {
  const r = makeRuntime().validate({ '3': { class_type: 'ImageInvert', inputs: { image: ['99', 0] } }, '2': save(['3', 0]) });
  t.false(r.ok);
  if (r.ok) return;
  t.deepEqual(Object.keys(r.node_errors), ['3']);
  const entry = r.node_errors['3']!;
  t.is(entry.class_type, 'ImageInvert');
  t.deepEqual(entry.dependent_outputs, ['2']);
  const e = entry.errors[0]!;
  t.is(e.type, 'exception_during_inner_validation');
  t.is(e.message, 'Exception when validating inner node');
  t.is(e.details, "'99'");
  t.like(e.extra_info, { input_name: 'images', exception_message: "'99'", exception_type: 'KeyError', linked_node: ['3', 0] });
  t.true(Array.isArray(e.extra_info['traceback']));
  t.is(r.error.details, '');
});

test('link to a bad output slot: IndexError tuple index out of range', (t) => {
  const r = makeRuntime().validate({ '1': empty(), '2': save(['1', 5]) });
  t.false(r.ok);
  if (r.ok) return;
  const e = r.node_errors['2']!.errors[0]!;
  t.is(e.type, 'exception_during_validation');
  t.is(e.details, 'tuple index out of range');
  t.is(e.extra_info['exception_type'], 'IndexError');
});

test('link not of length 2 gives bad_linked_input', (t) => {
  const r = makeRuntime().validate({ '1': empty(), '2': save(['1', 0, 1]) });
  t.false(r.ok);
  if (r.ok) return;
  t.deepEqual(r.node_errors['2']!.errors, [
    {
      type: 'bad_linked_input',
      message: 'Bad linked input, must be a length-2 list of [node_id, slot_index]',
      details: 'images',
      extra_info: { input_name: 'images', input_config: SAVE_IMAGES_CONFIG, received_value: ['1', 0, 1] },
    },
  ]);
});

test('MASK into IMAGE gives return_type_mismatch', (t) => {
  const r = makeRuntime().validate({ '1': { class_type: 'SolidMask', inputs: { value: 1, width: 8, height: 8 } }, '2': save(['1', 0]) });
  t.false(r.ok);
  if (r.ok) return;
  t.deepEqual(r.node_errors['2']!.errors, [
    {
      type: 'return_type_mismatch',
      message: 'Return type mismatch between linked nodes',
      details: 'images, received_type(MASK) mismatch input_type(IMAGE)',
      extra_info: { input_name: 'images', input_config: SAVE_IMAGES_CONFIG, received_type: 'MASK', linked_node: ['1', 0] },
    },
  ]);
});

test('INT above max / below min, FLOAT below min, printed the Python way', (t) => {
  const r = makeRuntime().validate({
    '1': empty({ width: 20000, batch_size: 0 }),
    '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 1, sigma: 0.05 } },
    '3': save(['2', 0]),
  });
  t.false(r.ok);
  if (r.ok) return;
  const widthCfg = ['INT', { default: 512, min: 1, max: 16384, step: 1 }];
  t.deepEqual(r.node_errors['1']!.errors, [
    {
      type: 'value_bigger_than_max',
      message: 'Value 20000 bigger than max of 16384',
      details: 'width',
      extra_info: { input_name: 'width', input_config: widthCfg, received_value: 20000 },
    },
    {
      type: 'value_smaller_than_min',
      message: 'Value 0 smaller than min of 1',
      details: 'batch_size',
      extra_info: { input_name: 'batch_size', input_config: ['INT', { default: 1, min: 1, max: 4096 }], received_value: 0 },
    },
  ]);
  t.is(r.node_errors['2']!.errors[0]!.type, 'value_smaller_than_min');
  t.is(r.node_errors['2']!.errors[0]!.message, 'Value 0.05 smaller than min of 0.1');
  const big = makeRuntime().validate({ '1': empty(), '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 1, sigma: 20 } }, '3': save(['2', 0]) });
  t.false(big.ok);
  if (!big.ok) t.is(big.node_errors['2']!.errors[0]!.message, 'Value 20.0 bigger than max of 10.0');
});

test('non-numeric INT gives invalid_input_type with Python\'s message', (t) => {
  const r = makeRuntime().validate({ '1': empty({ width: 'abc' }), '2': save(['1', 0]) });
  t.false(r.ok);
  if (r.ok) return;
  const e = r.node_errors['1']!.errors[0]!;
  t.is(e.type, 'invalid_input_type');
  t.is(e.message, 'Failed to convert an input value to a INT value');
  t.is(e.details, "width, abc, invalid literal for int() with base 10: 'abc'");
  t.like(e.extra_info, { input_name: 'width', received_value: 'abc', exception_message: "invalid literal for int() with base 10: 'abc'" });
});

test('combo value not allowed gives value_not_in_list listing the options', (t) => {
  const r = makeRuntime().validate({
    '1': empty(),
    '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'foo', width: 8, height: 8, crop: 'disabled' } },
    '3': save(['2', 0]),
  });
  t.false(r.ok);
  if (r.ok) return;
  const options = ['nearest-exact', 'bilinear', 'area', 'bicubic', 'lanczos'];
  t.deepEqual(r.node_errors['2']!.errors, [
    {
      type: 'value_not_in_list',
      message: 'Value not in list',
      details: "upscale_method: 'foo' not in ['nearest-exact', 'bilinear', 'area', 'bicubic', 'lanczos']",
      extra_info: { input_name: 'upscale_method', input_config: [options, {}], received_value: 'foo' },
    },
  ]);
});

test('V3 combo (SaveVideo codec) is checked against its options', (t) => {
  const r = makeRuntime().validate({
    '1': empty(),
    '2': { class_type: 'CreateVideo', inputs: { images: ['1', 0], fps: 10 } },
    '3': { class_type: 'SaveVideo', inputs: { video: ['2', 0], filename_prefix: 'v', format: 'auto', codec: 'h265' } },
  });
  t.false(r.ok);
  if (!r.ok) t.is(r.node_errors['3']!.errors[0]!.details, "codec: 'h265' not in ['auto', 'h264']");
});

test('LoadImage of a missing file gives custom_validation_failed', (t) => {
  const r = makeRuntime().validate({ '1': { class_type: 'LoadImage', inputs: { image: 'nope.png' } }, '2': save(['1', 0]) });
  t.false(r.ok);
  if (r.ok) return;
  t.deepEqual(r.node_errors['1'], {
    errors: [
      { type: 'custom_validation_failed', message: 'Custom validation failed for node', details: 'image - Invalid image file: nope.png', extra_info: { input_name: 'image' } },
    ],
    dependent_outputs: ['2'],
    class_type: 'LoadImage',
  });
});

test('LoadImage of an existing file in a subfolder validates', (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'builtin-rt-'));
  const rt = new BuiltinRuntime({ inputDir: path.join(root, 'in'), outputDir: path.join(root, 'out'), tempDir: path.join(root, 'tmp') });
  mkdirSync(path.join(root, 'in', 'sub'));
  writeFileSync(path.join(root, 'in', 'sub', 'x.png'), 'not really');
  t.true(rt.validate({ '1': { class_type: 'LoadImage', inputs: { image: 'sub/x.png' } }, '2': save(['1', 0]) }).ok);
  const escape = rt.validate({ '1': { class_type: 'LoadImage', inputs: { image: '../out/x.png' } }, '2': save(['1', 0]) });
  t.false(escape.ok);
});

test('partial success: invalid output branches are dropped and reported', (t) => {
  const r = makeRuntime().validate({ '1': empty(), '2': save(['1', 0]), '3': { class_type: 'PreviewImage', inputs: { images: ['9', 0] } } });
  t.true(r.ok);
  if (!r.ok) return;
  t.deepEqual(r.outputs, ['2']);
  t.deepEqual(Object.keys(r.nodeErrors), ['3']);
  t.deepEqual(r.nodeErrors['3']!.dependent_outputs, ['3']);
});

test('partial_execution_targets limits the outputs', (t) => {
  const r = makeRuntime().validate({ '1': empty(), '2': save(['1', 0]), '3': { class_type: 'PreviewImage', inputs: { images: ['1', 0] } } }, ['3']);
  t.true(r.ok);
  if (r.ok) t.deepEqual(r.outputs, ['3']);
});

test('literals are converted in place and __value__ is unwrapped', (t) => {
  const prompt = {
    '1': empty({ width: '64', color: 3.7 }),
    '2': { class_type: 'StringConcatenate', inputs: { string_a: { __value__: 'a' }, string_b: 5, delimiter: '-' } },
    '3': { class_type: 'PreviewAny', inputs: { source: ['2', 0] } },
    '4': save(['1', 0]),
  };
  t.true(makeRuntime().validate(prompt).ok);
  t.is(prompt['1'].inputs.width, 64);
  t.is(prompt['1'].inputs.color, 3);
  t.is(prompt['2'].inputs.string_a as unknown, 'a');
  t.is(prompt['2'].inputs.string_b as unknown, '5');
});

test('dependency cycle is reported instead of recursing forever', (t) => {
  const r = makeRuntime().validate({
    '1': { class_type: 'ImageInvert', inputs: { image: ['2', 0] } },
    '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
    '3': save(['1', 0]),
  });
  t.false(r.ok);
  if (!r.ok) t.is(r.node_errors['1']!.errors[0]!.type, 'dependency_cycle');
});

test('objectInfo has ComfyUI\'s per-node shape', (t) => {
  const info = makeRuntime().objectInfo();
  t.deepEqual(info['EmptyImage'], {
    input: {
      required: {
        width: ['INT', { default: 512, min: 1, max: 16384, step: 1 }],
        height: ['INT', { default: 512, min: 1, max: 16384, step: 1 }],
        batch_size: ['INT', { default: 1, min: 1, max: 4096 }],
        color: ['INT', { default: 0, min: 0, max: 0xffffff, step: 1, display: 'color' }],
      },
    },
    input_order: { required: ['width', 'height', 'batch_size', 'color'] },
    output: ['IMAGE'],
    output_is_list: [false],
    output_name: ['IMAGE'],
    name: 'EmptyImage',
    display_name: 'EmptyImage',
    description: '',
    python_module: 'nodes',
    category: 'image',
    output_node: false,
  });
  t.true(info['SaveImage']!.output_node);
  t.deepEqual(info['GetImageSize']!.output_name, ['width', 'height', 'batch_size']);
  t.deepEqual(info['SaveVideo']!.input.required['codec'], ['COMBO', { options: ['auto', 'h264'], default: 'auto', tooltip: 'The codec to use for the video.' }]);
  for (const name of ['LoadImage', 'ImageBlur', 'ImageScale', 'SaveAnimatedWEBP', 'SaveWEBM', 'CreateVideo', 'PreviewAny', 'JoinImageWithAlpha']) {
    t.truthy(info[name], name);
  }
});
