import test from 'ava';
import { guessLocation, hasNegativeText, type Workflow } from '../../web/src/pages/template-prefill.ts';

// The standard SD 1.5 graph as ComfyUI exports it: node ids do not say which text is positive.
const sd: Workflow = {
  '3': {
    class_type: 'KSampler',
    inputs: { seed: 5, steps: 20, cfg: 8, sampler_name: 'euler', scheduler: 'normal', denoise: 1, model: ['4', 0], positive: ['7', 0], negative: ['6', 0], latent_image: ['5', 0] },
  },
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'v1-5.safetensors' } },
  '5': { class_type: 'EmptyLatentImage', inputs: { width: 512, height: 512, batch_size: 1 } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: 'blurry, text', clip: ['4', 1] } },
  '7': { class_type: 'CLIPTextEncode', inputs: { text: 'a lighthouse at dusk', clip: ['4', 1] } },
  '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
  '9': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'ComfyUI' } },
};

test('prompt and negative prompt follow the sampler links to their CLIPTextEncode text', (t) => {
  t.deepEqual(guessLocation(sd, 'prompt'), { node_id: '7', input_name: 'text' });
  t.deepEqual(guessLocation(sd, 'negative_prompt'), { node_id: '6', input_name: 'text' });
  t.true(hasNegativeText(sd));
});

test('through a conditioning node in between; other presets by an unlinked input of their name', (t) => {
  const combined: Workflow = {
    ...sd,
    '10': { class_type: 'ConditioningSetArea', inputs: { conditioning: ['7', 0], width: 64, height: 64, x: 0, y: 0, strength: 1 } },
    '3': { ...sd['3']!, inputs: { ...sd['3']!.inputs, positive: ['10', 0] } },
  };
  t.deepEqual(guessLocation(combined, 'prompt'), { node_id: '7', input_name: 'text' });
  t.deepEqual(guessLocation(sd, 'steps'), { node_id: '3', input_name: 'steps' });
  t.deepEqual(guessLocation(sd, 'width'), { node_id: '5', input_name: 'width' });
  t.is(guessLocation(sd, 'image'), null);
});

test('a graph without a sampler offers no negative prompt and guesses no prompt node', (t) => {
  const plain: Workflow = {
    '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 64, batch_size: 1, color: 0 } },
    '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } },
  };
  t.false(hasNegativeText(plain));
  t.is(guessLocation(plain, 'prompt'), null);
});
