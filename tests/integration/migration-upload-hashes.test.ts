/**
 * Migration 019 on a database that already holds uploads, including one of the previous release that had already
 * run 020 (019 was listed later, before it): old uploads keep every field with no hash and are not found by hash,
 * a new one is found by its owner only, and `down` drops the columns with the uploads intact.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { QueryTypes } from 'sequelize';
import { MIGRATIONS } from '../../adapters/sequelize/migrations/index.ts';
import { SequelizeUploadRepository } from '../../adapters/sequelize/sequelize-upload-repository.ts';
import { DATABASES } from '../support/databases.ts';
import { bareScope, migrationAndBefore, openEmptyDatabase } from '../support/migration-databases.ts';

const { before, migration: uploadHashes } = migrationAndBefore('019-upload-hashes');
const later = MIGRATIONS.slice(MIGRATIONS.indexOf(uploadHashes) + 1);
const HASH = `blake3:${'ab'.repeat(32)}`;

for (const name of DATABASES) {
  test(`[${name}] 019 after the later migrations: old uploads have no hash, new ones are found by hash per owner, down keeps the uploads`, async (t) => {
    const { sequelize, dialect, dispose } = await openEmptyDatabase(name);
    t.teardown(dispose);
    const qi = sequelize.getQueryInterface();
    for (const migration of [...before, ...later]) await migration.up(qi, dialect);

    const at = '2026-01-01 10:00:00.000';
    const insert = (sql: string, replacements: unknown[]) => sequelize.query(sql, { replacements, type: QueryTypes.INSERT });
    const addUser = async () => {
      const id = randomUUID();
      await insert('INSERT INTO users (id, email, display_name, role, coin_balance, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [id, `${id}@example.com`, 'U', 'user', 100, null, at, at]);
      return id;
    };
    const owner = await addUser();
    const other = await addUser();
    const old = randomUUID();
    await insert('INSERT INTO uploads (id, user_id, storage_key, mime_type, width, height, size_bytes, created_at, used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', [old, owner, `uploads/${owner}/${old}.png`, 'image/png', 3, 2, 99, at, null]);

    await uploadHashes.up(qi, dialect);
    const scope = bareScope(sequelize, dialect);
    const uploads = new SequelizeUploadRepository(scope);
    t.like(await uploads.findForUser(old, owner), { id: old, width: 3, height: 2, sizeBytes: 99, contentHash: null, fileName: null, usedAt: null });
    const fresh = randomUUID();
    await uploads.create({ id: fresh, userId: owner, storageKey: `uploads/${owner}/${fresh}.png`, mimeType: 'image/png', width: 1, height: 1, sizeBytes: 5, createdAt: new Date(), contentHash: HASH, fileName: 'a.png' });
    t.like(await uploads.findByHashForUser(HASH, owner), { id: fresh, contentHash: HASH, fileName: 'a.png' });
    t.is(await uploads.findByHashForUser(HASH, other), null);

    await uploadHashes.down(qi, dialect);
    const columns = Object.keys(await qi.describeTable('uploads'));
    t.false(columns.includes('content_hash'));
    t.false(columns.includes('file_name'));
    const kept = await sequelize.query<{ id: string }>('SELECT id FROM uploads', { type: QueryTypes.SELECT });
    t.deepEqual(kept.map((row) => row.id).sort(), [old, fresh].sort());
  });
}
