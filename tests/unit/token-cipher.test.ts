import test from 'ava';
import { AesGcmTokenCipher, parseTokenKeys } from '../../adapters/crypto/aes-gcm-token-cipher.ts';

const OLD = { id: 'k1', key: Buffer.alloc(32, 1) };
const NEW = { id: 'k2', key: Buffer.alloc(32, 2) };

test('a sealed token opens in its context only, and its text holds neither the token nor a fixed IV', (t) => {
  const cipher = new AesGcmTokenCipher([NEW]);
  const sealed = cipher.seal('ya29.secret-token', 'user-1:YOUTUBE:access');
  t.regex(sealed, /^v1\.k2\.[\w-]{16}\.[\w-]{22}\.[\w-]+$/);
  t.false(sealed.includes('ya29'));
  t.not(cipher.seal('ya29.secret-token', 'user-1:YOUTUBE:access'), sealed, 'a fresh IV each time');
  t.is(cipher.open(sealed, 'user-1:YOUTUBE:access'), 'ya29.secret-token');
  t.throws(() => cipher.open(sealed, 'user-2:YOUTUBE:access'), undefined, 'bound to its row');
  t.throws(() => cipher.open(sealed, 'user-1:YOUTUBE:refresh'), undefined, 'bound to its field');
});

test('altered ciphertext, tag or IV does not open', (t) => {
  const cipher = new AesGcmTokenCipher([NEW]);
  const parts = cipher.seal('token', 'c').split('.');
  for (const index of [2, 3, 4]) {
    const altered = [...parts];
    const bytes = Buffer.from(altered[index]!, 'base64url');
    bytes[0] = bytes[0]! ^ 1;
    altered[index] = bytes.toString('base64url');
    t.throws(() => cipher.open(altered.join('.'), 'c'));
  }
  t.throws(() => cipher.open('plain-token', 'c'), { message: 'not a sealed token' });
});

// Pins the full 16-byte tag: node opens GCM with a tag cut to 4 bytes, which would make forging a token a matter of 2^32 tries.
test('a token whose tag was cut short does not open', (t) => {
  const cipher = new AesGcmTokenCipher([NEW]);
  const parts = cipher.seal('token', 'c').split('.');
  for (const bytes of [4, 8, 12, 15]) {
    const cut = [...parts];
    cut[3] = Buffer.from(parts[3]!, 'base64url').subarray(0, bytes).toString('base64url');
    t.throws(() => cipher.open(cut.join('.'), 'c'), { message: 'not a sealed token' }, `${bytes}-byte tag`);
  }
});

test('rotation: the first key seals, older keys still open, and their tokens are stale', (t) => {
  const before = new AesGcmTokenCipher([OLD]);
  const sealedOld = before.seal('refresh', 'c');
  const rotated = new AesGcmTokenCipher([NEW, OLD]);
  t.is(rotated.open(sealedOld, 'c'), 'refresh');
  t.true(rotated.isStale(sealedOld));
  const sealedNew = rotated.seal('refresh', 'c');
  t.false(rotated.isStale(sealedNew));
  t.throws(() => new AesGcmTokenCipher([NEW]).open(sealedOld, 'c'), { message: /key "k1", which is not configured/ });
});

test('TOKEN_ENCRYPTION_KEY: hex or base64 keys, ids given or derived; problems never quote a key', (t) => {
  const hex = 'ab'.repeat(32);
  const base64 = Buffer.alloc(32, 9).toString('base64');
  const parsed = parseTokenKeys(`k2:${hex}, ${base64}`);
  if (!('keys' in parsed)) return t.fail(parsed.problem);
  t.deepEqual(parsed.keys.map((k) => k.id), ['k2', parsed.keys[1]!.id]);
  t.regex(parsed.keys[1]!.id, /^[0-9a-f]{8}$/);
  t.deepEqual(parsed.keys[0]!.key, Buffer.from(hex, 'hex'));
  t.deepEqual(parsed.keys[1]!.key, Buffer.alloc(32, 9));
  for (const bad of ['', 'short', `k1:${hex.slice(2)}`, `bad id:${hex}`, `a:${hex},a:${base64}`, 'x'.repeat(64)]) {
    const result = parseTokenKeys(bad);
    t.true('problem' in result, bad);
    if ('problem' in result) t.false(result.problem.includes(hex.slice(0, 16)));
  }
});

// Sealed text is read strictly: only the v1 layout of five parts with a 12-byte IV. A future layout, a text with parts
// appended, or an IV of another length (GCM takes any) is refused before any key is used.
test('a sealed text of another version, with a part appended, or with an IV of another length does not open', (t) => {
  const cipher = new AesGcmTokenCipher([NEW]);
  const sealed = cipher.seal('token', 'c');
  t.is(cipher.open(sealed, 'c'), 'token', 'the baseline opens');
  const parts = sealed.split('.');
  t.throws(() => cipher.open(['v2', ...parts.slice(1)].join('.'), 'c'), { message: 'not a sealed token' }, 'version v2');
  t.throws(() => cipher.open(`${sealed}.appended`, 'c'), { message: 'not a sealed token' }, 'six parts');
  for (const bytes of [8, 16]) {
    const iv = [...parts];
    iv[2] = Buffer.concat([Buffer.from(parts[2]!, 'base64url'), Buffer.alloc(4)]).subarray(0, bytes).toString('base64url');
    t.throws(() => cipher.open(iv.join('.'), 'c'), { message: 'not a sealed token' }, `${bytes}-byte IV`);
  }
});

test('a cipher is refused at construction without a key, or with a key that is not 32 bytes', (t) => {
  t.throws(() => new AesGcmTokenCipher([]), { message: 'AesGcmTokenCipher needs at least one key' });
  for (const length of [16, 31, 33]) {
    t.throws(() => new AesGcmTokenCipher([NEW, { id: 'short', key: Buffer.alloc(length, 3) }]), { message: 'AES-256-GCM keys are 32 bytes' }, `${length} bytes`);
  }
});
