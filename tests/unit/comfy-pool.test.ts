import test from 'ava';
import type { ComfyClient } from '../../adapters/comfyui/comfy-client.ts';
import { ComfyPool, type ComfyLease, type ComfyPoolOptions } from '../../adapters/comfyui/comfy-pool.ts';

// The worker's pool of ComfyUI servers, on fake clients: slots per server, the shortest queue first, servers taken out
// and probed again with backoff, jobs refused when no server has what they need, and what operators see of each.

const CATALOGUE = {
  EmptyImage: { input: { required: { width: ['INT', { min: 1 }] } }, output: ['IMAGE'] },
  SaveImage: { input: { required: { images: ['IMAGE'] } }, output: [] },
};
const workflow = { '1': { class_type: 'EmptyImage', inputs: { width: 8 } }, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0] } } };

/** One fake server: its /system_stats, /object_info and /queue, each of which can be made to fail. */
const server = (name: string, over: { queued?: number; catalogue?: object; devices?: object[]; version?: string } = {}) => {
  const state = { up: true, queueFails: false, probes: 0, queued: over.queued ?? 0, queueReads: 0 };
  const client = {
    name,
    label: name,
    systemStats: async () => {
      state.probes += 1;
      if (!state.up) throw new Error(`connect ECONNREFUSED ${name}`);
      return { devices: over.devices ?? [], system: over.version ? { comfyui_version: over.version } : {} };
    },
    objectInfo: async () => over.catalogue ?? CATALOGUE,
    queue: async () => {
      state.queueReads += 1;
      if (state.queueFails) throw new Error(`${name} queue failed`);
      return { running: Array.from({ length: state.queued }, () => []), pending: [] };
    },
  } as unknown as ComfyClient;
  return { client, state };
};

const pool = (clients: ComfyClient[], options: Partial<ComfyPoolOptions> = {}) => {
  let now = 1_000_000;
  const made = new ComfyPool(clients, { jobsPerServer: 1, unavailableWaitMs: 200, pollMs: 10, now: () => now, ...options });
  return { pool: made, advance: (ms: number) => (now += ms) };
};

const isLease = (value: unknown): value is ComfyLease => typeof value === 'object' && value !== null && 'release' in value;

/** What `promise` gives within `ms`, or 'still waiting': a wait that never ends fails its test instead of hanging it. */
const within = <T>(ms: number, promise: Promise<T>): Promise<T | 'still waiting'> =>
  Promise.race([promise, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), ms).unref())]);

test('a pool needs at least one server', (t) => {
  t.throws(() => new ComfyPool([], { jobsPerServer: 1, unavailableWaitMs: 1 }), { message: 'a ComfyUI pool needs at least one server' });
});

// Pins: a job goes to the free server whose ComfyUI queue is shortest (it counts every worker's prompts); a server
// whose queue cannot be read is taken out, not chosen.
test('the shortest queue first; a server whose queue fails is taken out', async (t) => {
  const busy = server('one', { queued: 3 });
  const quiet = server('two', { queued: 1 });
  const { pool: p } = pool([busy.client, quiet.client]);
  const first = await p.acquire(undefined, workflow, 'u1');
  t.true(isLease(first));
  t.is((first as ComfyLease).client, quiet.client);
  const broken = server('three');
  const other = server('four', { queued: 5 });
  broken.state.queueFails = true;
  const { pool: q } = pool([broken.client, other.client]);
  const lease = await q.acquire(undefined, workflow, 'u1');
  t.is((lease as ComfyLease).client, other.client);
  t.deepEqual(q.report().map((s) => [s.server, s.healthy]), [[1, false], [2, true]]);
  t.regex(q.report()[0]!.error!, /^server 1 queue failed$/, 'the error names the server by position, not by its address');
});

// Pins: a server runs at most jobsPerServer jobs of this process; a waiting job gets the slot when it frees; a lease
// released twice frees one slot, not two.
test('slots per server: a second job waits for the release; a double release frees one slot', async (t) => {
  const only = server('one');
  const { pool: p } = pool([only.client], { jobsPerServer: 1 });
  const first = (await p.acquire(undefined, workflow, 'u1')) as ComfyLease;
  let second: unknown = null;
  const waiting = p.acquire(undefined, workflow, 'u2').then((lease) => (second = lease));
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.is(second, null, 'no free slot yet');
  first.release();
  first.release();
  t.true(isLease(await waiting));
  t.is(p.report()[0]!.inFlight, 1, 'one job holds the one slot');
  let third: unknown = null;
  const controller = new AbortController();
  const late = p.acquire(controller.signal, workflow, 'u3').then((lease) => (third = lease));
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.is(third, null, 'the double release did not make a second slot');
  controller.abort();
  t.is(await late, null, 'an aborted wait gives up');
});

test('no healthy server: a job waits unavailableWaitMs, then gets null; check() throws', async (t) => {
  const down = server('one');
  down.state.up = false;
  const { pool: p, advance } = pool([down.client], { unavailableWaitMs: 1000 });
  const waiting = p.acquire(undefined, workflow, 'u1');
  await new Promise((resolve) => setTimeout(resolve, 30));
  advance(1000);
  t.is(await waiting, null);
  await t.throwsAsync(p.check(), { message: 'no ComfyUI server is reachable (1 configured)' });
  t.deepEqual(p.reachableClients(), []);
});

test('a job no server can run is refused at once, naming what each server lacks', async (t) => {
  const a = server('one');
  const b = server('two', { catalogue: { EmptyImage: CATALOGUE.EmptyImage } });
  const { pool: p } = pool([a.client, b.client]);
  await p.catalogues();
  const needsMore = { ...workflow, '3': { class_type: 'Upscale', inputs: {} } };
  // Bounded, and aborted after: a pool that missed the refusal would wait for a server forever.
  const gaveUp = new AbortController();
  t.teardown(() => gaveUp.abort());
  t.deepEqual(await within(2000, p.acquire(gaveUp.signal, needsMore, 'u1')), {
    incapable: 'No ComfyUI server can run this workflow: server 1 lacks node type Upscale; server 2 lacks node type SaveImage, node type Upscale',
  });
  const lease = await p.acquire(undefined, workflow, 'u1');
  t.is((lease as ComfyLease).client, a.client, 'a job only server 1 can run goes there');
});

// Pins: a failed server is probed again after base·2^(failures−1), capped at maxBackoffMs, not before; once it answers it
// is back in rotation.
test('a failed server is probed again with a growing, capped backoff', async (t) => {
  const flaky = server('one');
  const { pool: p, advance } = pool([flaky.client], { baseBackoffMs: 100, maxBackoffMs: 250, unavailableWaitMs: 60_000 });
  await p.check();
  p.markFailed(flaky.client, new Error('boom'));
  flaky.state.up = false;
  const controller = new AbortController();
  t.teardown(() => controller.abort());
  const waiting = p.acquire(controller.signal, workflow, 'u1');
  const settle = () => new Promise((resolve) => setTimeout(resolve, 40));
  // Failures 1, 2, 3, 4: pauses of 100, 200, then 400 and 800 capped at 250.
  for (const pause of [100, 200, 250, 250]) {
    const before = flaky.state.probes;
    advance(pause - 1);
    await settle();
    t.is(flaky.state.probes, before, `not probed at ${pause - 1} ms`);
    advance(1);
    await settle();
    t.is(flaky.state.probes, before + 1, `probed once at ${pause} ms`);
  }
  flaky.state.up = true;
  advance(250);
  t.true(isLease(await waiting), 'back in rotation once it answers');
});

test('what operators see: version, devices in MiB and VRAM in bytes', async (t) => {
  const gib = 1024 ** 3;
  const gpu = server('one', { version: '0.3.64', devices: [{ name: 'cuda:0', vram_total: 8 * gib, vram_free: 6 * gib }, { name: 'cuda:1', vram_total: 4 * gib, vram_free: gib }] });
  const bare = server('two');
  const { pool: p } = pool([gpu.client, bare.client]);
  t.deepEqual(await p.check(), [
    { server: 1, healthy: true, inFlight: 0, version: '0.3.64', devices: [{ name: 'cuda:0', vramTotalMiB: 8192, vramFreeMiB: 6144 }, { name: 'cuda:1', vramTotalMiB: 4096, vramFreeMiB: 1024 }] },
    { server: 2, healthy: true, inFlight: 0 },
  ]);
  t.deepEqual(await p.states(), [
    { server: '1', healthy: true, runningJobs: 0, vram: { totalBytes: 12 * gib, freeBytes: 7 * gib } },
    { server: '2', healthy: true, runningJobs: 0 },
  ]);
});

test('closing the pool ends every wait', async (t) => {
  const only = server('one');
  const { pool: p } = pool([only.client]);
  await p.acquire(undefined, workflow, 'u1');
  const waiting = p.acquire(undefined, workflow, 'u2');
  await new Promise((resolve) => setTimeout(resolve, 30));
  p.close();
  t.is(await Promise.race([waiting, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 1000))]), null);
});

// Pins: a job handed a slot returns with it at once, whether the slot was free when it asked (the pass it ran itself) or
// freed while it waited; neither waits for the next poll (a minute here).
test('a slot handed to a job is taken at once, not at the next poll', async (t) => {
  const only = server('one');
  const { pool: p } = pool([only.client], { pollMs: 60_000 });
  const first = await within(1000, p.acquire(undefined, workflow, 'u1'));
  t.true(isLease(first), 'a free slot is taken by the pass the job ran');
  const second = p.acquire(undefined, workflow, 'u2');
  await new Promise((resolve) => setTimeout(resolve, 30));
  (first as ComfyLease).release();
  t.true(isLease(await within(1000, second)), 'a slot freed during the wait is taken when it is handed over');
  p.close();
});

// Pins: while no server can take jobs, a job gives up after unavailableWaitMs (on the real clock here).
test('no healthy server: the wait ends after unavailableWaitMs', async (t) => {
  const down = server('one');
  down.state.up = false;
  const { pool: p } = pool([down.client], { unavailableWaitMs: 100, now: Date.now });
  t.is(await within(2000, p.acquire(undefined, workflow, 'u1')), null);
});

// Pins: one dispatch pass at a time. Jobs that ask at once share passes (a call during a pass makes it run once more),
// so eight jobs on two servers read each server's queue a few times, not once per job.
test('jobs that ask at once share dispatch passes: queue reads do not grow with the jobs', async (t) => {
  const a = server('one');
  const b = server('two');
  const { pool: p } = pool([a.client, b.client], { jobsPerServer: 4 });
  const leases = await within(2000, Promise.all(Array.from({ length: 8 }, (_, i) => p.acquire(undefined, workflow, `u${i}`))));
  t.not(leases, 'still waiting');
  t.true((leases as unknown[]).every(isLease));
  t.true(a.state.queueReads + b.state.queueReads <= 4, `queue reads: ${a.state.queueReads + b.state.queueReads}`);
  p.close();
});

// Pins: with one free server there is no choice to make, so its queue is not read.
test('one free server: its queue is not read', async (t) => {
  const only = server('one');
  const { pool: p } = pool([only.client]);
  t.true(isLease(await p.acquire(undefined, workflow, 'u1')));
  t.is(only.state.queueReads, 0);
});

// Pins: the round robin remembers at most 10,000 users, the least recently served forgotten first.
test('the round robin remembers at most 10,000 users', async (t) => {
  const only = server('one');
  const { pool: p } = pool([only.client], { jobsPerServer: 1 });
  for (let i = 0; i < 10_002; i += 1) ((await p.acquire(undefined, undefined, `user-${i}`)) as ComfyLease).release();
  const served = (p as unknown as { lastServed: Map<string, number> }).lastServed;
  t.is(served.size, 10_000);
  t.false(served.has('user-0'));
  t.false(served.has('user-1'));
  t.true(served.has('user-2'));
  t.true(served.has('user-10001'));
});

// Pins: a failure reported for a client the pool does not hold (a lease of a pool since replaced) changes nothing.
test('a failure of a client the pool does not hold is ignored', async (t) => {
  const only = server('one');
  const stranger = server('stranger');
  const { pool: p } = pool([only.client]);
  await p.acquire(undefined, workflow, 'u1');
  t.notThrows(() => p.markFailed(stranger.client, new Error('gone')));
  t.deepEqual(p.report().map((s) => s.healthy), [true]);
});
