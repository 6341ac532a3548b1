/**
 * Migration 018 on a database that already holds templates: every one of them was offered to users before drafts
 * existed, so each comes out published as of its creation (deactivated and deleted ones keep those states);
 * `down` drops the column again.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { QueryTypes } from 'sequelize';
import { DATABASES } from '../support/databases.ts';
import { migrationAndBefore, openEmptyDatabase } from '../support/migration-databases.ts';

const { before, migration: templateDrafts } = migrationAndBefore('018-template-drafts');

for (const name of DATABASES) {
  test(`[${name}] 018 publishes every existing template as of its creation; down drops the column`, async (t) => {
    const { sequelize, dialect, dispose } = await openEmptyDatabase(name);
    t.teardown(dispose);
    const qi = sequelize.getQueryInterface();
    for (const migration of before) await migration.up(qi, dialect);

    const workflow = JSON.stringify({ '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } } });
    const rows = [
      { id: randomUUID(), created: '2026-01-01 10:00:00.000', active: 1, deleted: null },
      { id: randomUUID(), created: '2026-02-03 04:05:06.789', active: 0, deleted: null },
      { id: randomUUID(), created: '2026-03-01 00:00:00.000', active: 1, deleted: '2026-03-02 00:00:00.000' },
    ];
    for (const row of rows) {
      await sequelize.query(
        'INSERT INTO templates (id, name, active_name, description, category, workflow, parameter_map, cost, output_type, is_active, version, created_at, updated_at, deleted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        { replacements: [row.id, `T ${row.id}`, row.deleted ? null : `t ${row.id}`, null, 'text-to-image', workflow, '{}', 1, 'image', row.active, 1, row.created, row.created, row.deleted], type: QueryTypes.INSERT },
      );
    }

    await templateDrafts.up(qi, dialect);
    const migrated = await sequelize.query<{ id: string; is_active: number | boolean; published_at: string | Date | null; deleted_at: string | Date | null }>(
      'SELECT id, is_active, published_at, deleted_at FROM templates',
      { type: QueryTypes.SELECT },
    );
    const byId = new Map(migrated.map((row) => [row.id, row]));
    t.is(migrated.length, 3);
    const iso = (value: string | Date | null) => (value === null ? null : new Date(value instanceof Date ? value : `${value.replace(' ', 'T')}Z`).toISOString());
    t.deepEqual(
      rows.map((row) => [iso(byId.get(row.id)!.published_at), Number(byId.get(row.id)!.is_active), iso(byId.get(row.id)!.deleted_at)]),
      [
        ['2026-01-01T10:00:00.000Z', 1, null],
        ['2026-02-03T04:05:06.789Z', 0, null],
        ['2026-03-01T00:00:00.000Z', 1, '2026-03-02T00:00:00.000Z'],
      ],
    );

    await templateDrafts.down(qi, dialect);
    const columns = Object.keys(await qi.describeTable('templates'));
    t.false(columns.includes('published_at'));
    t.true(columns.includes('is_active'));
  });
}
