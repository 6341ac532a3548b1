import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { Upload, UploadRepository } from '../../core/ports/upload-repository.port.ts';
import type { UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import { addUser, sharedBackend, type MakeBackend } from './fixtures.ts';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const at = (hours: number): Date => new Date(T0.getTime() + hours * 3600_000);

/** Registers the UploadRepository contract for one backend; `make()` returns a fresh, empty backend. */
export function uploadRepositoryContract(name: string, make: MakeBackend): void {
  const backend = sharedBackend(make);
  let fixture: { uploads: UploadRepository; uow: UnitOfWork; addUser(): Promise<string> };
  test.before(async () => {
    const { repos, uow } = await backend();
    // Every upload belongs to a user row (a foreign key on the SQL backends).
    fixture = { uploads: repos.uploads, uow, addUser: () => addUser(repos.users) };
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
}
