import { DataTypes, Model, type ModelStatic, type Sequelize } from 'sequelize';

/**
 * Row models. Sequelize's `define` keeps this dialect-neutral; the schema itself is owned by the
 * migrations, never by sync().
 */
export interface UserRow {
  id: string;
  email: string;
  display_name: string;
  role: string;
  coin_balance: number;
  password_hash: string | null;
  /** Migration 026 (ADR 062): the live password reset link of the user, if any. */
  password_reset_hash?: string | null;
  password_reset_expires_at?: Date | null;
  /** Migration 028 (ADR 065): a pending change of email, made once its link is used. */
  pending_email?: string | null;
  email_change_hash?: string | null;
  email_change_expires_at?: Date | null;
  /** Migration 027 (ADR 063): when the account was deleted; the purge removes the row. */
  deleted_at?: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface SessionRow {
  id: string;
  user_id: string;
  family_id: string;
  token_hash: string;
  expires_at: Date;
  rotated_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

export interface CoinTransactionRow {
  id: string;
  user_id: string;
  amount: number;
  reason: string;
  related_entity_id: string | null;
  balance_after: number;
  actor_id: string | null;
  created_at: Date;
}

export type RowModel<T extends object> = ModelStatic<Model<T, T>>;

const models = new WeakMap<Sequelize, Map<string, unknown>>();

/** Defines (once per Sequelize instance) and returns a model. */
export function defineOnce<T extends object>(sequelize: Sequelize, name: string, define: () => RowModel<T>): RowModel<T> {
  let byName = models.get(sequelize);
  if (!byName) {
    byName = new Map();
    models.set(sequelize, byName);
  }
  const existing = byName.get(name);
  if (existing) return existing as RowModel<T>;
  const model = define();
  byName.set(name, model);
  return model;
}

const date = (allowNull = false) => ({ type: DataTypes.DATE(3), allowNull });

export const userModel = (sequelize: Sequelize): RowModel<UserRow> =>
  defineOnce(sequelize, 'User', () =>
    sequelize.define<Model<UserRow, UserRow>>(
      'User',
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        email: { type: DataTypes.STRING(254), allowNull: false },
        display_name: { type: DataTypes.STRING(64), allowNull: false },
        role: { type: DataTypes.STRING(16), allowNull: false },
        coin_balance: { type: DataTypes.INTEGER, allowNull: false },
        password_hash: { type: DataTypes.STRING(255), allowNull: true },
        password_reset_hash: { type: DataTypes.STRING(64), allowNull: true },
        password_reset_expires_at: date(true),
        pending_email: { type: DataTypes.STRING(254), allowNull: true },
        email_change_hash: { type: DataTypes.STRING(64), allowNull: true },
        email_change_expires_at: date(true),
        deleted_at: date(true),
        created_at: date(),
        updated_at: date(),
      },
      { tableName: 'users' },
    ),
  );

export const sessionModel = (sequelize: Sequelize): RowModel<SessionRow> =>
  defineOnce(sequelize, 'RefreshSession', () =>
    sequelize.define<Model<SessionRow, SessionRow>>(
      'RefreshSession',
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        user_id: { type: DataTypes.UUID, allowNull: false },
        family_id: { type: DataTypes.UUID, allowNull: false },
        token_hash: { type: DataTypes.STRING(64), allowNull: false },
        expires_at: date(),
        rotated_at: date(true),
        revoked_at: date(true),
        created_at: date(),
      },
      { tableName: 'refresh_sessions' },
    ),
  );

export const coinTransactionModel = (sequelize: Sequelize): RowModel<CoinTransactionRow> =>
  defineOnce(sequelize, 'CoinTransaction', () =>
    sequelize.define<Model<CoinTransactionRow, CoinTransactionRow>>(
      'CoinTransaction',
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        user_id: { type: DataTypes.UUID, allowNull: false },
        amount: { type: DataTypes.INTEGER, allowNull: false },
        reason: { type: DataTypes.STRING(32), allowNull: false },
        related_entity_id: { type: DataTypes.STRING(128), allowNull: true },
        balance_after: { type: DataTypes.INTEGER, allowNull: false },
        actor_id: { type: DataTypes.UUID, allowNull: true },
        created_at: date(),
      },
      { tableName: 'coin_transactions' },
    ),
  );

/** Queries run with `raw: true` return plain rows even though Sequelize types them as models. */
export const asRow = <T>(row: unknown): T => row as T;
export const asRows = <T>(rows: unknown): T[] => rows as T[];
