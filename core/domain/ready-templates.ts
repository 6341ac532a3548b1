import type { ParameterMappingItem } from './parameter-map.ts';
import type { Category } from './parameter-presets.ts';
import type { WorkflowGraph } from './workflow-graph.types.ts';
import type { OutputType } from './workflow-template.ts';

/**
 * Templates a fresh installation starts with, so that the product does something on a laptop without a GPU.
 * They use only ComfyUI's model-free core nodes (see comfyui-protocol.md), run on the builtin engine and on a
 * real ComfyUI alike, and say plainly what they do: none of them interprets the prompt. Every required input
 * of every node is set, because ComfyUI fills in no defaults.
 */
export interface ReadyTemplate {
  name: string;
  description: string;
  category: Category;
  outputType: OutputType;
  cost: number;
  workflow: WorkflowGraph;
  /** In the admin's input form (presets are expanded when the template is installed). */
  parameterMap: Record<string, Partial<ParameterMappingItem> & Pick<ParameterMappingItem, 'node_id' | 'input_name'>>;
}

const ECHO_PROMPT_DESCRIPTION =
  'Kept with the result as a text output. This model-free template does not interpret it: the picture does not depend on it.';

const colour = (nodeId: string): ReadyTemplate['parameterMap'][string] => ({
  type: 'integer',
  node_id: nodeId,
  input_name: 'color',
  label: 'Colour',
  description: 'The fill colour as one number, 0xRRGGBB written in decimal: 0 is black, 16777215 white, 16711680 red, 3368652 blue-grey.',
  min: 0,
  max: 0xffffff,
  default: 0x3366cc,
});

const promptEcho = (nodeId: string): ReadyTemplate['parameterMap'][string] => ({
  preset: 'prompt',
  node_id: nodeId,
  input_name: 'value',
  required: true,
  label: 'Prompt (kept as text only)',
  description: ECHO_PROMPT_DESCRIPTION,
});

const solidColourImage: ReadyTemplate = {
  name: 'Solid colour image',
  description:
    'Makes a PNG filled with one colour, at the size you choose (up to 4 at once). It uses no AI model, so it runs on any ' +
    'machine; your prompt is returned as text next to the image, not drawn.',
  category: 'text-to-image',
  outputType: 'image',
  cost: 1,
  workflow: {
    '1': { class_type: 'EmptyImage', inputs: { width: 512, height: 512, batch_size: 1, color: 0x3366cc }, _meta: { title: 'Canvas' } },
    '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'solid-colour' }, _meta: { title: 'Save image' } },
    '3': { class_type: 'PrimitiveString', inputs: { value: 'a calm blue-grey square' }, _meta: { title: 'Prompt' } },
    '4': { class_type: 'PreviewAny', inputs: { source: ['3', 0] }, _meta: { title: 'Prompt as text output' } },
  },
  parameterMap: {
    prompt: promptEcho('3'),
    width: { preset: 'width', node_id: '1', input_name: 'width', max: 2048 },
    height: { preset: 'height', node_id: '1', input_name: 'height', max: 2048 },
    batch_size: { preset: 'batch_size', node_id: '1', input_name: 'batch_size', max: 4, description: 'How many (identical) images one run makes.' },
    color: colour('1'),
  },
};

const solidColourVideo: ReadyTemplate = {
  name: 'Solid colour video',
  description:
    'Makes an MP4 (H.264, 512×288) of one still colour, as long as you choose. It runs at 1 frame per second with no AI ' +
    'model, so it works on any machine; your prompt is returned as text next to the video, not drawn.',
  category: 'text-to-video',
  outputType: 'video',
  cost: 3,
  workflow: {
    '1': { class_type: 'EmptyImage', inputs: { width: 512, height: 288, batch_size: 1, color: 0x3366cc }, _meta: { title: 'Frame' } },
    '2': { class_type: 'RepeatImageBatch', inputs: { image: ['1', 0], amount: 4 }, _meta: { title: 'One frame per second' } },
    '3': { class_type: 'CreateVideo', inputs: { images: ['2', 0], fps: 1 }, _meta: { title: 'Video at 1 fps' } },
    '4': {
      class_type: 'SaveVideo',
      inputs: { video: ['3', 0], filename_prefix: 'video/solid-colour', format: 'mp4', codec: 'h264' },
      _meta: { title: 'Save MP4' },
    },
    '5': { class_type: 'PrimitiveString', inputs: { value: 'a calm blue-grey screen' }, _meta: { title: 'Prompt' } },
    '6': { class_type: 'PreviewAny', inputs: { source: ['5', 0] }, _meta: { title: 'Prompt as text output' } },
  },
  parameterMap: {
    prompt: promptEcho('5'),
    // At 1 frame per second the number of frames is the length in seconds, so this is honestly a duration.
    duration: {
      preset: 'duration',
      node_id: '2',
      input_name: 'amount',
      min: 1,
      max: 60,
      default: 4,
      description: 'Length of the video in whole seconds (one frame per second; a fraction of a second is dropped).',
    },
    color: colour('1'),
  },
};

const UPSCALE_METHODS = ['nearest-exact', 'bilinear', 'area', 'bicubic', 'lanczos'];

const resizeImage: ReadyTemplate = {
  name: 'Resize image',
  description:
    'Scales your image by a factor with a classic resampling filter (Lanczos by default). No AI upscaling model is ' +
    'involved, so it adds no detail, and it runs on any machine.',
  category: 'upscale',
  outputType: 'image',
  cost: 2,
  workflow: {
    '1': { class_type: 'LoadImage', inputs: { image: 'example.png' }, _meta: { title: 'Your image' } },
    '2': { class_type: 'ImageScaleBy', inputs: { image: ['1', 0], upscale_method: 'lanczos', scale_by: 2 }, _meta: { title: 'Scale' } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'resized' }, _meta: { title: 'Save image' } },
  },
  parameterMap: {
    image: { preset: 'image', node_id: '1', input_name: 'image', required: true },
    scale_by: {
      type: 'number',
      node_id: '2',
      input_name: 'scale_by',
      label: 'Scale factor',
      description: 'Multiplies width and height: 2 doubles them, 0.5 halves them.',
      min: 0.25,
      max: 4,
      default: 2,
    },
    upscale_method: {
      type: 'enum',
      node_id: '2',
      input_name: 'upscale_method',
      label: 'Resampling method',
      description: 'How new pixels are computed: lanczos is sharpest, nearest-exact keeps hard pixel edges.',
      options: UPSCALE_METHODS,
      default: 'lanczos',
    },
  },
};

export const READY_TEMPLATES: readonly ReadyTemplate[] = Object.freeze([solidColourImage, solidColourVideo, resizeImage]);
