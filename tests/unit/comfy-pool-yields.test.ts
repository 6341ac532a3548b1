import test from 'ava';
import { Worker } from 'node:worker_threads';

// The pool's wait for a slot, run in a thread of its own (tests/support/pool-acquire-thread.ts) so that a wait which
// loops without ever yielding to timers fails this test instead of hanging its process: the deadline below is a timer
// of this thread, which the looping one cannot block. Its own file: in one with other pool tests in this thread, such a
// loop would block them and this deadline alike.

const acquireInThread = (scenario: 'free' | 'freed', deadlineMs: number): Promise<string> =>
  new Promise((resolve, reject) => {
    const worker = new Worker(new URL('../support/pool-acquire-thread.ts', import.meta.url), { workerData: { scenario } });
    const deadline = setTimeout(() => {
      resolve('no answer');
      void worker.terminate();
    }, deadlineMs);
    worker.once('message', (answer: string) => {
      clearTimeout(deadline);
      resolve(answer);
      void worker.terminate();
    });
    worker.once('error', (error) => {
      clearTimeout(deadline);
      reject(error);
    });
  });

// Pins: a job whose own dispatch pass hands it the free slot returns with it (the check at the top of the wait).
test('a job handed the free slot by its own dispatch pass returns with it', async (t) => {
  t.is(await acquireInThread('free', 10_000), 'acquired');
});

// Pins: a job waiting while the only slot is held gets it when the holder lets go.
test('a job waiting for the held slot gets it when the holder lets go', async (t) => {
  t.is(await acquireInThread('freed', 10_000), 'acquired');
});
