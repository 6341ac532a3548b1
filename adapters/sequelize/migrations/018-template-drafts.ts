import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

/**
 * Templates become drafts until an administrator publishes them (ADR 039). Every template that existed before
 * was already offered to users, so it is published as of its creation: an upgrade changes nothing users see.
 */
export const templateDrafts: Migration = {
  name: '018-template-drafts',
  async up(qi) {
    await qi.addColumn('templates', 'published_at', { type: DataTypes.DATE(3), allowNull: true });
    await qi.sequelize.query('UPDATE templates SET published_at = created_at');
  },
  async down(qi) {
    await qi.removeColumn('templates', 'published_at');
  },
};
