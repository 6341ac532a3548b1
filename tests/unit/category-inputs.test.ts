import test from 'ava';
import { requiredKeysFor } from '../../core/domain/category-inputs.ts';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';

// Which literal inputs can carry a category's prompt, image or duration: one node per case, beside an output node.
const graph = (classType: string, inputs: Record<string, unknown>): WorkflowGraph => ({
  '1': { class_type: classType, inputs },
  '9': { class_type: 'PreviewAny', inputs: { source: 'x' } },
});

test('a prompt rides on a string text or prompt input, or on a PrimitiveString value; nothing else', (t) => {
  const carriesPrompt = (classType: string, inputs: Record<string, unknown>) => requiredKeysFor('text-to-image', graph(classType, inputs)).includes('prompt');
  t.true(carriesPrompt('CLIPTextEncode', { text: 'a cat' }));
  t.true(carriesPrompt('SomeCustomNode', { prompt: 'a cat' }));
  t.true(carriesPrompt('PrimitiveString', { value: 'a cat' }));
  t.true(carriesPrompt('PrimitiveStringMultiline', { value: 'a cat' }));
  t.false(carriesPrompt('CLIPTextEncode', { text: 5 }), 'a number is no prompt');
  t.false(carriesPrompt('PrimitiveInt', { value: 'x' }), 'a value input of another primitive');
  t.false(carriesPrompt('SaveImage', { filename_prefix: 'out' }), 'a file-name prefix is not a prompt');
});

test('an image rides only on a LoadImage node\'s image input', (t) => {
  const carriesImage = (classType: string, inputs: Record<string, unknown>) => requiredKeysFor('upscale', graph(classType, inputs)).includes('image');
  t.true(carriesImage('LoadImage', { image: 'in.png' }));
  t.true(carriesImage('LoadImageMask', { image: 'in.png', channel: 'alpha' }));
  t.false(carriesImage('ImageInvert', { image: 'in.png' }), 'an image input of another node');
  t.false(carriesImage('LoadImage', { picture: 'in.png' }));
  t.false(carriesImage('LoadImage', { image: 3 }));
});

test("a duration rides on a numeric length, duration, seconds or frame count, or RepeatImageBatch's amount", (t) => {
  const carriesDuration = (classType: string, inputs: Record<string, unknown>) => requiredKeysFor('image-to-video', graph(classType, inputs)).includes('duration');
  for (const name of ['length', 'duration', 'seconds', 'frames', 'num_frames', 'video_frames']) t.true(carriesDuration('AnyVideoNode', { [name]: 24 }), name);
  t.true(carriesDuration('RepeatImageBatch', { amount: 4 }));
  t.false(carriesDuration('OtherBatch', { amount: 4 }), "another node's amount");
  t.false(carriesDuration('AnyVideoNode', { length: '24' }), 'a string length');
  t.false(carriesDuration('AnyVideoNode', { fps: 24 }));
});
