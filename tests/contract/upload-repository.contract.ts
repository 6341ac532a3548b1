import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { Upload, UploadRepository } from '../../core/ports/upload-repository.port.ts';
import type { UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import type { Backend } from '../support/backends.ts';
import { addUser, freshBackend, sharedBackend, type MakeBackend } from './fixtures.ts';
import { deleteUser } from './publication-repository.contract.ts';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const at = (hours: number): Date => new Date(T0.getTime() + hours * 3600_000);

/** Registers the UploadRepository contract for one backend; `make()` returns a fresh, empty backend. */
export function uploadRepositoryContract(name: string, make: MakeBackend): void {
  const backend = sharedBackend(make);
  let fixture: { uploads: UploadRepository; uow: UnitOfWork; addUser(): Promise<string>; deleteUser(userId: string): Promise<void> };
  test.before(async () => {
    const b: Backend = await backend();
    // Every upload belongs to a user row (a foreign key on the SQL backends).
    fixture = { uploads: b.repos.uploads, uow: b.uow, addUser: () => addUser(b.repos.users), deleteUser: (userId) => deleteUser(b, userId) };
  });

  const newUpload = (userId: string, createdAt: Date, overrides: Partial<Upload> = {}): Omit<Upload, 'usedAt'> => {
    const id = randomUUID();
    return { id, userId, storageKey: `uploads/${userId}/${id}.png`, mimeType: 'image/png', width: 640, height: 480, sizeBytes: 123_456, createdAt, contentHash: null, fileName: null, ...overrides } as Omit<Upload, 'usedAt'>;
  };

  test(`${name}: create, then findForUser returns it to its owner only`, async (t) => {
    const owner = await fixture.addUser();
    const other = await fixture.addUser();
    const upload = newUpload(owner, at(0), { mimeType: 'image/webp', width: 3, height: 2, sizeBytes: 1 });
    await fixture.uploads.create(upload);
    t.deepEqual(await fixture.uploads.findForUser(upload.id, owner), { ...upload, usedAt: null });
    t.is(await fixture.uploads.findForUser(upload.id, other), null);
    t.is(await fixture.uploads.findForUser(randomUUID(), owner), null);
  });

  test(`${name}: findByHashForUser finds the owner's newest upload with that content hash, and never another user's`, async (t) => {
    const owner = await fixture.addUser();
    const other = await fixture.addUser();
    const hash = `blake3:${randomUUID().replace(/-/g, '')}${'a'.repeat(32)}`;
    const older = newUpload(owner, at(0), { contentHash: hash, fileName: 'older.png' });
    const newer = newUpload(owner, at(1), { contentHash: hash, fileName: 'newer.png' });
    const theirs = newUpload(other, at(2), { contentHash: hash, fileName: null });
    const plain = newUpload(owner, at(3));
    for (const upload of [newer, theirs, older, plain]) await fixture.uploads.create(upload);
    t.deepEqual(await fixture.uploads.findByHashForUser(hash, owner), { ...newer, usedAt: null }, 'the newest, its hash and file name kept');
    t.deepEqual(await fixture.uploads.findByHashForUser(hash, other), { ...theirs, usedAt: null });
    t.is(await fixture.uploads.findByHashForUser(hash, await fixture.addUser()), null, "another user's bytes are not found");
    t.is(await fixture.uploads.findByHashForUser(`blake3:${'0'.repeat(64)}`, owner), null);
    t.true(await fixture.uploads.delete(newer.id));
    t.is((await fixture.uploads.findByHashForUser(hash, owner))?.id, older.id, 'the next one once the newest is gone');
  });

  test(`${name}: markUsed keeps the first use and says whether the upload exists`, async (t) => {
    const owner = await fixture.addUser();
    const upload = newUpload(owner, at(0));
    await fixture.uploads.create(upload);
    t.true(await fixture.uploads.markUsed(upload.id, at(1)));
    t.true(await fixture.uploads.markUsed(upload.id, at(2)));
    t.deepEqual((await fixture.uploads.findForUser(upload.id, owner))?.usedAt, at(1));
    t.false(await fixture.uploads.markUsed(randomUUID(), at(1)));
  });

  test(`${name}: listExpired lists unused uploads created before the cut-off, oldest first, up to the limit`, async (t) => {
    const owner = await fixture.addUser();
    const base = 1000; // hours, far from other tests' rows
    const oldest = newUpload(owner, at(base));
    const older = newUpload(owner, at(base + 1));
    const used = newUpload(owner, at(base + 2));
    const atCutOff = newUpload(owner, at(base + 10));
    for (const upload of [older, atCutOff, used, oldest]) await fixture.uploads.create(upload);
    await fixture.uploads.markUsed(used.id, at(base + 3));
    const listed = (await fixture.uploads.listExpired(at(base + 10), 100)).filter((u) => u.userId === owner);
    t.deepEqual(listed.map((u) => u.id), [oldest.id, older.id]);
    t.deepEqual(listed[0], { ...oldest, usedAt: null });
    const limited = await fixture.uploads.listExpired(at(base + 10), 1);
    t.is(limited.length, 1);
  });

  test(`${name}: delete, and delete only while unused`, async (t) => {
    const owner = await fixture.addUser();
    const unused = newUpload(owner, at(0));
    const used = newUpload(owner, at(0));
    await fixture.uploads.create(unused);
    await fixture.uploads.create(used);
    await fixture.uploads.markUsed(used.id, at(1));
    t.false(await fixture.uploads.delete(used.id, { onlyIfUnused: true }));
    t.truthy(await fixture.uploads.findForUser(used.id, owner));
    t.true(await fixture.uploads.delete(unused.id, { onlyIfUnused: true }));
    t.is(await fixture.uploads.findForUser(unused.id, owner), null);
    t.false(await fixture.uploads.delete(unused.id));
    t.true(await fixture.uploads.delete(used.id));
    t.is(await fixture.uploads.findForUser(used.id, owner), null);
  });

  test(`${name}: an upload created or marked used in a unit of work that rolls back is not there`, async (t) => {
    const owner = await fixture.addUser();
    const existing = newUpload(owner, at(0));
    await fixture.uploads.create(existing);
    const lost = newUpload(owner, at(0));
    await t.throwsAsync(
      fixture.uow.run(async (tx) => {
        await tx.uploads.create(lost);
        t.true(await tx.uploads.markUsed(existing.id, at(5)));
        throw new Error('rolled back');
      }),
    );
    t.is(await fixture.uploads.findForUser(lost.id, owner), null);
    t.is((await fixture.uploads.findForUser(existing.id, owner))!.usedAt, null);
  });

  test(`${name}: an upload needs its user, and its id is taken once`, async (t) => {
    await t.throwsAsync(fixture.uploads.create(newUpload(randomUUID(), at(0))), undefined, 'no user');
    const owner = await fixture.addUser();
    const upload = newUpload(owner, at(0));
    await fixture.uploads.create(upload);
    await t.throwsAsync(fixture.uploads.create({ ...upload, storageKey: 'uploads/other.png', createdAt: at(1) }), undefined, 'the id again');
    t.deepEqual(await fixture.uploads.findForUser(upload.id, owner), { ...upload, usedAt: null }, 'the first one kept');
  });

  test(`${name}: uploads go with their user`, async (t) => {
    const owner = await fixture.addUser();
    const hash = `blake3:${randomUUID().replace(/-/g, '')}${'b'.repeat(32)}`;
    const hashed = newUpload(owner, at(0), { contentHash: hash });
    const plain = newUpload(owner, at(0));
    await fixture.uploads.create(hashed);
    await fixture.uploads.create(plain);
    await fixture.deleteUser(owner);
    t.is(await fixture.uploads.findForUser(hashed.id, owner), null);
    t.is(await fixture.uploads.findByHashForUser(hash, owner), null);
    t.false(await fixture.uploads.markUsed(hashed.id, at(1)), 'no upload to mark');
    t.false((await fixture.uploads.listExpired(at(2000), 1000)).some((u) => u.userId === owner), 'not swept');
    t.false(await fixture.uploads.delete(hashed.id), 'no row to delete');
    t.false(await fixture.uploads.delete(plain.id, { onlyIfUnused: true }));
  });

  test(`${name}: findByHashForUser takes the newest upload, and of two as new the one with the greater id`, async (t) => {
    const owner = await fixture.addUser();
    const hash = `blake3:${randomUUID().replace(/-/g, '')}${'c'.repeat(32)}`;
    const tail = randomUUID().slice(1);
    const older = newUpload(owner, at(0), { contentHash: hash });
    const low = newUpload(owner, at(1), { id: `0${tail}`, contentHash: hash });
    const high = newUpload(owner, at(1), { id: `f${tail}`, contentHash: hash });
    for (const upload of [older, low, high]) await fixture.uploads.create(upload);
    t.deepEqual(await fixture.uploads.findByHashForUser(hash, owner), { ...high, usedAt: null });
    t.true(await fixture.uploads.delete(high.id));
    t.is((await fixture.uploads.findByHashForUser(hash, owner))?.id, low.id);
  });

  test(`${name}: listExpired without a limit lists at most 500`, async (t) => {
    const owner = await fixture.addUser();
    const base = 5000; // hours: after every other test's cut-off, so their lists never hold these rows
    const uploads = Array.from({ length: 501 }, (_, i) => newUpload(owner, new Date(at(base).getTime() + i)));
    for (let i = 0; i < uploads.length; i += 50) await Promise.all(uploads.slice(i, i + 50).map((upload) => fixture.uploads.create(upload)));
    t.is((await fixture.uploads.listExpired(at(base + 1), 1000)).filter((u) => u.userId === owner).length, 501, 'all there');
    t.is((await fixture.uploads.listExpired(at(base + 1))).length, 500);
  });

  test(`${name}: changing an object passed in or handed out changes no stored upload`, async (t) => {
    // A backend of its own: another test's rollback puts copies back in the store, which would hide a shared row.
    const own = await freshBackend(t, make);
    const { uploads } = own.repos;
    const owner = await addUser(own.repos.users);
    const hash = `blake3:${randomUUID().replace(/-/g, '')}${'d'.repeat(32)}`;
    const given = newUpload(owner, at(3000), { contentHash: hash });
    const expected = structuredClone({ ...given, usedAt: null });
    await uploads.create(given);
    given.createdAt.setTime(0);
    given.storageKey = 'changed';
    t.deepEqual(await uploads.findForUser(given.id, owner), expected, 'the created object changed afterwards');
    const handedOut = [
      (await uploads.findForUser(given.id, owner))!,
      (await uploads.findByHashForUser(hash, owner))!,
      (await uploads.listExpired(at(3001), 1000)).find((u) => u.id === given.id)!,
    ];
    for (const handed of handedOut) {
      handed.createdAt.setTime(0);
      handed.storageKey = 'changed';
    }
    t.deepEqual(await uploads.findForUser(given.id, owner), expected, 'an upload handed out changed');
    const used = at(3002);
    t.true(await uploads.markUsed(given.id, used));
    used.setTime(0);
    t.deepEqual(await uploads.findForUser(given.id, owner), { ...expected, usedAt: at(3002) }, 'the time of use changed afterwards');
  });
}
