import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

/** Input images (POST /uploads). The sweeper finds old unused rows through uploads_unused_created. */
export const uploads: Migration = {
  name: '005-uploads',
  async up(qi) {
    await qi.createTable('uploads', {
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      user_id: { type: DataTypes.UUID, allowNull: false, references: { model: 'users', key: 'id' }, onDelete: 'CASCADE' },
      storage_key: { type: DataTypes.STRING(1024), allowNull: false },
      mime_type: { type: DataTypes.STRING(64), allowNull: false },
      width: { type: DataTypes.INTEGER, allowNull: false },
      height: { type: DataTypes.INTEGER, allowNull: false },
      // MAX_UPLOAD_MB is at most 1024, so an INTEGER holds any size.
      size_bytes: { type: DataTypes.INTEGER, allowNull: false },
      created_at: { type: DataTypes.DATE(3), allowNull: false },
      used_at: { type: DataTypes.DATE(3), allowNull: true },
    });
    await qi.addIndex('uploads', ['user_id'], { name: 'uploads_user' });
    await qi.addIndex('uploads', ['used_at', 'created_at'], { name: 'uploads_unused_created' });
  },
  async down(qi) {
    await qi.dropTable('uploads');
  },
};
