import test from 'ava';
import { ReadBatcher } from '../../adapters/sequelize/read-batcher.ts';

/** A `run` whose calls the test settles by hand, recording what each call was sent. */
function manualRun() {
  const calls: { keys: number[]; settle(error?: Error): void }[] = [];
  const run = (keys: number[]) =>
    new Promise<string[]>((resolve, reject) => calls.push({ keys, settle: (error) => (error ? reject(error) : resolve(keys.map((key) => `v${key}`))) }));
  return { calls, run };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

test('a read asked for while a statement is in flight goes in the next one, never the one already sent', async (t) => {
  const { calls, run } = manualRun();
  const batcher = new ReadBatcher(run, { maxBatch: 10, concurrency: 1 });
  const first = batcher.load(1);
  t.deepEqual(calls.map((call) => call.keys), [[1]], 'the first read of a quiet moment goes out at once');
  const later = [batcher.load(2), batcher.load(3), batcher.load(2)];
  await turn();
  t.deepEqual(calls.map((call) => call.keys), [[1]], 'nothing joins the statement in flight');
  calls[0]!.settle();
  t.is(await first, 'v1');
  await turn();
  t.deepEqual(calls.map((call) => call.keys), [[1], [2, 3, 2]], 'everything asked for meanwhile, in one statement');
  calls[1]!.settle();
  t.deepEqual(await Promise.all(later), ['v2', 'v3', 'v2']);
});

test('batches are cut at maxBatch and run up to `concurrency` at once; a failed statement fails its own reads only', async (t) => {
  const { calls, run } = manualRun();
  const batcher = new ReadBatcher(run, { maxBatch: 2, concurrency: 2 });
  const reads = [1, 2, 3, 4, 5, 6].map((key) => batcher.load(key).then((value) => value, (error: Error) => error.message));
  t.deepEqual(calls.map((call) => call.keys), [[1], [2]], 'two single reads at once');
  calls[0]!.settle(new Error('boom'));
  await turn();
  t.deepEqual(calls.map((call) => call.keys), [[1], [2], [3, 4]]);
  calls[1]!.settle();
  calls[2]!.settle();
  await turn();
  t.deepEqual(calls.map((call) => call.keys), [[1], [2], [3, 4], [5, 6]]);
  calls[3]!.settle();
  t.deepEqual(await Promise.all(reads), ['boom', 'v2', 'v3', 'v4', 'v5', 'v6']);
});
