import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { ScryptPasswordHasher } from '../../adapters/crypto/scrypt-password-hasher.ts';

// Small parameters: these tests are about the format and the checks, not the work factor.
const hasher = new ScryptPasswordHasher({ N: 1024, r: 8, p: 1, keyLength: 32 });

test('a hash is scrypt$N$r$p$salt$key with a fresh salt each time, and verifies only its own password', async (t) => {
  const first = await hasher.hash('correct horse');
  const second = await hasher.hash('correct horse');
  t.regex(first, /^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  t.not(first, second, 'salted');
  t.true(await hasher.verify('correct horse', first));
  t.true(await hasher.verify('correct horse', second));
  t.false(await hasher.verify('correct horse ', first));
  t.false(await hasher.verify('', first));
});

test('the stored parameters are used, so a hash made with other ones still verifies', async (t) => {
  const stronger = new ScryptPasswordHasher({ N: 2048, r: 4, p: 2, keyLength: 48 });
  const stored = await stronger.hash('pw');
  t.regex(stored, /^scrypt\$2048\$4\$2\$/);
  t.true(await hasher.verify('pw', stored));
  t.false(await hasher.verify('other', stored));
});

test('a stored value that is not an scrypt hash of this format is a refusal, not an error', async (t) => {
  const good = await hasher.hash('pw');
  const parts = good.split('$');
  for (const stored of ['', 'plain-text-password', `bcrypt$${parts.slice(1).join('$')}`, parts.slice(0, 5).join('$'), `${good}$extra`]) {
    t.false(await hasher.verify('pw', stored), stored);
  }
});

test('no stored hash (an unknown user) never verifies', async (t) => {
  t.false(await hasher.verify('', null));
  t.false(await hasher.verify('pw', null));
});

test('many hashes at once all finish (they queue for the thread pool, none is lost)', async (t) => {
  t.timeout(20_000);
  const results = await Promise.all(Array.from({ length: 12 }, (_, i) => hasher.hash(`pw-${i}`).then((stored) => hasher.verify(`pw-${i}`, stored))));
  t.deepEqual(results, Array.from({ length: 12 }, () => true));
  // And later ones still get a slot, one after another, more of them than the pool has threads (16 in tests).
  const stored = await hasher.hash('again');
  for (let i = 0; i < 20; i++) t.true(await hasher.verify('again', stored));
});

// Pins: a burst of hashes leaves threads of libuv's pool free (UV_THREADPOOL_SIZE 16 in tests, so 14 hash at once): a
// file read issued during the burst runs at once, not behind the queued hashes. Serial: the limit is process-wide.
test.serial('a burst of hashes leaves threads free for file and database work', async (t) => {
  t.timeout(60_000);
  const heavy = new ScryptPasswordHasher({ N: 8192, r: 8, p: 1, keyLength: 32 });
  const started = Date.now();
  const burst = Promise.all(Array.from({ length: 80 }, (_, i) => heavy.hash(`burst-${i}`)));
  await new Promise((resolve) => setTimeout(resolve, 20));
  const asked = Date.now();
  await stat(fileURLToPath(import.meta.url));
  const waited = Date.now() - asked;
  await burst;
  const took = Date.now() - started;
  t.log(`the read waited ${waited} ms of a ${took} ms burst`);
  t.true(waited < took / 4);
});
