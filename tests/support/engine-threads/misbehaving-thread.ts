/**
 * A ThreadedBuiltinEngine thread module that starts a run, reports its first node, and then misbehaves as the
 * workflow's first node class says: `Spin` holds the thread in a synchronous loop (a node deep in its pixels:
 * the interrupt message is never read), `Exit` ends the thread, `Throw` throws outside any run's promise.
 */
import { parentPort } from 'node:worker_threads';
import type { FromThread, ToThread } from '../../../adapters/builtin-engine/engine-thread.ts';

const send = (message: FromThread): void => parentPort!.postMessage(message);

parentPort!.on('message', (message: ToThread) => {
  if (message.type !== 'run') return;
  const how = message.request.workflow['1']?.class_type;
  send({ type: 'started' });
  send({ type: 'event', event: { type: 'executing', nodeId: '1', classType: how ?? '' } });
  setTimeout(() => {
    if (how === 'Exit') process.exit(7);
    if (how === 'Throw') throw new Error('the thread broke');
    for (;;);
  }, 50);
});
