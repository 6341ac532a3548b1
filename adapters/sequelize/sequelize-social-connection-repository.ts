import { DataTypes, Op, type Model, type Sequelize } from 'sequelize';
import type { SocialConnection, SocialPlatform } from '../../core/domain/social.ts';
import type { SocialConnectionRepository } from '../../core/ports/social-connection-repository.port.ts';
import { asRow, asRows, defineOnce, type RowModel } from './models.ts';
import type { SqlScope } from './sql-scope.ts';

interface ConnectionRow {
  user_id: string;
  platform: string;
  access_token: string;
  refresh_token: string | null;
  expires_at: Date | null;
  account_id: string | null;
  scope: string | null;
  version: number;
  created_at: Date;
  updated_at: Date;
}

const connectionModel = (sequelize: Sequelize): RowModel<ConnectionRow> =>
  defineOnce(sequelize, 'SocialConnection', () =>
    sequelize.define<Model<ConnectionRow, ConnectionRow>>(
      'SocialConnection',
      {
        user_id: { type: DataTypes.UUID, primaryKey: true },
        platform: { type: DataTypes.STRING(16), primaryKey: true },
        access_token: { type: DataTypes.TEXT, allowNull: false },
        refresh_token: { type: DataTypes.TEXT, allowNull: true },
        expires_at: { type: DataTypes.DATE(3), allowNull: true },
        account_id: { type: DataTypes.STRING(255), allowNull: true },
        scope: { type: DataTypes.STRING(1024), allowNull: true },
        version: { type: DataTypes.INTEGER, allowNull: false },
        created_at: { type: DataTypes.DATE(3), allowNull: false },
        updated_at: { type: DataTypes.DATE(3), allowNull: false },
      },
      { tableName: 'social_connections' },
    ),
  );

const toConnection = (row: ConnectionRow): SocialConnection => ({
  userId: row.user_id,
  platform: row.platform as SocialPlatform,
  accessToken: row.access_token,
  refreshToken: row.refresh_token,
  expiresAt: row.expires_at === null ? null : new Date(row.expires_at),
  accountId: row.account_id,
  scope: row.scope,
  version: Number(row.version),
  createdAt: new Date(row.created_at),
  updatedAt: new Date(row.updated_at),
});

export class SequelizeSocialConnectionRepository implements SocialConnectionRepository {
  constructor(private readonly scope: SqlScope) {}

  private get model(): RowModel<ConnectionRow> {
    return connectionModel(this.scope.sequelize);
  }

  async save(connection: Omit<SocialConnection, 'version'>): Promise<void> {
    const row: ConnectionRow = {
      user_id: connection.userId,
      platform: connection.platform,
      access_token: connection.accessToken,
      refresh_token: connection.refreshToken,
      expires_at: connection.expiresAt,
      account_id: connection.accountId,
      scope: connection.scope?.slice(0, 1024) ?? null,
      version: 1,
      created_at: connection.createdAt,
      updated_at: connection.updatedAt,
    };
    await this.scope.write((s) => connectionModel(s.sequelize).upsert(row, s.options));
  }

  async find(userId: string, platform: SocialPlatform): Promise<SocialConnection | null> {
    const row = await this.model.findOne({ where: { user_id: userId, platform }, raw: true, ...this.scope.options });
    return row ? toConnection(asRow<ConnectionRow>(row)) : null;
  }

  async listForUser(userId: string): Promise<SocialConnection[]> {
    const rows = await this.model.findAll({ where: { user_id: userId }, order: [['platform', 'ASC']], raw: true, ...this.scope.options });
    return asRows<ConnectionRow>(rows).map(toConnection);
  }

  async listAfter(after: { userId: string; platform: SocialPlatform } | null, max: number): Promise<SocialConnection[]> {
    const where = after
      ? { [Op.or]: [{ user_id: { [Op.gt]: after.userId } }, { user_id: after.userId, platform: { [Op.gt]: after.platform } }] }
      : {};
    const rows = await this.model.findAll({ where, order: [['user_id', 'ASC'], ['platform', 'ASC']], limit: max, raw: true, ...this.scope.options });
    return asRows<ConnectionRow>(rows).map(toConnection);
  }

  async replaceTokens(
    userId: string,
    platform: SocialPlatform,
    fromVersion: number,
    tokens: Pick<SocialConnection, 'accessToken' | 'refreshToken' | 'expiresAt' | 'updatedAt'>,
  ): Promise<boolean> {
    const [changed] = await this.scope.write((s) =>
      connectionModel(s.sequelize).update(
        { access_token: tokens.accessToken, refresh_token: tokens.refreshToken, expires_at: tokens.expiresAt, updated_at: tokens.updatedAt, version: fromVersion + 1 },
        { where: { user_id: userId, platform, version: fromVersion }, ...s.options },
      ),
    );
    return changed > 0;
  }

  async delete(userId: string, platform: SocialPlatform): Promise<SocialConnection | null> {
    return this.scope.atomic(async (s) => {
      const lock = s.dialect === 'mysql';
      const row = await connectionModel(s.sequelize).findOne({ where: { user_id: userId, platform }, raw: true, ...(lock ? { lock: true } : {}), ...s.options });
      if (!row) return null;
      await connectionModel(s.sequelize).destroy({ where: { user_id: userId, platform }, ...s.options });
      return toConnection(asRow<ConnectionRow>(row));
    });
  }
}
