import { DataTypes, type Model, type Sequelize } from 'sequelize';
import type { IdentityRepository, LinkedIdentity } from '../../core/ports/identity-repository.port.ts';
import { asRow, asRows, defineOnce, type RowModel } from './models.ts';
import { isUniqueViolation, type SqlScope } from './sql-scope.ts';

interface IdentityRow {
  provider: string;
  subject: string;
  user_id: string;
  email: string | null;
  created_at: Date;
}

const identityModel = (sequelize: Sequelize): RowModel<IdentityRow> =>
  defineOnce(sequelize, 'UserIdentity', () =>
    sequelize.define<Model<IdentityRow, IdentityRow>>(
      'UserIdentity',
      {
        provider: { type: DataTypes.STRING(64), primaryKey: true },
        subject: { type: DataTypes.STRING(255), primaryKey: true },
        user_id: { type: DataTypes.UUID, allowNull: false },
        email: { type: DataTypes.STRING(254), allowNull: true },
        created_at: { type: DataTypes.DATE(3), allowNull: false },
      },
      { tableName: 'user_identities' },
    ),
  );

const toIdentity = (row: IdentityRow): LinkedIdentity => ({
  userId: row.user_id,
  provider: row.provider,
  subject: row.subject,
  email: row.email,
  createdAt: new Date(row.created_at),
});

export class SequelizeIdentityRepository implements IdentityRepository {
  constructor(private readonly scope: SqlScope) {}

  private get identities(): RowModel<IdentityRow> {
    return identityModel(this.scope.sequelize);
  }

  async link(identity: LinkedIdentity): Promise<boolean> {
    const row: IdentityRow = { provider: identity.provider, subject: identity.subject, user_id: identity.userId, email: identity.email, created_at: identity.createdAt };
    try {
      await this.scope.write((s) => identityModel(s.sequelize).create(row, s.options));
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async findBySubject(provider: string, subject: string): Promise<LinkedIdentity | null> {
    const row = await this.identities.findOne({ where: { provider, subject }, raw: true, ...this.scope.options });
    return row ? toIdentity(asRow<IdentityRow>(row)) : null;
  }

  async listForUser(userId: string): Promise<LinkedIdentity[]> {
    // FOR UPDATE on MariaDB inside a transaction; SQLite's transactions run one at a time already.
    const lock = this.scope.inTransaction && this.scope.dialect === 'mysql';
    const rows = await this.identities.findAll({
      where: { user_id: userId },
      order: [['created_at', 'ASC'], ['provider', 'ASC']],
      raw: true,
      ...(lock ? { lock: true } : {}),
      ...this.scope.options,
    });
    return asRows<IdentityRow>(rows).map(toIdentity);
  }

  async unlink(userId: string, provider: string): Promise<boolean> {
    const deleted = await this.scope.write((s) => identityModel(s.sequelize).destroy({ where: { user_id: userId, provider }, ...s.options }));
    return deleted > 0;
  }

  async unlinkAll(userId: string): Promise<number> {
    return this.scope.write((s) => identityModel(s.sequelize).destroy({ where: { user_id: userId }, ...s.options }));
  }
}
