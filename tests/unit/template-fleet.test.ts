import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { BuiltinEngine } from '../../adapters/builtin-engine/builtin-engine.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import type { ObjectInfo } from '../../core/domain/object-info.ts';
import type { Logger } from '../../core/ports/logger.port.ts';
import type { NodeCatalog, ServerCatalogue } from '../../core/ports/node-catalog.port.ts';
import { CreateTemplate } from '../../core/use-cases/templates/create-template.use-case.ts';
import { GetTemplate } from '../../core/use-cases/templates/get-template.use-case.ts';
import { PatchTemplate } from '../../core/use-cases/templates/patch-template.use-case.ts';
import { PublishTemplate } from '../../core/use-cases/templates/publish-template.use-case.ts';
import { RecheckTemplates } from '../../core/use-cases/templates/recheck-templates.use-case.ts';
import { SetParameterMap } from '../../core/use-cases/templates/set-parameter-map.use-case.ts';

// Two servers' /object_info, in the stand-in's shape: server 1 has model a.safetensors, server 2 has b.safetensors.
const base: ObjectInfo = {
  EmptyImage: { input: { required: { width: ['INT', { default: 512, min: 1, max: 16384, step: 1 }], height: ['INT', { default: 512, min: 1, max: 16384, step: 1 }], batch_size: ['INT', { default: 1, min: 1, max: 4096 }], color: ['INT', { default: 0, min: 0, max: 16777215, step: 1 }] } }, output: ['IMAGE'] },
  SaveImage: { input: { required: { images: ['IMAGE'], filename_prefix: ['STRING', { default: 'ComfyUI' }] } }, output: [] },
};
const withModel = (file: string): ObjectInfo => ({ ...base, CheckpointLoaderSimple: { input: { required: { ckpt_name: [[file]] } }, output: ['MODEL', 'CLIP', 'VAE'] } });

/** An in-memory node catalogue whose fleet a test changes at will. */
class FleetCatalogue implements NodeCatalog {
  constructor(public fleet: ServerCatalogue[]) {}
  async catalogues(): Promise<ServerCatalogue[]> {
    return this.fleet;
  }
}

const setup = (nodes: NodeCatalog) => {
  const uow = new MemoryUnitOfWork(new MemoryStore());
  const templates = uow.autocommit.templates;
  const clock = { now: () => new Date() };
  const ids = { newId: () => randomUUID() };
  const write = { uow, clock, ids, rules: {}, nodes };
  const actorId = randomUUID();
  const create = new CreateTemplate({ templates, ...write });
  const setMap = new SetParameterMap(write);
  const patch = new PatchTemplate(write);
  const publish = new PublishTemplate(write);
  return {
    templates,
    create: { execute: (fields: unknown) => create.execute({ actorId, fields }) },
    setMap: { execute: (input: { id: string; parameterMap: unknown }) => setMap.execute({ actorId, ...input }) },
    patch: { execute: (input: { id: string; changes: unknown }) => patch.execute({ actorId, ...input }) },
    publish: { execute: (id: string) => publish.execute({ actorId, id, publish: true }) },
    get: new GetTemplate({ templates, nodes }),
  };
};

const graph = (ckpt: string, width = 64) => ({
  '1': { class_type: 'EmptyImage', inputs: { width, height: 64, batch_size: 1, color: 0 } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'test' } },
  '5': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: ckpt } },
});
// text-to-image requires a prompt parameter; any STRING input will do here.
const prompt = { prompt: { key: 'prompt', type: 'string', node_id: '2', input_name: 'filename_prefix' } };
const step1 = (workflow: unknown, name = 'Fleet') => ({ name, category: 'text-to-image', workflow, cost: 1, outputType: 'image' });

const twoServers = () => new FleetCatalogue([{ server: 1, objectInfo: withModel('a.safetensors') }, { server: 2, objectInfo: withModel('b.safetensors') }]);

test('a template one server can run is accepted; what the other lacks comes back as its problems', async (t) => {
  const app = setup(twoServers());
  const created = await app.create.execute(step1(graph('a.safetensors')));
  if (!created.ok) return t.fail(JSON.stringify(created));
  t.deepEqual(created.value.problems, [
    { server: 2, nodeId: '5', classType: 'CheckpointLoaderSimple', input: 'ckpt_name', code: 'value_not_in_list', message: '"a.safetensors" is not one of "b.safetensors"' },
  ]);
});

test('a model no server has is refused naming the node and input; a problem only some servers have says which', async (t) => {
  const app = setup(twoServers());
  const refused = await app.create.execute(step1(graph('c.safetensors')));
  t.false(refused.ok);
  if (refused.ok) return;
  t.is(refused.code, 'VALIDATION.FAILED');
  t.deepEqual(refused.details, [
    { field: 'workflow.5.inputs.ckpt_name', message: 'CheckpointLoaderSimple #5 ckpt_name: "c.safetensors" is not one of "a.safetensors" (value_not_in_list) on server 1' },
    { field: 'workflow.5.inputs.ckpt_name', message: 'CheckpointLoaderSimple #5 ckpt_name: "c.safetensors" is not one of "b.safetensors" (value_not_in_list) on server 2' },
  ]);
  const bounds = await app.create.execute(step1({ ...graph('a.safetensors', 0) }));
  t.false(bounds.ok);
  if (!bounds.ok) {
    t.deepEqual(bounds.details, [
      { field: 'workflow.1.inputs.width', message: 'EmptyImage #1 width: 0 is smaller than the minimum 1 (value_smaller_than_min)' },
      { field: 'workflow.5.inputs.ckpt_name', message: 'CheckpointLoaderSimple #5 ckpt_name: "a.safetensors" is not one of "b.safetensors" (value_not_in_list) on server 2' },
    ]);
  }
});

test("patch and parameter map are checked against the fleet; a rename of a template the fleet lost still works", async (t) => {
  const fleet = twoServers();
  const app = setup(fleet);
  const created = await app.create.execute(step1(graph('a.safetensors')));
  if (!created.ok) return t.fail();
  const id = created.value.id;
  const patched = await app.patch.execute({ id, changes: { workflow: graph('c.safetensors') } });
  t.false(patched.ok);
  if (!patched.ok) t.is(patched.details?.[0]?.field, 'workflow.5.inputs.ckpt_name');
  const tooWide = await app.setMap.execute({ id, parameterMap: { ...prompt, width: { key: 'width', type: 'integer', node_id: '1', input_name: 'width', min: 1, max: 20000 } } });
  t.false(tooWide.ok);
  if (!tooWide.ok) t.regex(tooWide.details?.[0]?.message ?? '', /parameter width allows values above the node's maximum 16384/);
  const fits = await app.setMap.execute({ id, parameterMap: { ...prompt, width: { key: 'width', type: 'integer', node_id: '1', input_name: 'width', min: 1, max: 2048 } } });
  t.true(fits.ok, JSON.stringify(fits));
  // The fleet changes: server 1 comes back without model a.
  fleet.fleet = [{ server: 1, objectInfo: withModel('b.safetensors') }, { server: 2, objectInfo: withModel('b.safetensors') }];
  const view = await app.get.execute({ id });
  if (!view.ok) return t.fail();
  t.deepEqual(view.value.problems?.map((p) => [p.server, p.nodeId, p.input, p.code]), [
    [1, '5', 'ckpt_name', 'value_not_in_list'],
    [2, '5', 'ckpt_name', 'value_not_in_list'],
  ]);
  t.true((await app.patch.execute({ id, changes: { name: 'Renamed' } })).ok);
});

// Pins the fleet check at publishing: a draft saved while a server could run it is not offered to users once none can.
test('a draft no engine server can run any more is refused at publishing, naming the problem, and stays a draft', async (t) => {
  const fleet = twoServers();
  const app = setup(fleet);
  const created = await app.create.execute(step1(graph('a.safetensors')));
  if (!created.ok) return t.fail(JSON.stringify(created));
  const id = created.value.id;
  t.true((await app.setMap.execute({ id, parameterMap: prompt })).ok);
  fleet.fleet = [{ server: 1, objectInfo: withModel('b.safetensors') }, { server: 2, objectInfo: withModel('b.safetensors') }];
  const refused = await app.publish.execute(id);
  t.false(refused.ok);
  if (!refused.ok) {
    t.is(refused.code, 'VALIDATION.FAILED');
    t.deepEqual(refused.details?.map((p) => p.field), ['workflow.5.inputs.ckpt_name']);
  }
  t.is((await app.templates.findById(id))?.publishedAt, null);
  fleet.fleet = [{ server: 1, objectInfo: withModel('b.safetensors') }, { server: 2, objectInfo: withModel('a.safetensors') }];
  const published = await app.publish.execute(id);
  t.true(published.ok, JSON.stringify(published));
  t.not((await app.templates.findById(id))?.publishedAt, null);
});

test('after a fleet change, active templates no server can run any more are logged, none deactivated', async (t) => {
  const fleet = twoServers();
  const app = setup(fleet);
  const a = await app.create.execute(step1(graph('a.safetensors'), 'A'));
  const b = await app.create.execute(step1(graph('b.safetensors'), 'B'));
  const off = await app.create.execute({ ...step1(graph('a.safetensors'), 'Off'), isActive: false });
  if (!a.ok || !b.ok || !off.ok) return t.fail();
  const warnings: [string, Record<string, unknown> | undefined][] = [];
  const logger: Logger = { debug() {}, info() {}, error() {}, warn: (m, f) => void warnings.push([m, f]), child: () => logger };
  fleet.fleet = [{ server: 1, objectInfo: withModel('b.safetensors') }, { server: 2, objectInfo: withModel('b.safetensors') }];
  const result = await new RecheckTemplates({ templates: app.templates, nodes: fleet, logger }).execute();
  if (!result.ok) return t.fail();
  t.deepEqual(result.value.map((r) => [r.name, r.runnable]), [['A', false]]);
  t.deepEqual(warnings.map(([m, f]) => [m, f?.['name'], f?.['servers']]), [['template cannot run on any engine server', 'A', [1, 2]]]);
  t.true((await app.templates.findById(a.value.id))?.isActive);
});

test('ENGINE_DRIVER=builtin: an SD 1.5 graph is refused at save naming KSampler and the other nodes it lacks', async (t) => {
  const workDir = mkdtempSync(path.join(tmpdir(), 'catalog-'));
  t.teardown(() => rmSync(workDir, { recursive: true, force: true }));
  const app = setup(new BuiltinEngine({ workDir }));
  const sd15 = {
    '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'v1-5-pruned-emaonly.safetensors' } },
    '5': { class_type: 'EmptyLatentImage', inputs: { width: 512, height: 512, batch_size: 1 } },
    '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a cat', clip: ['4', 1] } },
    '7': { class_type: 'CLIPTextEncode', inputs: { text: '', clip: ['4', 1] } },
    '3': { class_type: 'KSampler', inputs: { seed: 1, steps: 20, cfg: 8, sampler_name: 'euler', scheduler: 'normal', denoise: 1, model: ['4', 0], positive: ['6', 0], negative: ['7', 0], latent_image: ['5', 0] } },
    '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
    '9': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'ComfyUI' } },
  };
  const refused = await app.create.execute(step1(sd15));
  t.false(refused.ok);
  if (refused.ok) return;
  t.deepEqual(refused.details?.map((d) => d.field), ['workflow.3.class_type', 'workflow.4.class_type', 'workflow.5.class_type', 'workflow.6.class_type', 'workflow.7.class_type', 'workflow.8.class_type']);
  t.true(refused.details?.some((d) => d.message === 'KSampler #3: node type KSampler does not exist (node_missing)'));
});

// Pins: a server whose catalogue could not be read is left out of the judgement (not judged as having no nodes); with
// no readable catalogue at all a workflow is accepted unchecked (the engine still refuses it when it runs); a template
// shows `problems` only when a fleet is known.
test('unreadable catalogues are left out; with none readable a workflow is accepted; problems only with a known fleet', async (t) => {
  const workflow = { '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } }, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } } };
  const { fleetProblems, judgeOnFleet, withProblems } = await import('../../core/use-cases/templates/fleet-check.service.ts');
  t.deepEqual(fleetProblems([{ server: 1, objectInfo: null }, { server: 2, objectInfo: base }], workflow), { problems: [], runnable: true, servers: 1 });
  t.deepEqual(judgeOnFleet([{ server: 1, objectInfo: null }], { '1': { class_type: 'Nowhere', inputs: {} } }), { ok: true, problems: [] });
  t.deepEqual(judgeOnFleet(null, { '1': { class_type: 'Nowhere', inputs: {} } }), { ok: true, problems: [] });
  const template = { id: 't', workflow, parameterMap: {} } as unknown as Parameters<typeof withProblems>[1];
  t.false('problems' in withProblems(null, template));
  t.deepEqual(withProblems([{ server: 1, objectInfo: base }], template).problems, []);
});
