import test from 'ava';
import { guessLocation, type Workflow } from '../../web/src/pages/template-prefill.ts';

// Guards of the template editor's first guesses (web-client.mutations.ts): a guess never lands on a linked input, and
// the prompt is found behind a ConditioningCombine (its inputs are conditioning_1 and conditioning_2).
const graph: Workflow = {
  '3': {
    class_type: 'KSampler',
    inputs: { seed: 5, steps: 20, cfg: 8, sampler_name: 'euler', scheduler: 'normal', denoise: 1, model: ['4', 0], positive: ['11', 0], negative: ['6', 0], latent_image: ['5', 0] },
  },
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'v1-5.safetensors' } },
  '5': { class_type: 'EmptyLatentImage', inputs: { width: 512, height: 512, batch_size: 1 } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: 'blurry', clip: ['4', 1] } },
  '7': { class_type: 'CLIPTextEncode', inputs: { text: 'a lighthouse', clip: ['4', 1] } },
  '12': { class_type: 'CLIPTextEncode', inputs: { text: 'at dusk', clip: ['4', 1] } },
  '11': { class_type: 'ConditioningCombine', inputs: { conditioning_1: ['7', 0], conditioning_2: ['12', 0] } },
};

test('a preset is never guessed onto an input fed by a link', (t) => {
  t.is(guessLocation(graph, 'model'), null);
  t.is(guessLocation(graph, 'clip'), null);
  t.deepEqual(guessLocation(graph, 'cfg'), { node_id: '3', input_name: 'cfg' });
});

test('the prompt is followed through a ConditioningCombine to its first text', (t) => {
  t.deepEqual(guessLocation(graph, 'prompt'), { node_id: '7', input_name: 'text' });
  t.deepEqual(guessLocation(graph, 'negative_prompt'), { node_id: '6', input_name: 'text' });
});
