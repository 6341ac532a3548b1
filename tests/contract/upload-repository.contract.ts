import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { Upload, UploadRepository } from '../../core/ports/upload-repository.port.ts';

export interface UploadRepositoryFixture {
  uploads: UploadRepository;
  /** Creates a user row (the sequelize table has a foreign key to users); returns its id. */
  addUser(): Promise<string>;
  dispose(): Promise<void>;
}

const T0 = new Date('2030-01-01T00:00:00.000Z');
const at = (hours: number): Date => new Date(T0.getTime() + hours * 3600_000);

/** Registers the UploadRepository contract for one adapter. */
export function uploadRepositoryContract(name: string, make: () => Promise<UploadRepositoryFixture>): void {
  let fixture: UploadRepositoryFixture;
  test.before(async () => {
    fixture = await make();
  });
  test.after.always(async () => {
    await fixture?.dispose();
  });

  const newUpload = (userId: string, createdAt: Date, overrides: Partial<Upload> = {}): Omit<Upload, 'usedAt'> => {
    const id = randomUUID();
    return { id, userId, storageKey: `uploads/${userId}/${id}.png`, mimeType: 'image/png', width: 640, height: 480, sizeBytes: 123_456, createdAt, ...overrides };
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
}
