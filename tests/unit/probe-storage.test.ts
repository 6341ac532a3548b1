import { Readable } from 'node:stream';
import test from 'ava';
import { MemoryObjectStorage } from '../../adapters/memory/memory-object-storage.ts';
import { ProbeStorage } from '../../core/use-cases/diagnostics/probe-storage.use-case.ts';

// Pins the storage probe behind the health check and the diagnostics route: a round trip that leaves nothing behind,
// and each way a store can be broken named as such (it loses what it was given, returns other bytes, keeps a deleted
// object).
const probe = (storage: MemoryObjectStorage) => {
  let now = 0;
  return new ProbeStorage({ storage, ids: { newId: () => 'fixed' }, clock: { now: () => new Date((now += 5)) } });
};

test('a healthy store: the round trip leaves nothing behind and reports its time', async (t) => {
  const storage = new MemoryObjectStorage();
  t.deepEqual(await probe(storage).execute(), { latencyMs: 5 });
  t.deepEqual(storage.keys(), []);
});

test('a store that loses, alters or keeps the probe object is reported, and the probe object is still deleted', async (t) => {
  const losing = new MemoryObjectStorage();
  losing.get = async () => null;
  await t.throwsAsync(probe(losing).execute(), { message: 'storage lost the probe object' });
  t.deepEqual(losing.keys(), []);
  const altering = new MemoryObjectStorage();
  altering.get = async () => ({ contentType: 'text/plain', sizeBytes: 3, body: Readable.from([Buffer.from('xyz')]) });
  await t.throwsAsync(probe(altering).execute(), { message: 'storage returned different bytes for the probe object' });
  t.deepEqual(altering.keys(), []);
  const keeping = new MemoryObjectStorage();
  keeping.delete = async () => undefined;
  await t.throwsAsync(probe(keeping).execute(), { message: 'storage kept the probe object after deleting it' });
  const unreachable = new MemoryObjectStorage();
  unreachable.check = async () => {
    throw new Error('bucket missing');
  };
  await t.throwsAsync(probe(unreachable).execute(), { message: 'bucket missing' });
  t.deepEqual(unreachable.keys(), [], 'nothing written to a store that failed its check');
});
