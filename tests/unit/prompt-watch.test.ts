import { EventEmitter } from 'node:events';
import test from 'ava';
import type { WebSocket } from 'ws';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';
import type { EngineEvent, EngineRunResult } from '../../core/ports/workflow-engine.port.ts';
import { ComfyUnavailable, type ComfyClient, type ComfyFileRef, type ComfyHistoryEntry, type ComfyQueueItem } from '../../adapters/comfyui/comfy-client.ts';
import { ComfyOutputMissing } from '../../adapters/comfyui/comfy-outputs.ts';
import { PromptWatch, type WatchOptions } from '../../adapters/comfyui/prompt-watch.ts';

const ID = 'prompt-1';

const WORKFLOW: WorkflowGraph = {
  '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'x' } },
  '4': { class_type: 'PreviewImage', inputs: { images: ['2', 0] } },
};

/** A socket of the watch: the test plays the server's frames on it, and drops it. */
class FakeSocket extends EventEmitter {
  closed = false;
  close(): void {
    this.closed = true;
  }
  frame(type: string, data: Record<string, unknown>): void {
    this.emit('message', Buffer.from(JSON.stringify({ type, data })), false);
  }
  text(text: string): void {
    this.emit('message', Buffer.from(text), false);
  }
  drop(): void {
    this.emit('close');
  }
}

/** The end of the prompt as ComfyUI announces it (after the history entry is written). */
const end = (socket: FakeSocket): void => socket.frame('executing', { node: null, prompt_id: ID });

const item = (id: string): ComfyQueueItem => [0, id, {}, {}, []];

const succeeded = (outputs: ComfyHistoryEntry['outputs'] = {}): ComfyHistoryEntry => ({
  outputs,
  status: { status_str: 'success', completed: true, messages: [['execution_success', { prompt_id: ID }]] },
});
const endedBy = (event: 'execution_error' | 'execution_interrupted', data: Record<string, unknown>): ComfyHistoryEntry => ({
  outputs: {},
  status: { status_str: 'error', completed: false, messages: [[event, { prompt_id: ID, node_id: '2', node_type: 'ImageInvert', ...data }]] },
});

/** One ComfyUI server as the watch sees it through its client: a queue, a history, sockets, and a switch to make it unreachable. */
class FakeServer {
  running: string[] = [ID];
  pending: string[] = [];
  entry: ComfyHistoryEntry | null = null;
  files = new Set<string>();
  down = false;
  calls = { queue: 0, history: 0, deletePending: 0, interrupt: 0, openSocket: 0 };
  /** The sockets the watch opened (the one it was given is not among them). */
  sockets: FakeSocket[] = [];
  /** Runs inside each GET /queue before it answers (to act while the watch looks). */
  beforeQueue: (() => void) | null = null;
  /** Runs once inside the next GET /history, after the answer was read and before it arrives. */
  duringHistory: (() => void) | null = null;
  /** How a socket opens: at once by default. */
  opening: () => Promise<FakeSocket> = async () => new FakeSocket();

  finish(entry: ComfyHistoryEntry): void {
    this.running = [];
    this.pending = [];
    this.entry = entry;
  }

  private reachable(what: string): void {
    if (this.down) throw new ComfyUnavailable('server 1', `${what}: ECONNREFUSED`);
  }

  readonly client = {
    label: 'server 1',
    queue: async () => {
      this.calls.queue += 1;
      this.beforeQueue?.();
      this.reachable('GET /queue');
      return { running: this.running.map(item), pending: this.pending.map(item) };
    },
    history: async (promptId: string) => {
      this.calls.history += 1;
      const answer = promptId === ID ? this.entry : null;
      const during = this.duringHistory;
      this.duringHistory = null;
      during?.();
      this.reachable('GET /history');
      return answer;
    },
    deletePending: async (promptId: string) => {
      this.calls.deletePending += 1;
      this.pending = this.pending.filter((id) => id !== promptId);
    },
    interrupt: async () => {
      this.calls.interrupt += 1;
    },
    openSocket: async () => {
      this.calls.openSocket += 1;
      const socket = await this.opening();
      this.sockets.push(socket);
      return socket as unknown as WebSocket;
    },
    hasFile: async (ref: ComfyFileRef) => this.files.has(ref.filename),
  } as unknown as ComfyClient;
}

/** A poll cadence of 1 s (10 s with a live socket): anything that waits for the cadence shows as a wait of seconds. */
const SLOW: WatchOptions = { pollMs: 1000, timeoutMs: 10_000, failoverMs: 10_000 };

const watching = (
  t: { teardown(fn: () => void): void },
  server: FakeServer,
  { socket = new FakeSocket(), signal, ...options }: Partial<WatchOptions> & { socket?: FakeSocket | null; signal?: AbortSignal } = {},
) => {
  const events: EngineEvent[] = [];
  const watch = new PromptWatch(
    { client: server.client, promptId: ID, clientId: ID, workflow: WORKFLOW, socket: socket as unknown as WebSocket | null, onEvent: (e) => events.push(e), ...(signal ? { signal } : {}) },
    { ...SLOW, ...options },
  );
  const result = watch.run();
  t.teardown(() => watch.close());
  return { watch, events, socket: socket!, result };
};

/** The promise's value, or 'still waiting' after `ms`. */
const settledWithin = <T>(promise: Promise<T>, ms = 3000): Promise<T | 'still waiting'> =>
  Promise.race([promise, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), ms).unref())]);

/** Whether `condition` became true within `ms`. */
const until = async (condition: () => boolean, ms = 3000): Promise<boolean> => {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
};

const ticks = async (n = 5): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

const statuses = (events: EngineEvent[]): string[] => events.flatMap((e) => (e.type === 'status' ? [e.text] : []));

// Pins: a prompt just queued costs the server no poll while its socket is live, and its end event ends the watch at once
// (the job completes without waiting for the slow poll), with no phantom "node null" step shown to the user.
test('with a live socket the watch looks the prompt up only when its end event comes, and that event ends it at once', async (t) => {
  const server = new FakeServer();
  const { events, socket, result } = watching(t, server);
  socket.frame('execution_start', { prompt_id: ID });
  socket.frame('executing', { node: '2', display_node: '2', prompt_id: ID });
  await ticks();
  t.is(server.calls.queue + server.calls.history, 0, 'no poll of a prompt that was just queued');
  server.finish(succeeded());
  end(socket);
  const outcome = await settledWithin(result);
  if (outcome === 'still waiting') return t.fail('the end event did not wake the watch');
  t.true(outcome.ok);
  t.deepEqual(
    events.filter((e) => e.type === 'executing'),
    [{ type: 'executing', nodeId: '2', classType: 'ImageInvert' }],
  );
});

// Pins: the end event can arrive while the watch is reading /queue and /history (which still said "running"); it must not be
// lost, or the job would sit finished on the server until the slow poll.
test('an end event that arrives while the watch is reading the history is not lost', async (t) => {
  const server = new FakeServer();
  const { socket, result } = watching(t, server);
  server.duringHistory = () => {
    server.finish(succeeded());
    end(server.sockets[0]!);
  };
  socket.drop(); // the watch reconnects and looks
  const outcome = await settledWithin(result);
  if (outcome === 'still waiting') return t.fail('the end event that came during a look was lost');
  t.true(outcome.ok);
});

// Pins: ComfyUI never replays events, so after a dropped socket the watch must open a new one to keep showing the job's
// progress; and it opens one socket per drop, closing each when it ends (no sockets leak on the server).
test('after its socket drops the watch opens one new socket, hears the rest of the prompt on it, and closes it at the end', async (t) => {
  const server = new FakeServer();
  const { events, socket, result } = watching(t, server);
  socket.frame('executing', { node: '1', prompt_id: ID });
  socket.drop();
  if (!t.true(await until(() => server.sockets.length === 1), 'a new socket was opened')) return;
  server.sockets[0]!.frame('executing', { node: '3', prompt_id: ID });
  server.finish(succeeded());
  end(server.sockets[0]!);
  const outcome = await settledWithin(result);
  if (outcome === 'still waiting') return t.fail('the end event on the new socket did not end the watch');
  t.true(outcome.ok);
  t.deepEqual(
    events.map((e) => e.type === 'executing' && e.nodeId),
    ['1', '3'],
  );
  t.is(server.calls.openSocket, 1, 'one socket per drop');
  t.true(server.sockets.every((s) => s.closed), 'every socket it opened is closed');
});

// Pins: an adopted prompt whose socket could not be opened up front is still followed live: the watch opens the socket itself.
test('a watch that starts without a socket opens one and hears the prompt on it', async (t) => {
  const server = new FakeServer();
  const { events, result } = watching(t, server, { socket: null });
  if (!t.true(await until(() => server.sockets.length === 1), 'a socket was opened')) return;
  server.sockets[0]!.frame('executing', { node: '2', prompt_id: ID });
  server.finish(succeeded());
  end(server.sockets[0]!);
  const outcome = await settledWithin(result);
  if (outcome === 'still waiting') return t.fail('the watch did not end');
  t.true(outcome.ok);
  t.deepEqual(events, [{ type: 'executing', nodeId: '2', classType: 'ImageInvert' }]);
});

// Pins: a socket that finishes opening after the worker shut the watch down is closed at once: it neither stays open on the
// server nor passes the prompt's events to a job this worker no longer runs.
test('a socket that opens after the watch was closed is closed at once and passes no event on', async (t) => {
  const server = new FakeServer();
  const { watch, events, result } = watching(t, server, { socket: null });
  if (!t.true(await until(() => server.sockets.length === 1))) return;
  let open!: (socket: FakeSocket) => void;
  server.opening = () => new Promise((resolve) => (open = resolve));
  server.sockets[0]!.drop();
  if (!t.true(await until(() => server.calls.openSocket === 2), 'reconnecting')) return;
  const late = new FakeSocket();
  let closedWhileLooking: boolean | null = null;
  server.beforeQueue = () => {
    closedWhileLooking ??= late.closed;
    late.frame('executing', { node: '3', prompt_id: ID });
  };
  watch.close();
  open(late);
  const outcome = await settledWithin(result);
  if (outcome === 'still waiting') return t.fail('the closed watch did not end');
  t.false(outcome.ok);
  t.true(late.closed);
  t.true(closedWhileLooking ?? late.closed, 'closed before the watch did anything else');
  t.deepEqual(events, [], 'no event reached the job');
});

// Pins: once the attempt has ended, frames still in flight on its socket are not passed on to the job (a finished job
// would otherwise show progress again).
test('frames that arrive after the watch ended are not passed on', async (t) => {
  const server = new FakeServer();
  const { events, socket, result } = watching(t, server);
  server.finish(succeeded());
  end(socket);
  const outcome = await settledWithin(result);
  if (outcome === 'still waiting') return t.fail('the watch did not end');
  t.true(outcome.ok);
  socket.frame('executing', { node: '3', prompt_id: ID });
  socket.frame('progress_state', { prompt_id: ID, nodes: { '1': { state: 'finished', value: 1, max: 1 } } });
  t.deepEqual(events, []);
  t.true(socket.closed);
});

// Pins: a frame the watch cannot read (not JSON, no data, a cached list that is no list, a progress without numbers: a
// custom node's or a proxy's) is skipped; it neither throws inside the socket's handler (which would crash the worker) nor
// shows the user a broken step.
test('frames the watch cannot read are skipped without an error or an event', async (t) => {
  const server = new FakeServer();
  const { events, socket, result } = watching(t, server);
  t.notThrows(() => socket.text('not json {'));
  t.notThrows(() => socket.text(JSON.stringify({ type: 'crystools.monitor' })));
  for (const odd of ['null', '5', '"text"', '[]', '{"type": "executing", "data": null}']) t.notThrows(() => socket.text(odd), odd);
  t.notThrows(() => socket.frame('execution_cached', { prompt_id: ID }));
  t.notThrows(() => socket.frame('progress', { prompt_id: ID, node: '2' }));
  server.finish(succeeded());
  end(socket);
  const outcome = await settledWithin(result);
  if (outcome === 'still waiting') return t.fail('the watch did not end');
  t.true(outcome.ok);
  t.deepEqual(events, []);
});

// Pins the status line users see: a prompt ComfyUI answers partly from its cache says how many nodes were cached; a fresh
// one (ComfyUI still sends execution_cached, with no nodes) says nothing about a cache.
test('the status names the cached nodes only when there are some', async (t) => {
  const fresh = new FakeServer();
  const first = watching(t, fresh);
  first.socket.frame('execution_start', { prompt_id: ID });
  first.socket.frame('execution_cached', { nodes: [], prompt_id: ID });
  t.deepEqual(statuses(first.events), ['Running']);

  const cached = new FakeServer();
  const second = watching(t, cached);
  second.socket.frame('execution_start', { prompt_id: ID });
  second.socket.frame('execution_cached', { nodes: ['1'], prompt_id: ID });
  t.deepEqual(statuses(second.events), ['Running', 'Running (1 cached node)']);

  const third = watching(t, new FakeServer());
  third.socket.frame('execution_cached', { nodes: ['1', '2'], prompt_id: ID });
  t.deepEqual(statuses(third.events), ['Running (2 cached nodes)']);
});

// Pins the progress bar on servers that send progress_state: it is the prompt's percent, never a node's own steps, counts a
// cached node once, ignores a running node without a step count, never goes back or repeats, and stops at 100 even when
// the snapshot lists nodes the graph does not (nodes ComfyUI expanded).
test("with progress_state, progress is the prompt's percent: node steps not passed on, cached nodes counted once, never back, never past 100", async (t) => {
  const server = new FakeServer();
  const { events, socket } = watching(t, server);
  const state = (nodes: Record<string, { state: string; value: number; max: number }>): void => socket.frame('progress_state', { prompt_id: ID, nodes });
  const done = { state: 'finished', value: 1, max: 1 };
  socket.frame('execution_cached', { nodes: ['1'], prompt_id: ID });
  state({ '1': done, '2': { state: 'running', value: 1, max: 4 } });
  socket.frame('progress', { value: 1, max: 4, prompt_id: ID, node: '2' });
  state({ '1': done, '2': { state: 'running', value: 0, max: 0 } });
  state({ '1': done, '2': { state: 'running', value: 1, max: 4 } });
  state({ '1': done, '2': done, '3': done, '4': done, '4.1': done });
  t.deepEqual(
    events.filter((e) => e.type === 'progress'),
    [
      { type: 'progress', value: 31, max: 100, nodeId: '2' },
      { type: 'progress', value: 100, max: 100 },
    ],
  );
});

// Pins: an older server (no progress_state) still shows the running node's steps.
test('without progress_state, the running node steps are passed on as they come', (t) => {
  const { events, socket } = watching(t, new FakeServer());
  socket.frame('progress', { value: 2, max: 5, prompt_id: ID, node: '2' });
  t.deepEqual(events, [{ type: 'progress', value: 2, max: 5, nodeId: '2' }]);
});

// Pins: a prompt that failed on the server fails the job with ComfyUI's error (not a success, not a cancel); an interrupt
// nobody on our side asked for is reported as a cancel on the server.
test("a prompt that failed on the server ends the watch with the server's error; an interrupt there is a cancel on the server", async (t) => {
  const failing = new FakeServer();
  const first = watching(t, failing);
  failing.finish(endedBy('execution_error', { exception_type: 'RuntimeError', exception_message: 'boom' }));
  end(first.socket);
  const failed = await settledWithin(first.result);
  if (failed === 'still waiting') return t.fail('the watch did not end');
  t.deepEqual(failed, { ok: false, error: { code: 'ENGINE.EXECUTION', message: 'ImageInvert #2 failed: RuntimeError: boom', nodeId: '2' }, transient: false });

  const stopped = new FakeServer();
  const second = watching(t, stopped);
  stopped.finish(endedBy('execution_interrupted', {}));
  end(second.socket);
  const cancelled = await settledWithin(second.result);
  if (cancelled === 'still waiting') return t.fail('the watch did not end');
  t.like(cancelled, { ok: false, error: { code: 'ENGINE.CANCELLED', message: 'Cancelled on ComfyUI server 1 (interrupted there)' }, transient: false });
});

// Pins: a finished prompt whose output file the server no longer has is handed back at once (the engine then runs the job
// again), not polled as if the server were unreachable until the failover window ran out.
test('a finished prompt whose output file is gone from the server is handed back at once, not waited on as an outage', async (t) => {
  const server = new FakeServer();
  const { socket, result } = watching(t, server);
  server.finish(succeeded({ '3': { images: [{ filename: 'x_00001_.png', subfolder: '', type: 'output' }] } }));
  end(socket);
  const outcome = await settledWithin(result.then((value: EngineRunResult) => value, (error: unknown) => error));
  if (outcome === 'still waiting') return t.fail('the watch is still waiting');
  t.true(outcome instanceof ComfyOutputMissing, String(outcome));
});

// Pins: COMFYUI_FAILOVER_MS counts from the start of the current outage: a server that was briefly unreachable earlier and is
// briefly unreachable again later does not lose the job.
test('two short outages far apart do not add up to a failover', async (t) => {
  const server = new FakeServer();
  server.opening = async () => {
    throw new ComfyUnavailable('server 1', 'socket: ECONNREFUSED');
  };
  const started = Date.now();
  let second = 'not yet' as 'not yet' | 'down' | 'over';
  server.beforeQueue = () => {
    if (server.calls.queue === 1) server.down = true;
    else if (second === 'not yet' && Date.now() - started > 1500) {
      second = 'down';
      server.down = true;
    } else {
      server.down = false;
      if (second === 'down') {
        second = 'over';
        server.finish(succeeded());
      }
    }
  };
  const { result } = watching(t, server, { socket: null, pollMs: 50, failoverMs: 1000 });
  const outcome = await settledWithin(result, 5000);
  if (outcome === 'still waiting') return t.fail('the watch did not end');
  t.true(outcome.ok, JSON.stringify(outcome));
  t.is(second, 'over');
});

// Pins: a server that stays unreachable ends the attempt as transient once COMFYUI_FAILOVER_MS has passed (the job is
// retried elsewhere), naming the prompt.
test('a server that stays unreachable ends the watch as transient after the failover window', async (t) => {
  const server = new FakeServer();
  server.down = true;
  const { socket, result } = watching(t, server, { pollMs: 50, failoverMs: 300 });
  socket.drop();
  const outcome = await settledWithin(result);
  if (outcome === 'still waiting') return t.fail('the watch still waits for a server that is gone');
  t.like(outcome, { ok: false, error: { code: 'ENGINE.UNAVAILABLE', message: 'ComfyUI server 1: GET /queue: ECONNREFUSED (prompt prompt-1)' }, transient: true });
});

// Pins: without a socket (it could not reopen) the watch polls at COMFYUI poll cadence, so the job ends soon after the prompt.
test('while its socket is down the watch polls at the fast cadence', async (t) => {
  const server = new FakeServer();
  server.opening = async () => {
    throw new ComfyUnavailable('server 1', 'socket: refused');
  };
  server.beforeQueue = () => {
    if (server.calls.queue === 2) server.finish(succeeded());
  };
  const { result } = watching(t, server, { socket: null });
  const outcome = await settledWithin(result, 5000);
  if (outcome === 'still waiting') return t.fail('the watch polled at the slow cadence');
  t.true(outcome.ok);
});

// Pins: a prompt waiting in the server's queue behind another (pending, not running) is still the server's: the watch
// keeps looking and ends with its result, rather than taking a prompt in neither list for lost.
test("a prompt still pending in the server's queue is waited for, not taken for lost", async (t) => {
  const server = new FakeServer();
  server.running = ['prompt-of-someone-else'];
  server.pending = [ID];
  server.opening = async () => {
    throw new ComfyUnavailable('server 1', 'socket: refused');
  };
  server.beforeQueue = () => {
    if (server.calls.queue === 3) server.finish(succeeded());
  };
  const { result } = watching(t, server, { socket: null });
  const outcome = await settledWithin(result, 8000);
  if (outcome === 'still waiting') return t.fail('the watch never saw the prompt end');
  t.true(outcome.ok, JSON.stringify(outcome));
  t.is(server.calls.queue, 3, 'looked twice while it was pending');
});

// Pins: after a failed look the watch tries again at the fast cadence even though its socket is up (the socket may be
// fine while HTTP is not), so a short HTTP outage does not delay the job by the slow poll.
test('after a look the server did not answer, the watch looks again at the fast cadence though its socket is up', async (t) => {
  const server = new FakeServer();
  server.down = true;
  server.beforeQueue = () => {
    if (server.calls.queue === 2) {
      server.down = false;
      server.finish(succeeded());
    }
  };
  const { socket, result } = watching(t, server);
  end(socket); // wakes the watch; its look fails
  const outcome = await settledWithin(result, 5000);
  if (outcome === 'still waiting') return t.fail('the watch retried at the slow cadence');
  t.true(outcome.ok);
  t.is(server.calls.queue, 2);
});

// Pins: a cancel is acted on at once, even while the watch waits on a quiet socket: a pending prompt is removed from the queue.
test('a cancel reaches the server at once, even while the socket is quiet', async (t) => {
  const server = new FakeServer();
  server.running = [];
  server.pending = [ID];
  const controller = new AbortController();
  const { result } = watching(t, server, { signal: controller.signal });
  await ticks();
  controller.abort();
  const outcome = await settledWithin(result);
  if (outcome === 'still waiting') return t.fail('the cancel was not acted on');
  t.deepEqual(outcome, { ok: false, error: { code: 'ENGINE.INTERRUPTED', message: 'Cancelled before it started' }, transient: false });
  t.is(server.calls.deletePending, 1);
  t.deepEqual(server.pending, []);
});

// Pins: after the interrupt of a cancelled running prompt, the watch polls at the fast cadence even with its socket up (the
// end event may never come), so the cancel is confirmed soon; the result is the server's interrupt, not "cancelled on the server".
test('a cancelled running prompt is confirmed by the fast poll when its end event does not come', async (t) => {
  const server = new FakeServer();
  server.beforeQueue = () => {
    if (server.calls.queue === 3) server.finish(endedBy('execution_interrupted', {}));
  };
  const controller = new AbortController();
  const { result } = watching(t, server, { signal: controller.signal });
  await ticks();
  controller.abort();
  const outcome = await settledWithin(result, 5000);
  if (outcome === 'still waiting') return t.fail('the cancel was confirmed only by the slow poll');
  t.like(outcome, { ok: false, error: { code: 'ENGINE.INTERRUPTED', message: 'Interrupted before ImageInvert #2 finished' } });
  t.is(server.calls.interrupt, 1);
});

// Pins: a cancel the server never carries out is sent once and ends the attempt after COMFYUI_TIMEOUT_MS, saying so.
test('a cancel the server never confirms is sent once and ends the watch after the timeout', async (t) => {
  const server = new FakeServer();
  const controller = new AbortController();
  const { result } = watching(t, server, { signal: controller.signal, pollMs: 50, timeoutMs: 400 });
  await ticks();
  controller.abort();
  const outcome = await settledWithin(result);
  if (outcome === 'still waiting') return t.fail('the watch still waits for the interrupt');
  t.deepEqual(outcome, { ok: false, error: { code: 'ENGINE.INTERRUPTED', message: 'Cancelled; the server did not confirm the interrupt in time' }, transient: false });
  t.is(server.calls.interrupt, 1, 'interrupted once, not at every look');
});

// Pins: closing the watch (worker shutdown) ends it at once, not after the current poll pause.
test('closing the watch ends it at once', async (t) => {
  const server = new FakeServer();
  const { watch, result } = watching(t, server);
  await ticks();
  watch.close();
  const outcome = await settledWithin(result);
  if (outcome === 'still waiting') return t.fail('the closed watch waited for its poll');
  t.deepEqual(outcome, { ok: false, error: { code: 'ENGINE.UNAVAILABLE', message: 'the engine is closing' }, transient: true });
});
