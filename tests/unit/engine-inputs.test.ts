import test from 'ava';
import { MemoryObjectStorage } from '../../adapters/memory/memory-object-storage.ts';
import type { GenerationJob } from '../../core/domain/job.ts';
import { EngineInputs } from '../../core/use-cases/generation/engine-inputs.service.ts';
import type { InputImage, InputImages } from '../../core/use-cases/generation/input-images.service.ts';

// The files a job hands its engine (its image parameters) and the workflow rewritten to name them.

const A = 'a1111111-1111-4111-8111-111111111111';
const B = 'b2222222-2222-4222-8222-222222222222';
const C = 'c3333333-3333-4333-8333-333333333333';

const setup = async () => {
  const storage = new MemoryObjectStorage();
  const images = new Map<string, InputImage>();
  const add = async (id: string, contentType: string, bytes: string) => {
    images.set(id, { id, storageKey: `uploads/u1/${id}`, mimeType: contentType, kind: 'upload' });
    await storage.put(`uploads/u1/${id}`, Buffer.from(bytes), { contentType });
  };
  const finder = { find: async (userId: string, id: string) => (userId === 'u1' ? (images.get(id) ?? null) : null) } as unknown as InputImages;
  return { storage, add, images, inputs: new EngineInputs({ images: finder, storage }) };
};

const job = (imageRefs: GenerationJob['imageRefs']): GenerationJob =>
  ({
    userId: 'u1',
    imageRefs,
    workflow: {
      '1': { class_type: 'LoadImage', inputs: { image: A } },
      '2': { class_type: 'ImageBlend', inputs: { image1: B, image2: C, blend_factor: 0.5 } },
    },
  }) as unknown as GenerationJob;

// Pins: each image parameter becomes a file named by its id with the extension of its stored type (png when unknown),
// written into a copy of the workflow; the job's own workflow is left as it was (a retry renders from it again).
test("each image becomes a file named by its id, in a copy of the workflow; the job's workflow is untouched", async (t) => {
  const { add, inputs } = await setup();
  await add(A, 'image/jpeg', 'jpeg bytes');
  await add(B, 'image/webp', 'webp bytes');
  await add(C, 'image/gif', 'gif bytes');
  const given = job([
    { key: 'photo', id: A, nodeId: '1', inputName: 'image' },
    { key: 'first', id: B, nodeId: '2', inputName: 'image1' },
    { key: 'second', id: C, nodeId: '2', inputName: 'image2' },
  ]);
  const before = structuredClone(given.workflow);
  const loaded = await inputs.load(given);
  t.deepEqual(loaded.files.map((f) => [f.name, f.mimeType, f.data.toString()]), [
    [`${A}.jpg`, 'image/jpeg', 'jpeg bytes'],
    [`${B}.webp`, 'image/webp', 'webp bytes'],
    [`${C}.png`, 'image/gif', 'gif bytes'],
  ]);
  t.deepEqual(loaded.workflow, {
    '1': { class_type: 'LoadImage', inputs: { image: `${A}.jpg` } },
    '2': { class_type: 'ImageBlend', inputs: { image1: `${B}.webp`, image2: `${C}.png`, blend_factor: 0.5 } },
  });
  t.deepEqual(given.workflow, before);
  t.deepEqual((await inputs.load(job([]))).files, []);
});

test('an image that is gone, or no longer stored, fails the load and names it', async (t) => {
  const { add, storage, inputs } = await setup();
  await t.throwsAsync(inputs.load(job([{ key: 'photo', id: A, nodeId: '1', inputName: 'image' }])), { message: `input image ${A} is gone` });
  await add(A, 'image/png', 'png');
  await storage.delete(`uploads/u1/${A}`);
  await t.throwsAsync(inputs.load(job([{ key: 'photo', id: A, nodeId: '1', inputName: 'image' }])), { message: `input image ${A} is no longer stored` });
});
