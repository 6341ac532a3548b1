import test from 'ava';
import { MemoryCache } from '../../adapters/memory/memory-cache.ts';
import type { MessageQueue } from '../../core/ports/queue.port.ts';
import { ProbeCache } from '../../core/use-cases/diagnostics/probe-cache.use-case.ts';
import { PEEK_MAX, PeekQueue } from '../../core/use-cases/diagnostics/peek-queue.use-case.ts';

// Pins two diagnostics: the cache probe (a round trip that leaves no key behind, each broken cache named) and the
// queue peek's bounds (10 by default, 1..100, integers only).
const probe = (cache: MemoryCache) => {
  let n = 0;
  let now = 0;
  return new ProbeCache({ cache, ids: { newId: () => `id-${++n}` }, clock: { now: () => new Date((now += 3)) } });
};

test('the cache probe: a round trip that leaves nothing; a cache that loses, alters or keeps the key is named', async (t) => {
  const healthy = new MemoryCache();
  t.deepEqual(await probe(healthy).execute(), { latencyMs: 3 });
  t.is(await healthy.get('diagnostics:probe:id-1'), null);
  const losing = new MemoryCache();
  losing.get = async () => null;
  await t.throwsAsync(probe(losing).execute(), { message: 'cache returned nothing for the probe key' });
  const altering = new MemoryCache();
  altering.get = async () => 'something else';
  await t.throwsAsync(probe(altering).execute(), { message: 'cache returned another value for the probe key' });
  const deletes: string[] = [];
  const watched = new MemoryCache();
  const realDelete = watched.delete.bind(watched);
  watched.delete = async (key: string) => (deletes.push(key), realDelete(key));
  watched.get = async () => null;
  await t.throwsAsync(probe(watched).execute());
  t.deepEqual(deletes, ['diagnostics:probe:id-1'], 'a failed probe still deletes its key');
  const keeping = new MemoryCache();
  keeping.delete = async () => undefined;
  await t.throwsAsync(probe(keeping).execute(), { message: 'cache kept the probe key after deleting it' });
});

test('the queue peek: 10 by default, an integer from 1 to 100', async (t) => {
  const asked: number[] = [];
  const peek = new PeekQueue({ queue: { peek: async (max: number) => (asked.push(max), []) } as unknown as MessageQueue });
  t.deepEqual(await peek.execute({ max: undefined }), { ok: true, value: [] });
  t.true((await peek.execute({ max: '1' })).ok);
  t.true((await peek.execute({ max: String(PEEK_MAX) })).ok);
  for (const bad of ['0', '101', '2.5', 'ten', '', null]) t.like(await peek.execute({ max: bad }), { ok: false, code: 'VALIDATION.FAILED' }, String(bad));
  t.deepEqual(asked, [10, 1, 100]);
});
