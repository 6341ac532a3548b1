/**
 * Queue position and ETA on a fleet whose servers do not all run every template (ADR 037, amended): a job counts only
 * the queued jobs that compete for one of its servers, and shares those servers' slots. The schedule is pinned by hand.
 */
import test from 'ava';
import type { ObjectInfo } from '../../core/domain/object-info.ts';
import type { WorkflowTemplate } from '../../core/domain/workflow-template.ts';
import type { NodeCatalog, ServerCatalogue } from '../../core/ports/node-catalog.port.ts';
import { QueueEstimates } from '../../core/use-cases/generation/queue-estimates.service.ts';
import type { RunEstimates } from '../../core/use-cases/generation/run-estimates.service.ts';
import { compete, SERVER_FIT_TTL_MS, ServerFit } from '../../core/use-cases/generation/server-fit.service.ts';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

const loader = (checkpoints: string[]): ObjectInfo => ({
  CheckpointLoaderSimple: { input: { required: { ckpt_name: [checkpoints] } }, output: ['MODEL'] },
  SaveImage: { input: { required: { filename_prefix: ['STRING', {}] } }, output: [] },
});
const loads = (checkpoint: string) => ({ '1': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: checkpoint } } });
const saves = { '1': { class_type: 'SaveImage', inputs: { filename_prefix: 'out' } } };

/** Server 1 has sdxl, server 2 has flux; both can save an image. */
const FLEET: ServerCatalogue[] = [
  { server: 1, objectInfo: loader(['sdxl.safetensors']) },
  { server: 2, objectInfo: loader(['flux.safetensors']) },
];
const TEMPLATES: Record<string, unknown> = { X: loads('sdxl.safetensors'), Y: loads('flux.safetensors'), Z: saves, NONE: loads('sd15.safetensors') };

class Catalog implements NodeCatalog {
  reads = 0;
  private listener: (() => void) | null = null;
  constructor(public fleet: ServerCatalogue[] | null) {}
  async catalogues() {
    this.reads += 1;
    return this.fleet;
  }
  onCatalogueChange(listener: () => void) {
    this.listener = listener;
    return () => undefined;
  }
  change(fleet: ServerCatalogue[] | null) {
    this.fleet = fleet;
    this.listener?.();
  }
}

const templates = {
  findById: async (id: string) => (Object.hasOwn(TEMPLATES, id) ? ({ id, workflow: TEMPLATES[id], parameterMap: {} } as unknown as WorkflowTemplate) : null),
};
const clockAt = (ms: { now: number }) => ({ now: () => new Date(ms.now) });
const fitOn = (catalog: Catalog, time = { now: at(0).getTime() }) => new ServerFit({ nodes: () => catalog, templates, clock: clockAt(time) });

/** Run estimates by template (ms): X 10 s, Y 4 s, Z 6 s, a raw workflow (no template) 2 s. */
const RUN_MS: Record<string, number> = { X: 10_000, Y: 4_000, Z: 6_000 };
const estimates = { runMs: async (templateId: string | null) => (templateId === null ? 2_000 : RUN_MS[templateId]!) } as unknown as RunEstimates;

/** Arrival order; one user each, so both queue orders agree. */
const QUEUE = [
  { id: 'x1', templateId: 'X' },
  { id: 'y1', templateId: 'Y' },
  { id: 'x2', templateId: 'X' },
  { id: 'z1', templateId: 'Z' },
  { id: 'y2', templateId: 'Y' },
  { id: 'r1', templateId: null },
].map((job, i) => ({ ...job, userId: `u${i}`, createdAt: at(i + 1), queueTurn: 1, status: 'queued' as const, startedAt: null }));

/** The jobs ahead of one, grouped by template, as the repository answers. */
const queuedAhead = async (job: { id: string }) => {
  const counts = new Map<string | null, number>();
  for (const ahead of QUEUE.slice(0, QUEUE.findIndex((one) => one.id === job.id))) counts.set(ahead.templateId, (counts.get(ahead.templateId) ?? 0) + 1);
  return [...counts].map(([templateId, count]) => ({ templateId, count }));
};

/**
 * By hand, one slot per server (two in all): x1 0 ahead, 10 s; y1 (flux: server 2 only) 0 ahead, 4 s; x2 behind x1
 * (10 + 10); z1 runs anywhere: behind all three, (10 + 4 + 10) / 2 + 6 = 18; y2 behind y1 and z1, 4 + 6 + 4 = 14;
 * r1 (a raw workflow: servers unknown) behind all five, 34 / 2 + 2 = 19.
 */
const EXPECTED = { x1: [0, 10], y1: [0, 4], x2: [1, 20], z1: [3, 18], y2: [2, 14], r1: [5, 19] };
/** Without telling servers apart: everything ahead counts, over both slots. */
const WITHOUT = { x1: [0, 10], y1: [1, 9], x2: [2, 17], z1: [3, 18], y2: [4, 19], r1: [5, 19] };

const estimatesOn = (fit: ServerFit | undefined) =>
  new QueueEstimates({ jobs: { queuedAhead }, estimates, clock: { now: () => at(0) }, slots: 2, order: 'arrival', ...(fit ? { fit: { servers: fit, slotsPerServer: 1 } } : {}) });

test('compete: jobs share a server, or one of them may run anywhere', (t) => {
  t.true(compete([1], [1, 2]));
  t.false(compete([1], [2]));
  t.true(compete(null, [2]));
  t.true(compete([1], null));
});

test('ServerFit: the servers whose catalogue runs the template; unknown (null) for raw workflows, missing templates and templates nobody can run', async (t) => {
  const fit = fitOn(new Catalog(FLEET));
  t.deepEqual(await fit.of('X'), [1]);
  t.deepEqual(await fit.of('Y'), [2]);
  t.deepEqual(await fit.of('Z'), [1, 2]);
  t.is(await fit.of('NONE'), null);
  t.is(await fit.of('gone'), null);
  t.is(await fit.of(null), null);
  t.is(await fitOn(new Catalog(null)).of('X'), null, 'no catalogue readable');
  t.is(await fitOn(new Catalog([FLEET[0]!, { server: 2, objectInfo: null }])).of('X'), null, 'a server that never answered may be able to');
});

test('ServerFit: kept for its time to live, read again after it and at once when a catalogue changes', async (t) => {
  const catalog = new Catalog(FLEET);
  const time = { now: at(0).getTime() };
  const fit = fitOn(catalog, time);
  t.deepEqual(await fit.of('X'), [1]);
  catalog.fleet = [FLEET[0]!, { server: 2, objectInfo: loader(['flux.safetensors', 'sdxl.safetensors']) }];
  time.now += SERVER_FIT_TTL_MS - 1;
  t.deepEqual(await fit.of('X'), [1], 'still kept');
  t.is(catalog.reads, 1);
  time.now += 1;
  t.deepEqual(await fit.of('X'), [1, 2], 'expired: read again');
  t.is(catalog.reads, 2);
  catalog.change([{ server: 1, objectInfo: loader(['flux.safetensors']) }, { server: 2, objectInfo: loader(['sdxl.safetensors']) }]);
  t.deepEqual(await fit.of('X'), [2], 'a catalogue change is seen at once');
});

test('QueueEstimates.of counts only the jobs that compete for its servers, over those servers\' slots', async (t) => {
  const queue = estimatesOn(fitOn(new Catalog(FLEET)));
  const got: Record<string, number[]> = {};
  for (const job of QUEUE) {
    const { position, etaSeconds } = await queue.of(job);
    got[job.id] = [position!, etaSeconds!];
  }
  t.deepEqual(got, EXPECTED);
});

test('QueueEstimates.ofQueue gives the same numbers for the whole queue', async (t) => {
  const queue = estimatesOn(fitOn(new Catalog(FLEET)));
  const got = Object.fromEntries((await queue.ofQueue([...QUEUE].reverse())).map((one) => [one.jobId, [one.position, one.etaSeconds]]));
  t.deepEqual(got, EXPECTED);
});

test('without server fit (one server, the builtin engine) every job ahead counts, over every slot', async (t) => {
  const queue = estimatesOn(undefined);
  const one: Record<string, number[]> = {};
  for (const job of QUEUE) {
    const { position, etaSeconds } = await queue.of(job);
    one[job.id] = [position!, etaSeconds!];
  }
  t.deepEqual(one, WITHOUT);
  t.deepEqual(Object.fromEntries((await queue.ofQueue(QUEUE)).map((x) => [x.jobId, [x.position, x.etaSeconds]])), WITHOUT);
});

test("QueueEstimates asks each template's run estimate on the servers it can run on (once per template and call)", async (t) => {
  const asked: [string | null, readonly number[] | null][] = [];
  const onServers = {
    runMs: async (templateId: string | null, servers: readonly number[] | null) => {
      asked.push([templateId, servers]);
      return templateId === null ? 2_000 : RUN_MS[templateId]!;
    },
  } as unknown as RunEstimates;
  const queue = new QueueEstimates({ jobs: { queuedAhead }, estimates: onServers, clock: { now: () => at(0) }, slots: 2, order: 'arrival', fit: { servers: fitOn(new Catalog(FLEET)), slotsPerServer: 1 } });
  await queue.ofQueue(QUEUE);
  t.deepEqual(asked, [['X', [1]], ['Y', [2]], ['Z', [1, 2]], [null, null]]);
  asked.length = 0;
  await queue.of({ ...QUEUE[1]!, status: 'running', startedAt: at(0) });
  t.deepEqual(asked, [['Y', [2]]], 'a running job: its template on its servers');
  asked.length = 0;
  await queue.of({ ...QUEUE[3]!, status: 'running', startedAt: at(0), engineServer: 2 });
  t.deepEqual(asked, [['Z', [2]]], 'a running job handed to a server: on that server');
});
