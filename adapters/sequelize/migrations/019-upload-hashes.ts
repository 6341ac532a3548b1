import { DataTypes } from 'sequelize';
import type { Migration } from './migration.ts';

/**
 * Content addressing of uploads (ADR 042): the blake3 of each upload's bytes (`blake3:<hex>`) and the file name the
 * client gave, so that a Comfy API v2 client finds its bytes by hash. Looked up per user only: the index starts with
 * the owner. Uploads stored before have no hash (null).
 */
export const uploadHashes: Migration = {
  name: '019-upload-hashes',
  async up(qi) {
    await qi.addColumn('uploads', 'content_hash', { type: DataTypes.STRING(80), allowNull: true });
    await qi.addColumn('uploads', 'file_name', { type: DataTypes.STRING(255), allowNull: true });
    await qi.addIndex('uploads', ['user_id', 'content_hash'], { name: 'uploads_user_hash' });
  },
  async down(qi) {
    await qi.removeIndex('uploads', 'uploads_user_hash');
    await qi.removeColumn('uploads', 'file_name');
    await qi.removeColumn('uploads', 'content_hash');
  },
};
