import { DataTypes, Op, type Model, type Sequelize } from 'sequelize';
import type { Upload, UploadRepository } from '../../core/ports/upload-repository.port.ts';
import { asRow, asRows, defineOnce, type RowModel } from './models.ts';
import type { SqlScope } from './sql-scope.ts';

export interface UploadRow {
  id: string;
  user_id: string;
  storage_key: string;
  mime_type: string;
  width: number;
  height: number;
  size_bytes: number;
  created_at: Date;
  used_at: Date | null;
  content_hash: string | null;
  file_name: string | null;
}

export const uploadModel = (sequelize: Sequelize): RowModel<UploadRow> =>
  defineOnce(sequelize, 'Upload', () =>
    sequelize.define<Model<UploadRow, UploadRow>>(
      'Upload',
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        user_id: { type: DataTypes.UUID, allowNull: false },
        storage_key: { type: DataTypes.STRING(1024), allowNull: false },
        mime_type: { type: DataTypes.STRING(64), allowNull: false },
        width: { type: DataTypes.INTEGER, allowNull: false },
        height: { type: DataTypes.INTEGER, allowNull: false },
        size_bytes: { type: DataTypes.INTEGER, allowNull: false },
        created_at: { type: DataTypes.DATE(3), allowNull: false },
        used_at: { type: DataTypes.DATE(3), allowNull: true },
        content_hash: { type: DataTypes.STRING(80), allowNull: true },
        file_name: { type: DataTypes.STRING(255), allowNull: true },
      },
      { tableName: 'uploads' },
    ),
  );

const toUpload = (row: UploadRow): Upload => ({
  id: row.id,
  userId: row.user_id,
  storageKey: row.storage_key,
  mimeType: row.mime_type,
  width: Number(row.width),
  height: Number(row.height),
  sizeBytes: Number(row.size_bytes),
  createdAt: new Date(row.created_at),
  usedAt: row.used_at ? new Date(row.used_at) : null,
  contentHash: row.content_hash ?? null,
  fileName: row.file_name ?? null,
});

export class SequelizeUploadRepository implements UploadRepository {
  constructor(private readonly scope: SqlScope) {}

  private get uploads(): RowModel<UploadRow> {
    return uploadModel(this.scope.sequelize);
  }

  async create(upload: Omit<Upload, 'usedAt'>): Promise<void> {
    const row: UploadRow = {
      id: upload.id,
      user_id: upload.userId,
      storage_key: upload.storageKey,
      mime_type: upload.mimeType,
      width: upload.width,
      height: upload.height,
      size_bytes: upload.sizeBytes,
      created_at: upload.createdAt,
      used_at: null,
      content_hash: upload.contentHash,
      file_name: upload.fileName,
    };
    await this.scope.write((s) => uploadModel(s.sequelize).create(row, s.options));
  }

  async findForUser(id: string, userId: string): Promise<Upload | null> {
    const row = await this.uploads.findOne({ where: { id, user_id: userId }, raw: true, ...this.scope.options });
    return row ? toUpload(asRow<UploadRow>(row)) : null;
  }

  async findByHashForUser(contentHash: string, userId: string): Promise<Upload | null> {
    const row = await this.uploads.findOne({
      where: { user_id: userId, content_hash: contentHash },
      order: [['created_at', 'DESC'], ['id', 'DESC']],
      raw: true,
      ...this.scope.options,
    });
    return row ? toUpload(asRow<UploadRow>(row)) : null;
  }

  async markUsed(id: string, at: Date): Promise<boolean> {
    const [changed] = await this.scope.write((s) => uploadModel(s.sequelize).update({ used_at: at }, { where: { id, used_at: null }, ...s.options }));
    if (changed > 0) return true;
    return (await this.uploads.count({ where: { id }, ...this.scope.options })) > 0;
  }

  async listForUser(userId: string, limit: number): Promise<Upload[]> {
    const rows = await this.uploads.findAll({ where: { user_id: userId }, order: [['created_at', 'ASC'], ['id', 'ASC']], limit, raw: true, ...this.scope.options });
    return asRows<UploadRow>(rows).map(toUpload);
  }

  async listExpired(before: Date, limit = 500): Promise<Upload[]> {
    const rows = await this.uploads.findAll({
      where: { used_at: null, created_at: { [Op.lt]: before } },
      order: [['created_at', 'ASC']],
      limit,
      raw: true,
      ...this.scope.options,
    });
    return asRows<UploadRow>(rows).map(toUpload);
  }

  async delete(id: string, options: { onlyIfUnused?: boolean } = {}): Promise<boolean> {
    const where = options.onlyIfUnused ? { id, used_at: null } : { id };
    const deleted = await this.scope.write((s) => uploadModel(s.sequelize).destroy({ where, ...s.options }));
    return deleted > 0;
  }
}
