import test from 'ava';
import { modelFilesOf, type ObjectInfo } from '../../core/domain/object-info.ts';

test('models come from the combo choices of known loader inputs, both combo shapes, required and optional, merged and sorted', (t) => {
  const objectInfo = {
    CheckpointLoaderSimple: { input: { required: { ckpt_name: [['sdxl.safetensors', 'sd15.ckpt'], { tooltip: 'x' }] } } },
    LoraLoader: { input: { required: { model: ['MODEL'], lora_name: ['COMBO', { options: ['detail.safetensors'] }], strength_model: ['FLOAT', { default: 1 }] } } },
    ImageOnlyCheckpointLoader: { input: { required: { ckpt_name: [['svd.safetensors', 'sd15.ckpt']] } } },
    VAELoader: { input: { optional: { vae_name: [['ae.safetensors']] } } },
    KSampler: { input: { required: { sampler_name: [['euler', 'dpmpp_2m']], seed: ['INT', {}] } } },
    Broken: null,
    NoInputs: {},
  };
  t.deepEqual(modelFilesOf(objectInfo as unknown as ObjectInfo), {
    ckpt_name: ['sd15.ckpt', 'sdxl.safetensors', 'svd.safetensors'],
    lora_name: ['detail.safetensors'],
    vae_name: ['ae.safetensors'],
  });
  t.deepEqual(modelFilesOf({}), {});
});
