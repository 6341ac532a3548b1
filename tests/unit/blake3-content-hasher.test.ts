import test from 'ava';
import { Blake3ContentHasher } from '../../adapters/crypto/blake3-content-hasher.ts';
import { blake3Of } from '../support/images.ts';

test('the blake3 of bytes fed whole, in slices past 1 MiB or in uneven chunks is the same, as the SDK writes it', async (t) => {
  const bytes = Buffer.alloc(2.5 * 1024 * 1024 + 7);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31 + (i >> 9)) & 0xff;
  const expected = await blake3Of(bytes);
  t.regex(expected, /^blake3:[0-9a-f]{64}$/);
  const hasher = new Blake3ContentHasher();
  const whole = await hasher.start();
  await whole.update(bytes);
  t.is(whole.digest(), expected);
  const chunked = await hasher.start();
  for (const [from, to] of [[0, 10], [10, 1_500_000], [1_500_000, bytes.length]] as const) await chunked.update(bytes.subarray(from, to));
  t.is(chunked.digest(), expected);
  const [a, b] = [await hasher.start(), await hasher.start()];
  await Promise.all([a.update(bytes), b.update(Buffer.from('other'))]);
  t.is(a.digest(), expected, 'two hashes at once do not mix');
  t.is(b.digest(), await blake3Of(Buffer.from('other')));
});
