import type { ParameterType } from './parameter-map.ts';

export const CATEGORIES = ['text-to-image', 'image-to-image', 'text-to-video', 'image-to-video', 'upscale'] as const;

export type Category = (typeof CATEGORIES)[number];

export const isCategory = (value: unknown): value is Category =>
  typeof value === 'string' && (CATEGORIES as readonly string[]).includes(value);

/** A template of a category must map these keys, or its users could not steer what the category promises. */
export const REQUIRED_BY_CATEGORY: Readonly<Record<Category, readonly string[]>> = Object.freeze({
  'text-to-image': Object.freeze(['prompt']),
  'image-to-image': Object.freeze(['prompt', 'image']),
  'text-to-video': Object.freeze(['prompt', 'duration']),
  'image-to-video': Object.freeze(['image', 'duration']),
  upscale: Object.freeze(['image']),
});

export interface ParameterPreset {
  key: string;
  type: ParameterType;
  label: string;
  description: string;
  default?: string | number | boolean;
  min?: number;
  max?: number;
  options?: (string | number)[];
  categories: Category[];
  requiredFor: Category[];
}

/** comfy/samplers.py SAMPLER_NAMES (ComfyUI 0.3.6x). */
export const COMFY_SAMPLER_NAMES: readonly string[] = Object.freeze([
  'euler', 'euler_cfg_pp', 'euler_ancestral', 'euler_ancestral_cfg_pp', 'heun', 'heunpp2', 'dpm_2', 'dpm_2_ancestral',
  'lms', 'dpm_fast', 'dpm_adaptive', 'dpmpp_2s_ancestral', 'dpmpp_2s_ancestral_cfg_pp', 'dpmpp_sde', 'dpmpp_sde_gpu',
  'dpmpp_2m', 'dpmpp_2m_cfg_pp', 'dpmpp_2m_sde', 'dpmpp_2m_sde_gpu', 'dpmpp_3m_sde', 'dpmpp_3m_sde_gpu', 'ddpm', 'lcm',
  'ipndm', 'ipndm_v', 'deis', 'res_multistep', 'res_multistep_cfg_pp', 'res_multistep_ancestral',
  'res_multistep_ancestral_cfg_pp', 'gradient_estimation', 'gradient_estimation_cfg_pp', 'er_sde', 'seeds_2', 'seeds_3',
  'sa_solver', 'sa_solver_pece', 'ddim', 'uni_pc', 'uni_pc_bh2',
]);

/** comfy/samplers.py SCHEDULER_NAMES (ComfyUI 0.3.6x). */
export const COMFY_SCHEDULER_NAMES: readonly string[] = Object.freeze([
  'simple', 'sgm_uniform', 'karras', 'exponential', 'ddim_uniform', 'beta', 'normal', 'linear_quadratic', 'kl_optimal',
]);

const ALL: Category[] = [...CATEGORIES];
const IMAGE_OUT: Category[] = ['text-to-image', 'image-to-image', 'upscale'];
const GENERATIVE: Category[] = ['text-to-image', 'image-to-image', 'text-to-video', 'image-to-video'];
const VIDEO: Category[] = ['text-to-video', 'image-to-video'];

const presets: ParameterPreset[] = [
  {
    key: 'prompt', type: 'string', label: 'Prompt',
    description: 'What the result should show.',
    categories: GENERATIVE, requiredFor: ['text-to-image', 'image-to-image', 'text-to-video'],
  },
  {
    key: 'negative_prompt', type: 'string', label: 'Negative prompt',
    description: 'What the result should avoid.', default: '',
    categories: GENERATIVE, requiredFor: [],
  },
  {
    key: 'seed', type: 'seed', label: 'Seed',
    description: 'Same seed and settings give the same result; -1 picks a random seed.', default: -1,
    categories: ALL, requiredFor: [],
  },
  {
    key: 'steps', type: 'integer', label: 'Steps',
    description: 'Sampling steps: more is slower and usually finer.', default: 20, min: 1, max: 10000,
    categories: GENERATIVE, requiredFor: [],
  },
  {
    key: 'cfg', type: 'number', label: 'CFG scale',
    description: 'How closely the result follows the prompt.', default: 8, min: 0, max: 100,
    categories: GENERATIVE, requiredFor: [],
  },
  {
    key: 'width', type: 'integer', label: 'Width',
    description: 'Width of the result in pixels.', default: 512, min: 64, max: 16384,
    categories: ALL, requiredFor: [],
  },
  {
    key: 'height', type: 'integer', label: 'Height',
    description: 'Height of the result in pixels.', default: 512, min: 64, max: 16384,
    categories: ALL, requiredFor: [],
  },
  {
    key: 'batch_size', type: 'integer', label: 'Batch size',
    description: 'How many results one run makes.', default: 1, min: 1, max: 4096,
    categories: IMAGE_OUT, requiredFor: [],
  },
  {
    key: 'denoise', type: 'number', label: 'Denoise',
    description: 'How much of the input is repainted: 1 ignores it, 0 keeps it.', default: 1, min: 0, max: 1,
    categories: ['text-to-image', 'image-to-image', 'image-to-video', 'upscale'], requiredFor: [],
  },
  {
    key: 'sampler_name', type: 'enum', label: 'Sampler',
    description: 'The sampling algorithm.', default: 'euler', options: [...COMFY_SAMPLER_NAMES],
    categories: GENERATIVE, requiredFor: [],
  },
  {
    key: 'scheduler', type: 'enum', label: 'Scheduler',
    description: 'How noise is spread over the steps.', default: 'normal', options: [...COMFY_SCHEDULER_NAMES],
    categories: GENERATIVE, requiredFor: [],
  },
  {
    key: 'image', type: 'image', label: 'Input image',
    description: 'An uploaded image or one of your earlier outputs.',
    categories: ['image-to-image', 'image-to-video', 'upscale'], requiredFor: ['image-to-image', 'image-to-video', 'upscale'],
  },
  {
    key: 'duration', type: 'number', label: 'Duration',
    description: 'Length of the video in seconds.', default: 4, min: 0.5, max: 120,
    categories: VIDEO, requiredFor: ['text-to-video', 'image-to-video'],
  },
  {
    key: 'fps', type: 'number', label: 'Frames per second',
    description: 'Frame rate of the video.', default: 24, min: 1, max: 120,
    categories: VIDEO, requiredFor: [],
  },
];

const deepFreeze = <T>(value: T): T => {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
};

/** Frozen: presets are shared by every request, so no caller may change them for the others. */
export const PARAMETER_PRESETS: readonly ParameterPreset[] = deepFreeze(presets);

const byKey = new Map(PARAMETER_PRESETS.map((preset) => [preset.key, preset]));

export const findPreset = (key: string): ParameterPreset | undefined => byKey.get(key);

export const presetsForCategory = (category?: Category): ParameterPreset[] =>
  category === undefined ? [...PARAMETER_PRESETS] : PARAMETER_PRESETS.filter((preset) => preset.categories.includes(category));
