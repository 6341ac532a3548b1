/**
 * The body of one builtin-engine worker thread: runs one workflow at a time for ThreadedBuiltinEngine and
 * reports its events and result as messages. Its memory budget covers the JS heap (the Worker's resourceLimits)
 * and the pixel buffers, which live outside the heap: after each node and in long loops the run fails once
 * this thread's heap plus array buffers pass the budget.
 */
import { parentPort, workerData } from 'node:worker_threads';
import sharp from 'sharp';
import type { EngineInputFile, EngineRunRequest } from '../../core/ports/workflow-engine.port.ts';
import { BuiltinEngine, type BuiltinEngineOptions } from './builtin-engine.ts';

export interface EngineThreadData {
  options: Omit<BuiltinEngineOptions, 'overBudget'>;
  memoryBytes: number;
}

export type ToThread =
  | { type: 'run'; request: Pick<EngineRunRequest, 'runId' | 'workflow'> & { inputs: EngineInputFile[] } }
  | { type: 'interrupt' };

export type FromThread =
  | { type: 'event'; event: Parameters<EngineRunRequest['onEvent']>[0] }
  | { type: 'started' }
  /** `retire`: the run ran out of memory budget; its garbage may still be uncollected, so the thread is not reused. */
  | { type: 'done'; result: Awaited<ReturnType<BuiltinEngine['runToPaths']>>; retire: boolean }
  | { type: 'crashed'; message: string };

// libvips would otherwise spread each encode over every core, starving the API's thread on a small machine.
sharp.concurrency(1);
const port = parentPort!;
const { options, memoryBytes } = workerData as EngineThreadData;
let exhausted = false;
const overBudget = (): string | null => {
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  const used = heapUsed + arrayBuffers;
  if (used <= memoryBytes) return null;
  exhausted = true;
  return `The run uses ${Math.round(used / 1048576)} MB, above the engine's memory budget (${Math.round(memoryBytes / 1048576)} MB)`;
};
const engine = new BuiltinEngine({ ...options, overBudget });
let abort: AbortController | null = null;

const send = (message: FromThread): void => port.postMessage(message);

port.on('message', (message: ToThread) => {
  if (message.type === 'interrupt') {
    abort?.abort();
    return;
  }
  abort = new AbortController();
  send({ type: 'started' });
  // Buffers arrive as plain Uint8Arrays.
  const inputs = message.request.inputs.map((input) => ({ ...input, data: Buffer.from(input.data.buffer, input.data.byteOffset, input.data.byteLength) }));
  engine
    .runToPaths({ ...message.request, inputs, signal: abort.signal, onEvent: (event) => send({ type: 'event', event }) })
    .then(
      (result) => send({ type: 'done', result, retire: exhausted }),
      (error: unknown) => send({ type: 'crashed', message: error instanceof Error ? error.message : String(error) }),
    )
    .finally(() => (abort = null));
});
