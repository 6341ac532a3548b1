/**
 * Publishing a template against the engine fleet (core/use-cases/templates/publish-template.use-case.ts): which servers
 * it is checked against and what blocks it. Pinned: a template is published when at least one server whose catalogue
 * is known can run its workflow AND its parameter map (every value the map lets users choose); the published template
 * comes back with the problems of the servers that cannot run it.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import type { ObjectInfo } from '../../core/domain/object-info.ts';
import type { NodeCatalog, ServerCatalogue } from '../../core/ports/node-catalog.port.ts';
import { CreateTemplate } from '../../core/use-cases/templates/create-template.use-case.ts';
import { PublishTemplate } from '../../core/use-cases/templates/publish-template.use-case.ts';
import { SetParameterMap } from '../../core/use-cases/templates/set-parameter-map.use-case.ts';

/** A server's /object_info with EmptyImage (width up to `maxWidth`), SaveImage and a checkpoint loader offering `models`. */
const serverInfo = (models: string[], maxWidth = 16384): ObjectInfo => ({
  EmptyImage: { input: { required: { width: ['INT', { default: 512, min: 1, max: maxWidth, step: 1 }], height: ['INT', { default: 512, min: 1, max: 16384, step: 1 }], batch_size: ['INT', { default: 1, min: 1, max: 4096 }], color: ['INT', { default: 0, min: 0, max: 16777215, step: 1 }] } }, output: ['IMAGE'] },
  SaveImage: { input: { required: { images: ['IMAGE'], filename_prefix: ['STRING', { default: 'ComfyUI' }] } }, output: [] },
  CheckpointLoaderSimple: { input: { required: { ckpt_name: [models] } }, output: ['MODEL', 'CLIP', 'VAE'] },
});

class Fleet implements NodeCatalog {
  constructor(public fleet: ServerCatalogue[]) {}
  async catalogues(): Promise<ServerCatalogue[]> {
    return this.fleet;
  }
}

const graph = (ckpt: string) => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 64, batch_size: 1, color: 0 } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'test' } },
  '5': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: ckpt } },
});
const prompt = { prompt: { key: 'prompt', type: 'string', node_id: '2', input_name: 'filename_prefix' } };

/** The template use cases on a memory store, checked against `fleet`; a draft of graph(ckpt) with `parameterMap`. */
async function draft(t: import('ava').ExecutionContext, fleet: Fleet, ckpt: string, parameterMap: Record<string, unknown>) {
  const uow = new MemoryUnitOfWork(new MemoryStore());
  const write = { uow, clock: { now: () => new Date() }, ids: { newId: () => randomUUID() }, rules: {}, nodes: fleet };
  const actorId = randomUUID();
  const created = await new CreateTemplate({ templates: uow.autocommit.templates, ...write }).execute({ actorId, fields: { name: 'Fleet', category: 'text-to-image', workflow: graph(ckpt), cost: 1, outputType: 'image' } });
  if (!created.ok) throw new Error(JSON.stringify(created));
  const mapped = await new SetParameterMap(write).execute({ actorId, id: created.value.id, parameterMap });
  t.true(mapped.ok, JSON.stringify(mapped));
  const publish = new PublishTemplate(write);
  return { id: created.value.id, templates: uow.autocommit.templates, publish: () => publish.execute({ actorId, id: created.value.id, publish: true }) };
}

test('a published template comes back with the problems of the servers that cannot run it', async (t) => {
  const fleet = new Fleet([
    { server: 1, objectInfo: serverInfo(['a.safetensors']) },
    { server: 2, objectInfo: serverInfo(['b.safetensors']) },
  ]);
  const { publish } = await draft(t, fleet, 'a.safetensors', prompt);
  const published = await publish();
  if (!published.ok) return t.fail(JSON.stringify(published));
  t.truthy(published.value.publishedAt);
  t.deepEqual(published.value.problems, [
    { server: 2, nodeId: '5', classType: 'CheckpointLoaderSimple', input: 'ckpt_name', code: 'value_not_in_list', message: '"a.safetensors" is not one of "b.safetensors"' },
  ]);
});

test('a parameter map that allows values no server takes any more blocks publishing, though the workflow itself fits', async (t) => {
  const fleet = new Fleet([{ server: 1, objectInfo: serverInfo(['a.safetensors']) }]);
  const width = { key: 'width', type: 'integer', node_id: '1', input_name: 'width', min: 1, max: 2048 };
  const { id, templates, publish } = await draft(t, fleet, 'a.safetensors', { ...prompt, width });
  // The server comes back taking widths up to 1024 only: the workflow's 64 still fits, users' 2048 would not.
  fleet.fleet = [{ server: 1, objectInfo: serverInfo(['a.safetensors'], 1024) }];
  const refused = await publish();
  t.false(refused.ok);
  if (!refused.ok) {
    t.is(refused.code, 'VALIDATION.FAILED');
    t.is(refused.message, 'No engine server can run this workflow');
    t.regex(JSON.stringify(refused.details), /width allows values above the node's maximum 1024/);
  }
  t.is((await templates.findById(id))?.publishedAt, null, 'still a draft');
});

test('servers whose catalogue cannot be read are left out: the readable ones decide', async (t) => {
  const fleet = new Fleet([
    { server: 1, objectInfo: serverInfo(['a.safetensors']) },
    { server: 2, objectInfo: serverInfo(['a.safetensors']) },
  ]);
  const { publish } = await draft(t, fleet, 'a.safetensors', prompt);
  fleet.fleet = [
    { server: 1, objectInfo: null },
    { server: 2, objectInfo: serverInfo(['b.safetensors']) },
  ];
  const refused = await publish();
  t.false(refused.ok, 'the one readable server cannot run it');
  fleet.fleet = [
    { server: 1, objectInfo: null },
    { server: 2, objectInfo: null },
  ];
  const unchecked = await publish();
  t.true(unchecked.ok, 'none readable: published unchecked (the engine still refuses a prompt it cannot run)');
});
