/**
 * Queue position and ETA on a fleet whose servers do not all run every template (ADR 037, amended): a job counts only
 * the queued jobs that compete for one of its servers, and shares those servers' slots. The schedule is pinned by hand.
 */
import test from 'ava';
import type { ObjectInfo } from '../../core/domain/object-info.ts';
import type { WorkflowTemplate } from '../../core/domain/workflow-template.ts';
import type { NodeCatalog, ServerCatalogue } from '../../core/ports/node-catalog.port.ts';
import { QueueEstimates, startAfter } from '../../core/use-cases/generation/queue-estimates.service.ts';
import type { RunEstimates } from '../../core/use-cases/generation/run-estimates.service.ts';
import { compete, FIT_KEPT_MAX, SERVER_FIT_TTL_MS, ServerFit } from '../../core/use-cases/generation/server-fit.service.ts';

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
const TEMPLATES: Record<string, unknown> = { X: loads('sdxl.safetensors'), Y: loads('flux.safetensors'), Z: saves, NONE: loads('sd15.safetensors'), E: loads('sdxl.safetensors') };
/** E lets its users choose the checkpoint: sdxl (server 1 only) or flux (server 2 only). */
const MAPS: Record<string, unknown> = { E: { ckpt: { key: 'ckpt', type: 'enum', node_id: '1', input_name: 'ckpt_name', options: ['sdxl.safetensors', 'flux.safetensors'], default: 'sdxl.safetensors' } } };

class Catalog implements NodeCatalog {
  reads = 0;
  subscriptions = 0;
  private listener: (() => void) | null = null;
  constructor(public fleet: ServerCatalogue[] | null) {}
  async catalogues() {
    this.reads += 1;
    return this.fleet;
  }
  onCatalogueChange(listener: () => void) {
    this.subscriptions += 1;
    this.listener = listener;
    return () => undefined;
  }
  change(fleet: ServerCatalogue[] | null) {
    this.fleet = fleet;
    this.listener?.();
  }
}

const templates = {
  findById: async (id: string) => (Object.hasOwn(TEMPLATES, id) ? ({ id, workflow: TEMPLATES[id], parameterMap: MAPS[id] ?? {} } as unknown as WorkflowTemplate) : null),
};
const clockAt = (ms: { now: number }) => ({ now: () => new Date(ms.now) });
const fitOn = (catalog: Catalog, time = { now: at(0).getTime() }) => new ServerFit({ nodes: () => catalog, templates, clock: clockAt(time) });

/** Run estimates by template (ms): X 10 s, Y 4 s, Z 6 s, a raw workflow (no template) 2 s. */
const RUN_MS: Record<string, number> = { X: 10_000, Y: 4_000, Z: 6_000 };
const estimates = { runs: async (templateId: string | null) => [templateId === null ? 2_000 : RUN_MS[templateId]!] } as unknown as RunEstimates;

/** Arrival order; one user each, so both queue orders agree. */
const QUEUE = [
  { id: 'x1', templateId: 'X' },
  { id: 'y1', templateId: 'Y' },
  { id: 'x2', templateId: 'X' },
  { id: 'z1', templateId: 'Z' },
  { id: 'y2', templateId: 'Y' },
  { id: 'r1', templateId: null },
].map((job, i) => ({ ...job, userId: `u${i}`, createdAt: at(i + 1), queueTurn: 1, fitChoices: '', status: 'queued' as const, startedAt: null }));

type Queued = (typeof QUEUE)[number];

/** The jobs ahead of each of `jobs` in `queue`, grouped by template and choices, as the repository answers. */
const aheadIn = (queue: readonly Queued[]) => async (jobs: readonly { id: string }[]) =>
  jobs.map((job) => {
    const groups = new Map<string, { templateId: string | null; fitChoices: string; count: number }>();
    for (const ahead of queue.slice(0, queue.findIndex((one) => one.id === job.id))) {
      const key = JSON.stringify([ahead.templateId, ahead.fitChoices]);
      const group = groups.get(key) ?? { templateId: ahead.templateId, fitChoices: ahead.fitChoices, count: 0 };
      group.count += 1;
      groups.set(key, group);
    }
    return [...groups.values()];
  });
const queuedAhead = aheadIn(QUEUE);

/**
 * By hand, one slot per server (two in all): x1 0 ahead, 10 s; y1 (flux: server 2 only) 0 ahead, 4 s; x2 behind x1
 * (10 + 10); z1 runs anywhere: behind all three, (10 + 4 + 10) / 2 + 6 = 18; y2 behind y1 and z1, 4 + 6 + 4 = 14;
 * r1 (a raw workflow: servers unknown) behind all five, 34 / 2 + 2 = 19.
 */
const EXPECTED = { x1: [0, 10], y1: [0, 4], x2: [1, 20], z1: [3, 18], y2: [2, 14], r1: [5, 19] };
/** Without telling servers apart: everything ahead counts, over both slots. */
const WITHOUT = { x1: [0, 10], y1: [1, 9], x2: [2, 17], z1: [3, 18], y2: [4, 19], r1: [5, 19] };

const estimatesOn = (fit: ServerFit | undefined, queue: readonly Queued[] = QUEUE) =>
  new QueueEstimates({ jobs: { queuedAhead: aheadIn(queue) }, estimates, clock: { now: () => at(0) }, slots: 2, order: 'arrival', ...(fit ? { fit: { servers: fit, slotsPerServer: 1 } } : {}) });

/** [position, etaSeconds] of each job of QUEUE, asked one by one (`of`). */
async function eachOf(queue: QueueEstimates): Promise<Record<string, number[]>> {
  const got: Record<string, number[]> = {};
  for (const job of QUEUE) {
    const { position, etaSeconds } = await queue.of(job);
    got[job.id] = [position!, etaSeconds!];
  }
  return got;
}

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
  // Pins: the catalogue is taken, and its changes listened to, once: not once more at every read.
  t.is(catalog.subscriptions, 1);
});

test('QueueEstimates.of counts only the jobs that compete for its servers, over those servers\' slots', async (t) => {
  const queue = estimatesOn(fitOn(new Catalog(FLEET)));
  const got = await eachOf(queue);
  t.deepEqual(got, EXPECTED);
});

test('QueueEstimates.ofQueue gives the same numbers for the whole queue', async (t) => {
  const queue = estimatesOn(fitOn(new Catalog(FLEET)));
  const got = Object.fromEntries((await queue.ofQueue([...QUEUE].reverse())).map((one) => [one.jobId, [one.position, one.etaSeconds]]));
  t.deepEqual(got, EXPECTED);
});

/**
 * A raw workflow first (servers unknown: it competes with every job), then x1 (server 1) and y1 (server 2). By hand, one
 * slot per server: r0 0 ahead, over both slots, 2 s; x1 behind r0 on server 1, 2 + 10 = 12; y1 behind r0 only (x1 is
 * server 1's), 2 + 4 = 6. Whole-queue estimates group the jobs placed by their servers: x1 is not in r0's group.
 */
test('a raw workflow ahead competes with every job; the jobs behind it still count only those on their servers', async (t) => {
  const queue = [
    { id: 'r0', templateId: null },
    { id: 'x1', templateId: 'X' },
    { id: 'y1', templateId: 'Y' },
  ].map((job, i) => ({ ...job, userId: `u${i}`, createdAt: at(i + 1), queueTurn: 1, fitChoices: '', status: 'queued' as const, startedAt: null }));
  const estimated = estimatesOn(fitOn(new Catalog(FLEET)), queue);
  const expected = { r0: [0, 2], x1: [1, 12], y1: [1, 6] };
  t.deepEqual(Object.fromEntries((await estimated.ofQueue(queue)).map((x) => [x.jobId, [x.position, x.etaSeconds]])), expected);
  const one: Record<string, (number | null)[]> = {};
  for (const job of queue) {
    const { position, etaSeconds } = await estimated.of(job);
    one[job.id] = [position, etaSeconds];
  }
  t.deepEqual(one, expected);
});

test('without server fit (one server, the builtin engine) every job ahead counts, over every slot', async (t) => {
  const queue = estimatesOn(undefined);
  const one = await eachOf(queue);
  t.deepEqual(one, WITHOUT);
  t.deepEqual(Object.fromEntries((await queue.ofQueue(QUEUE)).map((x) => [x.jobId, [x.position, x.etaSeconds]])), WITHOUT);
});

test("QueueEstimates asks each template's run estimate on the servers it can run on (once per template and call)", async (t) => {
  const asked: [string | null, readonly number[] | null][] = [];
  const onServers = {
    runs: async (templateId: string | null, servers: readonly number[] | null) => {
      asked.push([templateId, servers]);
      return [templateId === null ? 2_000 : RUN_MS[templateId]!];
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

test('startAfter: the work ahead poured over the slots as the running jobs free them (pinned by hand)', (t) => {
  t.is(startAfter([], 2, 10_000), 5_000, 'nothing running: the work ahead over the slots');
  t.is(startAfter([6_000], 1, 0), 6_000, 'the one slot frees in 6 s');
  t.is(startAfter([6_000], 1, 5_000), 11_000);
  t.is(startAfter([6_000], 2, 0), 0, 'a free slot, nothing ahead: at once');
  t.is(startAfter([6_000], 2, 5_000), 5_000, 'the free slot takes the 5 s ahead');
  t.is(startAfter([6_000], 2, 8_000), 7_000, '6 s on the free slot, then 2 s over both');
  t.is(startAfter([3_000, 1_000], 2, 1_000), 2_000);
  t.is(startAfter([2_000, 6_000, 9_000], 2, 0), 8_500, 'a third running job waits with the queue: 9 s poured from 2 s and 6 s');
});

/** r1 runs template Y on server 2, started 1 s before now (4 s estimate: 3 s left). */
const RUNNING = [{ templateId: 'Y', fitChoices: '', engineServer: 2 as number | null, startedAt: at(-1), retryAt: null as Date | null }];
const runningWork = async () => RUNNING;

/**
 * By hand, with r1 on server 2's one slot: x1 10 s and x2 20 s as before (server 1); y1 waits r1's 3 s: 3 + 4 = 7;
 * z1 (either server, two slots busy 0 and 3 s): the 24 s ahead fill server 1 to 3 s, the rest (21 s) over both:
 * 3 + 10.5 = 13.5, + 6 = 19.5, so 20; y2 (server 2 only): 3 + y1 4 + z1 6 = 13, + 4 = 17; r (any server, the two
 * slots): 3 + (34 - 3) / 2 = 18.5, + 2 = 20.5, so 21.
 */
const EXPECTED_BUSY = { x1: [0, 10], y1: [0, 7], x2: [1, 20], z1: [3, 20], y2: [2, 17], r1: [5, 21] };

test('QueueEstimates: a job waits for the running jobs that hold its servers, as well as the queue ahead', async (t) => {
  const jobs = { queuedAhead, runningWork } as unknown as ConstructorParameters<typeof QueueEstimates>[0]['jobs'];
  const queue = new QueueEstimates({ jobs, estimates, clock: { now: () => at(0) }, slots: 2, order: 'arrival', fit: { servers: fitOn(new Catalog(FLEET)), slotsPerServer: 1 } });
  const got = await eachOf(queue);
  t.deepEqual(got, EXPECTED_BUSY);
  t.deepEqual(Object.fromEntries((await queue.ofQueue(QUEUE)).map((x) => [x.jobId, [x.position, x.etaSeconds]])), EXPECTED_BUSY);
  // The server not known (an engine that names none): it holds the slots of the jobs whose templates compete with Y's.
  RUNNING[0]!.engineServer = null;
  t.deepEqual((await queue.of(QUEUE[0]!)).etaSeconds, 10, 'x1: Y runs only on server 2');
  t.deepEqual((await queue.of(QUEUE[1]!)).etaSeconds, 7);
  RUNNING[0]!.engineServer = 2;
});

test('QueueEstimates without server fit: every running job holds one of the slots', async (t) => {
  const jobs = { queuedAhead, runningWork } as unknown as ConstructorParameters<typeof QueueEstimates>[0]['jobs'];
  const queue = new QueueEstimates({ jobs, estimates, clock: { now: () => at(0) }, slots: 1, order: 'arrival' });
  // One slot, busy 3 s more: x1 3 + 10 = 13; y1 3 + 10 + 4 = 17.
  t.is((await queue.of(QUEUE[0]!)).etaSeconds, 13);
  t.is((await queue.of(QUEUE[1]!)).etaSeconds, 17);
});

test('QueueEstimates: a running job waiting out a retry delay holds no slot; its next run is ahead of the queued jobs that would start after it is due', async (t) => {
  // One slot. r1 (Y, 4 s) runs, 3 s left; w (X, 10 s) failed an attempt started 20 s ago and runs again in 5 s.
  const waiting = { id: 'w', status: 'running' as const, templateId: 'X', fitChoices: '', createdAt: at(-30), startedAt: at(-20), queueTurn: 1, engineServer: null, retryAt: at(5) };
  const running = async () => [...RUNNING, { templateId: 'X', engineServer: null, startedAt: at(-20), retryAt: at(5) }];
  const jobs = { queuedAhead, runningWork: running } as unknown as ConstructorParameters<typeof QueueEstimates>[0]['jobs'];
  const queue = new QueueEstimates({ jobs, estimates, clock: { now: () => at(0) }, slots: 1, order: 'arrival' });
  // w itself: the 5 s wait, then its whole 10 s again (not 10 - 20 s run = 0).
  t.deepEqual(await queue.of(waiting), { position: null, etaSeconds: 15 });
  // The schedule: r1 ends at 3 s; x1 takes the slot then (w is not due until 5 s) and ends at 13; w runs 13 to 23; y1 23
  // to 27. x1 starts before w is due, so w's run is not ahead of it: 3 + 10 = 13. y1 would start at 13, after w is due:
  // w's 10 s are ahead of it, 3 + 10 + 10 = 23, + 4 = 27.
  t.is((await queue.of(QUEUE[0]!)).etaSeconds, 13);
  t.is((await queue.of(QUEUE[1]!)).etaSeconds, 27);
  t.deepEqual((await queue.ofQueue(QUEUE.slice(0, 2))).map((x) => x.etaSeconds), [13, 27]);
  // Due at once (an overdue retry): ahead of every queued job. x1 3 + 10 + 10 = 23.
  const overdue = async () => [...RUNNING, { templateId: 'X', engineServer: null, startedAt: at(-20), retryAt: at(-1) }];
  const late = new QueueEstimates({ jobs: { queuedAhead, runningWork: overdue } as unknown as ConstructorParameters<typeof QueueEstimates>[0]['jobs'], estimates, clock: { now: () => at(0) }, slots: 1, order: 'arrival' });
  t.is((await late.of(QUEUE[0]!)).etaSeconds, 23);
  // The retry is overdue (a worker has not taken it yet): its whole run is still ahead, not 10 s less the 26 s since
  // the failed attempt started.
  const due = new QueueEstimates({ jobs, estimates, clock: { now: () => at(6) }, slots: 1, order: 'arrival' });
  t.deepEqual(await due.of(waiting), { position: null, etaSeconds: 10 });
  // Its next attempt started (the retry time cleared): a running job like any other.
  t.deepEqual(await due.of({ ...waiting, startedAt: at(5), retryAt: null }), { position: null, etaSeconds: 9 });
});

test('QueueEstimates: many running jobs of one template on one server read its estimate once, at the same time', async (t) => {
  const asked: string[] = [];
  const counting = { runs: async (templateId: string | null, servers: readonly number[] | null) => (asked.push(`${templateId} ${servers}`), [templateId === null ? 2_000 : RUN_MS[templateId]!]) } as unknown as RunEstimates;
  const three = async () => [1, 2, 3].map(() => ({ templateId: 'Z', engineServer: 2, startedAt: at(-1), retryAt: null }));
  const jobs = { queuedAhead, runningWork: three } as unknown as ConstructorParameters<typeof QueueEstimates>[0]['jobs'];
  const queue = new QueueEstimates({ jobs, estimates: counting, clock: { now: () => at(0) }, slots: 2, order: 'arrival', fit: { servers: fitOn(new Catalog(FLEET)), slotsPerServer: 1 } });
  await queue.of(QUEUE[1]!);
  t.deepEqual(asked.sort(), ['Y 2', 'Z 2']);
});

const SDXL = JSON.stringify({ ckpt: 'sdxl.safetensors' });
const FLUX = JSON.stringify({ ckpt: 'flux.safetensors' });

test('ServerFit: a job is placed by the model it chose, not by every model its template offers', async (t) => {
  const fit = fitOn(new Catalog(FLEET));
  t.is(await fit.of('E'), null, 'the template as a whole: no server has both checkpoints');
  t.deepEqual(await fit.of('E', SDXL), [1]);
  t.deepEqual(await fit.of('E', FLUX), [2]);
  t.is(await fit.of('E', JSON.stringify({ ckpt: 'sd15.safetensors' })), null, 'a choice the template does not offer (it changed since): the template decides');
  t.is(await fit.of('E', 'not json'), null, 'unreadable choices: the template decides');
  t.deepEqual(await fit.of('X', SDXL), [1], 'choices of a parameter the template does not have change nothing');
  // Server 2 has both checkpoints: the template as a whole runs there, and so does a job whose choice it no longer offers.
  const both = fitOn(new Catalog([FLEET[0]!, { server: 2, objectInfo: loader(['sdxl.safetensors', 'flux.safetensors']) }]));
  t.deepEqual(await both.of('E'), [2]);
  t.deepEqual(await both.of('E', SDXL), [1, 2]);
  t.deepEqual(await both.of('E', JSON.stringify({ ckpt: 'sd15.safetensors' })), [2], 'not offered: placed as the template');
});

test('ServerFit: at most FIT_KEPT_MAX templates-and-choices are kept; past that, all are read again', async (t) => {
  const catalog = new Catalog(FLEET);
  const fit = fitOn(catalog);
  for (let i = 0; i < FIT_KEPT_MAX; i++) await fit.of('Z', JSON.stringify({ seed: i }));
  const reads = catalog.reads;
  await fit.of('Z', JSON.stringify({ seed: 0 }));
  t.is(catalog.reads, reads, 'still kept');
  await fit.of('Z', 'one more');
  await fit.of('Z', JSON.stringify({ seed: 0 }));
  t.is(catalog.reads, reads + 2, 'the one more made room by forgetting the rest');
});

/**
 * E jobs in arrival order, 5 s each (E's estimate), one slot per server. By hand: e1 (sdxl, server 1) 0 ahead, 5 s; e2
 * (flux, server 2) 0 ahead, 5 s; e3 (sdxl) behind e1, 10 s; e4 (flux) behind e2, 10 s. Placed by the template alone (no
 * server has both: competing everywhere, over both slots) it would be e2 1 ahead, 2.5 + 5 = 8; e3 2, 10; e4 3, 13.
 */
const CHOSEN = [
  { id: 'e1', fitChoices: SDXL },
  { id: 'e2', fitChoices: FLUX },
  { id: 'e3', fitChoices: SDXL },
  { id: 'e4', fitChoices: FLUX },
].map((job, i) => ({ ...job, templateId: 'E' as string | null, userId: `u${i}`, createdAt: at(i + 1), queueTurn: 1, status: 'queued' as const, startedAt: null }));
const BY_CHOICE = { e1: [0, 5], e2: [0, 5], e3: [1, 10], e4: [1, 10] };

test('QueueEstimates: jobs of one template that chose models on different servers do not wait for each other', async (t) => {
  const fiveSeconds = { runs: async () => [5_000] } as unknown as RunEstimates;
  const queue = new QueueEstimates({ jobs: { queuedAhead: aheadIn(CHOSEN) }, estimates: fiveSeconds, clock: { now: () => at(0) }, slots: 2, order: 'arrival', fit: { servers: fitOn(new Catalog(FLEET)), slotsPerServer: 1 } });
  const each: Record<string, number[]> = {};
  for (const job of CHOSEN) {
    const { position, etaSeconds } = await queue.of(job);
    each[job.id] = [position!, etaSeconds!];
  }
  t.deepEqual(each, BY_CHOICE);
  t.deepEqual(Object.fromEntries((await queue.ofQueue(CHOSEN)).map((x) => [x.jobId, [x.position, x.etaSeconds]])), BY_CHOICE);
  // A running flux job holds server 2 for 5 s more: e2 waits for it, e1 does not.
  const running = async () => [{ templateId: 'E', fitChoices: FLUX, engineServer: null, startedAt: at(0), retryAt: null }];
  const busy = new QueueEstimates({ jobs: { queuedAhead: aheadIn(CHOSEN), runningWork: running }, estimates: fiveSeconds, clock: { now: () => at(0) }, slots: 2, order: 'arrival', fit: { servers: fitOn(new Catalog(FLEET)), slotsPerServer: 1 } });
  t.is((await busy.of(CHOSEN[0]!)).etaSeconds, 5);
  t.is((await busy.of(CHOSEN[1]!)).etaSeconds, 10);
});
