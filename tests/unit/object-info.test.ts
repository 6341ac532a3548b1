import test from 'ava';
import { jobRequirements, modelFilesOf, unmetRequirements, validateAgainstObjectInfo, type ObjectInfo } from '../../core/domain/object-info.ts';
import type { ParameterMap } from '../../core/domain/parameter-map.ts';

// Copied in shape from the protocol stand-in's GET /object_info (ComfyUI 0.3.64's format).
const INFO: ObjectInfo = {
  EmptyImage: {
    input: { required: { width: ['INT', { default: 512, min: 1, max: 16384, step: 1 }], height: ['INT', { default: 512, min: 1, max: 16384, step: 1 }], batch_size: ['INT', { default: 1, min: 1, max: 4096 }], color: ['INT', { default: 0, min: 0, max: 16777215, step: 1, display: 'color' }] } },
    output: ['IMAGE'],
  },
  ImageBlur: {
    input: { required: { image: ['IMAGE'], blur_radius: ['INT', { default: 1, min: 1, max: 31, step: 1 }], sigma: ['FLOAT', { default: 1, min: 0.1, max: 10, step: 0.1 }] } },
    output: ['IMAGE'],
  },
  ImageScale: {
    input: { required: { image: ['IMAGE'], upscale_method: [['nearest-exact', 'bilinear', 'area', 'bicubic', 'lanczos']], width: ['INT', { default: 512, min: 0, max: 16384, step: 1 }], height: ['INT', { default: 512, min: 0, max: 16384, step: 1 }], crop: [['disabled', 'center']] } },
    output: ['IMAGE'],
  },
  LoadImage: { input: { required: { image: [[], { image_upload: true }] } }, output: ['IMAGE', 'MASK'] },
  SaveImage: {
    input: { required: { images: ['IMAGE', { tooltip: 'The images to save.' }], filename_prefix: ['STRING', { default: 'ComfyUI' }] }, hidden: { prompt: 'PROMPT', extra_pnginfo: 'EXTRA_PNGINFO' } },
    output: [],
  },
  CheckpointLoaderSimple: { input: { required: { ckpt_name: [['a.safetensors'], { tooltip: 'The name of the checkpoint (model) to load.' }] } }, output: ['MODEL', 'CLIP', 'VAE'] },
  KSamplerNew: { input: { required: { sampler_name: ['COMBO', { options: ['euler', 'dpmpp_2m'] }], model: ['MODEL'] } }, output: ['LATENT'] },
};

const good = () => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 64, batch_size: 1, color: 0 } },
  '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 2, sigma: 1.5 } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'out' } },
});

const codes = (w: unknown, map?: ParameterMap) => validateAgainstObjectInfo(w, INFO, map).map((p) => [p.nodeId, p.classType, p.input ?? null, p.code]);

test('a valid graph has no problems; an upload combo (LoadImage) is not checked against the input folder', (t) => {
  t.deepEqual(codes(good()), []);
  t.deepEqual(codes({ ...good(), '4': { class_type: 'LoadImage', inputs: { image: 'example.png' } } }), []);
});

test('an unknown node class is named', (t) => {
  const problems = validateAgainstObjectInfo({ ...good(), '9': { class_type: 'KSampler', inputs: {} } }, INFO);
  t.deepEqual(problems, [{ nodeId: '9', classType: 'KSampler', code: 'node_missing', message: 'node type KSampler does not exist' }]);
});

test('a missing required input is named with node and input', (t) => {
  const w = good();
  delete (w['1'].inputs as Record<string, unknown>)['height'];
  t.deepEqual(codes(w), [['1', 'EmptyImage', 'height', 'required_input_missing']]);
});

test('INT and FLOAT literals outside min/max, and a value of the wrong type', (t) => {
  const w = good();
  w['1'].inputs.width = 0;
  w['1'].inputs.height = 20000;
  w['2'].inputs.sigma = 0.05;
  (w['2'].inputs as Record<string, unknown>)['blur_radius'] = 'wide';
  t.deepEqual(codes(w), [
    ['1', 'EmptyImage', 'width', 'value_smaller_than_min'],
    ['1', 'EmptyImage', 'height', 'value_bigger_than_max'],
    ['2', 'ImageBlur', 'blur_radius', 'invalid_input_type'],
    ['2', 'ImageBlur', 'sigma', 'value_smaller_than_min'],
  ]);
  // ComfyUI converts "64" to 64 and checks no step.
  const w2 = good();
  (w2['1'].inputs as Record<string, unknown>)['width'] = '64';
  w2['2'].inputs.sigma = 1.23;
  t.deepEqual(codes(w2), []);
});

test('combo values: old-style lists and COMBO options; a model file no server has', (t) => {
  const w = {
    ...good(),
    '4': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'nearest', width: 8, height: 8, crop: 'disabled' } },
    '5': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'b.safetensors' } },
    '6': { class_type: 'KSamplerNew', inputs: { sampler_name: 'ddim', model: ['5', 0] } },
  };
  const problems = validateAgainstObjectInfo(w, INFO);
  t.deepEqual(problems.map((p) => [p.nodeId, p.input, p.code]), [
    ['4', 'upscale_method', 'value_not_in_list'],
    ['5', 'ckpt_name', 'value_not_in_list'],
    ['6', 'sampler_name', 'value_not_in_list'],
  ]);
  t.is(problems[1]!.message, '"b.safetensors" is not one of "a.safetensors"');
  t.deepEqual(codes({ '5': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: { __value__: 'a.safetensors' } } } }), []);
  const remote: ObjectInfo = { Remote: { input: { required: { model: ['COMBO', { remote: { route: '/models' } }] } }, output: [] } };
  t.deepEqual(validateAgainstObjectInfo({ '1': { class_type: 'Remote', inputs: { model: 'anything' } } }, remote), [], 'a COMBO listing no options (fetched remotely) is not checked');
});

test('links: to a missing node, to a missing output slot, and of a type the input does not take', (t) => {
  const w = good();
  w['2'].inputs.image = ['7', 0];
  w['3'].inputs.images = ['1', 1];
  t.deepEqual(codes(w), [
    ['2', 'ImageBlur', 'image', 'bad_link'],
    ['3', 'SaveImage', 'images', 'bad_link'],
  ]);
  const typed = { ...good(), '5': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'a.safetensors' } } };
  typed['3'].inputs.images = ['5', 2];
  const [problem] = validateAgainstObjectInfo(typed, INFO);
  t.deepEqual(problem, { nodeId: '3', classType: 'SaveImage', input: 'images', code: 'return_type_mismatch', message: 'links to output 2 of node 5 (CheckpointLoaderSimple), of type "VAE", but the input takes "IMAGE"' });
  // A link source id may be a number.
  t.deepEqual(codes({ ...good(), '2': { class_type: 'ImageBlur', inputs: { image: [1, 0], blur_radius: 1, sigma: 1 } } }), []);
});

test("a mapped input's placeholder is not checked, but the parameter's range, options and default must fit the node", (t) => {
  const w = good();
  w['1'].inputs.width = -1; // placeholder: the parameter fills it
  const fits: ParameterMap = { width: { key: 'width', type: 'integer', node_id: '1', input_name: 'width', min: 1, max: 2048, default: 512 } };
  t.deepEqual(codes(w, fits), []);
  const tooWide: ParameterMap = { width: { ...fits['width']!, max: 20000 } };
  t.deepEqual(codes(w, tooWide), [['1', 'EmptyImage', 'width', 'parameter_out_of_bounds']]);
  const unbounded: ParameterMap = { width: { key: 'width', type: 'integer', node_id: '1', input_name: 'width' } };
  t.deepEqual(codes(w, unbounded), [
    ['1', 'EmptyImage', 'width', 'parameter_out_of_bounds'],
    ['1', 'EmptyImage', 'width', 'parameter_out_of_bounds'],
  ]);
  const belowMin: ParameterMap = { width: { ...fits['width']!, min: 0 } };
  t.deepEqual(codes(w, belowMin), [['1', 'EmptyImage', 'width', 'parameter_out_of_bounds']]);
  const scale = { ...good(), '4': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'PLACEHOLDER', width: 8, height: 8, crop: 'disabled' } } };
  const methods: ParameterMap = { method: { key: 'method', type: 'enum', node_id: '4', input_name: 'upscale_method', options: ['bilinear', 'nearest'] } };
  const problems = validateAgainstObjectInfo(scale, INFO, methods);
  t.deepEqual(problems.map((p) => [p.input, p.code]), [['upscale_method', 'parameter_out_of_bounds']]);
  t.regex(problems[0]!.message, /parameter method offers "nearest"/);
});

test('job requirements: node classes and combo values; a server lacking either is named', (t) => {
  const w = { ...good(), '5': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'b.safetensors' } }, '6': { class_type: 'LoadImage', inputs: { image: 'mgs-run-x.png' } } };
  const needs = jobRequirements(w);
  t.deepEqual(needs.nodeTypes.sort(), ['CheckpointLoaderSimple', 'EmptyImage', 'ImageBlur', 'LoadImage', 'SaveImage']);
  t.deepEqual(unmetRequirements(INFO, needs), ['ckpt_name "b.safetensors" (node 5, CheckpointLoaderSimple)']);
  const { CheckpointLoaderSimple: _gone, ...smaller } = INFO;
  t.deepEqual(unmetRequirements(smaller, needs), ['node type CheckpointLoaderSimple']);
  t.deepEqual(unmetRequirements(INFO, jobRequirements(good())), []);
});

test('the model files a server offers are its loaders\' *_name combo lists', (t) => {
  const info: ObjectInfo = {
    ...INFO,
    LoraLoader: { input: { required: { model: ['MODEL'], lora_name: [['y.safetensors', 'x.safetensors']], strength_model: ['FLOAT', { min: -100, max: 100 }] } }, output: ['MODEL', 'CLIP'] },
  };
  t.deepEqual(modelFilesOf(info), { ckpt_name: ['a.safetensors'], lora_name: ['x.safetensors', 'y.safetensors'] });
});
