import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { ApiKey } from '../../core/domain/api-key.ts';
import { addUser, at, freshBackend, sharedBackend, type MakeBackend } from './fixtures.ts';

const key = (userId: string, over: Partial<ApiKey> = {}): ApiKey => ({
  id: randomUUID(),
  userId,
  name: 'ci runner ✓',
  scopes: ['generate', 'history'],
  prefix: `mgs_${randomUUID().replace(/-/g, '').slice(0, 12)}`,
  secretHash: 'a'.repeat(64),
  createdAt: at(1000),
  expiresAt: at(86_400_000),
  lastUsedAt: null,
  revokedAt: null,
  ...over,
});

/** Registers the ApiKeyRepository contract for one backend. */
export function apiKeyRepositoryContract(name: string, make: MakeBackend): void {
  const shared = sharedBackend(make);

  test(`${name}: a created key is found by its prefix exactly as stored`, async (t) => {
    const { repos } = await shared();
    const userId = await addUser(repos.users);
    const stored = key(userId, { scopes: ['admin'], expiresAt: null });
    await repos.apiKeys.create(stored);
    t.deepEqual(await repos.apiKeys.findByPrefix(stored.prefix), stored);
    t.is(await repos.apiKeys.findByPrefix('mgs_nosuchprefix'), null);
  });

  test(`${name}: listByUser gives the user's live keys newest first, not another user's, not revoked ones`, async (t) => {
    const { repos } = await shared();
    const userId = await addUser(repos.users);
    const other = await addUser(repos.users);
    const older = key(userId, { createdAt: at(1000) });
    const newer = key(userId, { createdAt: at(2000) });
    const revoked = key(userId, { createdAt: at(3000) });
    for (const k of [older, newer, revoked, key(other)]) await repos.apiKeys.create(k);
    t.truthy(await repos.apiKeys.revoke(revoked.id, userId, at(4000)));
    t.deepEqual(await repos.apiKeys.listByUser(userId), [newer, older]);
  });

  test(`${name}: revoke takes only the owner's live key, once, and keeps the row with its revocation time`, async (t) => {
    const { repos } = await shared();
    const userId = await addUser(repos.users);
    const other = await addUser(repos.users);
    const stored = key(userId);
    await repos.apiKeys.create(stored);
    t.is(await repos.apiKeys.revoke(stored.id, other, at(5000)), null, "someone else's key");
    t.is(await repos.apiKeys.revoke(randomUUID(), userId, at(5000)), null, 'an unknown key');
    t.deepEqual(await repos.apiKeys.revoke(stored.id, userId, at(5000)), { ...stored, revokedAt: at(5000) });
    t.is(await repos.apiKeys.revoke(stored.id, userId, at(6000)), null, 'a second revoke');
    t.deepEqual((await repos.apiKeys.findByPrefix(stored.prefix))?.revokedAt, at(5000));
  });

  test(`${name}: touch writes the last use unless one at or after notBefore is stored`, async (t) => {
    const { repos } = await shared();
    const userId = await addUser(repos.users);
    const stored = key(userId);
    await repos.apiKeys.create(stored);
    await repos.apiKeys.touch(stored.id, at(10_000), at(0));
    t.deepEqual((await repos.apiKeys.findByPrefix(stored.prefix))?.lastUsedAt, at(10_000));
    await repos.apiKeys.touch(stored.id, at(20_000), at(10_000));
    t.deepEqual((await repos.apiKeys.findByPrefix(stored.prefix))?.lastUsedAt, at(10_000), 'a use within the minute is not written');
    await repos.apiKeys.touch(stored.id, at(80_000), at(20_001));
    t.deepEqual((await repos.apiKeys.findByPrefix(stored.prefix))?.lastUsedAt, at(80_000));
  });

  test(`${name}: a key created in a rolled-back unit of work is gone`, async (t) => {
    const { repos, uow } = await freshBackend(t, make);
    const userId = await addUser(repos.users);
    const lost = key(userId);
    await t.throwsAsync(
      uow.run(async (tx) => {
        await tx.apiKeys.create(lost);
        throw new Error('the audit row failed');
      }),
      { message: 'the audit row failed' },
    );
    t.is(await repos.apiKeys.findByPrefix(lost.prefix), null);
  });
}
