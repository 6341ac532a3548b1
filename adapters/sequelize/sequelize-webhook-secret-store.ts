import { DataTypes, type Model, type Sequelize } from 'sequelize';
import type { WebhookSecretRecord, WebhookSecretStore } from '../../core/ports/webhook-secret-store.port.ts';
import { asRow, defineOnce, type RowModel } from './models.ts';
import { isUniqueViolation, type SqlScope } from './sql-scope.ts';

interface SecretRow {
  user_id: string;
  secret: string;
  previous_secret: string | null;
  previous_until: Date | null;
  created_at: Date;
  rotated_at: Date | null;
}

const secretModel = (sequelize: Sequelize): RowModel<SecretRow> =>
  defineOnce(sequelize, 'WebhookSecret', () =>
    sequelize.define<Model<SecretRow, SecretRow>>(
      'WebhookSecret',
      {
        user_id: { type: DataTypes.UUID, primaryKey: true },
        secret: { type: DataTypes.STRING(64), allowNull: false },
        previous_secret: { type: DataTypes.STRING(64), allowNull: true },
        previous_until: { type: DataTypes.DATE(3), allowNull: true },
        created_at: { type: DataTypes.DATE(3), allowNull: false },
        rotated_at: { type: DataTypes.DATE(3), allowNull: true },
      },
      { tableName: 'webhook_secrets' },
    ),
  );

const toRecord = (row: SecretRow): WebhookSecretRecord => ({
  userId: row.user_id,
  secret: row.secret,
  previousSecret: row.previous_secret,
  previousUntil: row.previous_until === null ? null : new Date(row.previous_until),
  createdAt: new Date(row.created_at),
  rotatedAt: row.rotated_at === null ? null : new Date(row.rotated_at),
});

export class SequelizeWebhookSecretStore implements WebhookSecretStore {
  constructor(private readonly scope: SqlScope) {}

  private get model(): RowModel<SecretRow> {
    return secretModel(this.scope.sequelize);
  }

  async find(userId: string): Promise<WebhookSecretRecord | null> {
    const row = await this.model.findByPk(userId, this.scope.options);
    return row ? toRecord(asRow(row)) : null;
  }

  async createIfMissing(userId: string, secret: string, at: Date): Promise<WebhookSecretRecord> {
    try {
      await this.scope.write((s) =>
        secretModel(s.sequelize).create({ user_id: userId, secret, previous_secret: null, previous_until: null, created_at: at, rotated_at: null }, s.options),
      );
    } catch (error) {
      // Another request created the user's secret first: theirs stands.
      if (!isUniqueViolation(error)) throw error;
    }
    const stored = await this.find(userId);
    if (!stored) throw new Error(`webhook secret of user ${userId} is missing right after it was created`);
    return stored;
  }

  async rotate(userId: string, expected: string, next: string, previousUntil: Date, at: Date): Promise<boolean> {
    const [changed] = await this.scope.write((s) =>
      secretModel(s.sequelize).update(
        { secret: next, previous_secret: expected, previous_until: previousUntil, rotated_at: at },
        { where: { user_id: userId, secret: expected }, ...s.options },
      ),
    );
    return changed === 1;
  }
}
