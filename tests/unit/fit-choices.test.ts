/** A job's choices among its template's enum parameters (ADR 050): what is kept at submit, and the map narrowed to them. Pinned by hand. */
import test from 'ava';
import { FIT_CHOICES_MAX, fitChoicesOf, narrowToChoices } from '../../core/domain/fit-choices.ts';
import type { ParameterMap } from '../../core/domain/parameter-map.ts';

const MAP = {
  vae: { key: 'vae', type: 'enum', node_id: '3', input_name: 'vae_name', options: ['v1.pt', 'v2.pt'] },
  ckpt: { key: 'ckpt', type: 'enum', node_id: '1', input_name: 'ckpt_name', options: ['sdxl.safetensors', 'flux.safetensors'], default: 'sdxl.safetensors' },
  steps: { key: 'steps', type: 'enum', node_id: '2', input_name: 'steps', options: [20, 30] },
  prompt: { key: 'prompt', type: 'string', node_id: '2', input_name: 'text' },
  seed: { key: 'seed', type: 'seed', node_id: '2', input_name: 'seed' },
} as ParameterMap;

test('fitChoicesOf: the enum parameters only, by name, as JSON', (t) => {
  t.is(fitChoicesOf(MAP, { prompt: 'a cat', seed: 7, vae: 'v2.pt', ckpt: 'flux.safetensors', steps: 30 }), '{"ckpt":"flux.safetensors","steps":30,"vae":"v2.pt"}');
  t.is(fitChoicesOf(MAP, { prompt: 'a cat', ckpt: 'sdxl.safetensors' }), '{"ckpt":"sdxl.safetensors"}', 'an enum left out of the used parameters is not a choice');
  t.is(fitChoicesOf(MAP, { prompt: 'a cat', seed: 7 }), '', 'no enum used: none');
  t.is(fitChoicesOf({ prompt: MAP.prompt! }, { prompt: 'a cat' }), '', 'a template without enum parameters');
  t.is(fitChoicesOf(MAP, { ckpt: { not: 'a value' } }), '', 'only strings and numbers are choices');
});

test('fitChoicesOf: choices longer than FIT_CHOICES_MAX are not kept (the column holds that much)', (t) => {
  const long = 'm'.repeat(FIT_CHOICES_MAX);
  const map = { ckpt: { ...MAP.ckpt!, options: [long] } } as ParameterMap;
  t.is(fitChoicesOf(map, { ckpt: long }), '');
  const fits = 'm'.repeat(FIT_CHOICES_MAX - '{"ckpt":""}'.length);
  t.is(fitChoicesOf(map, { ckpt: fits }).length, FIT_CHOICES_MAX, 'exactly FIT_CHOICES_MAX is kept');
});

test('narrowToChoices: each chosen enum offers only its choice; anything else is left as it is', (t) => {
  const narrowed = narrowToChoices(MAP, '{"ckpt":"flux.safetensors","steps":30,"prompt":"x","gone":"y"}');
  t.deepEqual(narrowed.ckpt, { ...MAP.ckpt!, options: ['flux.safetensors'], default: 'flux.safetensors' });
  t.deepEqual(narrowed.steps, { ...MAP.steps!, options: [30], default: 30 });
  t.deepEqual(narrowed.vae, MAP.vae, 'no choice made');
  t.deepEqual(narrowed.prompt, MAP.prompt, 'not an enum');
  t.false(Object.hasOwn(narrowed, 'gone'), 'a choice of a parameter the map does not have adds nothing');
  t.deepEqual(MAP.ckpt!.options, ['sdxl.safetensors', 'flux.safetensors'], 'the template map itself is left alone');
  t.deepEqual(narrowToChoices(MAP, '{"ckpt":"sd15.safetensors"}'), MAP, 'a value the map does not offer');
  t.deepEqual(narrowToChoices(MAP, '{"steps":"30"}'), MAP, 'the text 30 is not the number 30');
  t.is(narrowToChoices(MAP, ''), MAP);
  t.is(narrowToChoices(MAP, 'not json'), MAP);
  t.is(narrowToChoices(MAP, 'null'), MAP);
  t.deepEqual(narrowToChoices(MAP, '{"__proto__":{"type":"enum"},"constructor":"x"}'), MAP, 'no prototype keys');
});
