import { DataTypes } from 'sequelize';
import { longText, type Migration } from './migration.ts';

const timestamp = (allowNull = false) => ({ type: DataTypes.DATE(3), allowNull });
/** LONGTEXT on MariaDB (TEXT stops at 64 KiB); SQLite's TEXT has no limit and takes no length option. */
const jsonText = (dialect: 'sqlite' | 'mysql') => ({ type: longText(dialect), allowNull: false });

/**
 * Workflow templates (soft-deleted) and every version of their workflow and parameter map.
 * `active_name` holds the lower-cased name while the template is live and NULL once deleted: the unique
 * index then keeps live names unique and lets a deleted template's name be used again (both dialects
 * allow many NULLs in a unique index). It is binary so that MariaDB's collation folds nothing more than
 * the application already did (SQLite compares bytes).
 */
export const templates: Migration = {
  name: '003-templates',
  async up(qi, dialect) {
    await qi.createTable('templates', {
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      name: { type: DataTypes.STRING(100), allowNull: false },
      active_name: { type: DataTypes.STRING(100).BINARY, allowNull: true },
      description: { type: DataTypes.TEXT, allowNull: true },
      category: { type: DataTypes.STRING(32), allowNull: false },
      workflow: jsonText(dialect),
      parameter_map: jsonText(dialect),
      cost: { type: DataTypes.INTEGER, allowNull: false },
      output_type: { type: DataTypes.STRING(16), allowNull: false },
      is_active: { type: DataTypes.BOOLEAN, allowNull: false },
      version: { type: DataTypes.INTEGER, allowNull: false },
      created_at: timestamp(),
      updated_at: timestamp(),
      deleted_at: timestamp(true),
    });
    await qi.addIndex('templates', ['active_name'], { name: 'templates_active_name', unique: true });
    await qi.addIndex('templates', ['deleted_at', 'created_at'], { name: 'templates_live_created' });

    await qi.createTable('template_versions', {
      template_id: { type: DataTypes.UUID, primaryKey: true, allowNull: false, references: { model: 'templates', key: 'id' }, onDelete: 'CASCADE' },
      version: { type: DataTypes.INTEGER, primaryKey: true, allowNull: false },
      category: { type: DataTypes.STRING(32), allowNull: false },
      workflow: jsonText(dialect),
      parameter_map: jsonText(dialect),
      cost: { type: DataTypes.INTEGER, allowNull: false },
      output_type: { type: DataTypes.STRING(16), allowNull: false },
      created_at: timestamp(),
    });
  },
  async down(qi) {
    await qi.dropTable('template_versions');
    await qi.dropTable('templates');
  },
};
