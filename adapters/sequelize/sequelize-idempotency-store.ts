import { DataTypes, Op, type Model, type Sequelize } from 'sequelize';
import type {
  ClaimOutcome,
  IdempotencyClaim,
  IdempotencyRecord,
  IdempotencyStore,
  StoredResponse,
} from '../../core/ports/idempotency-store.port.ts';
import { asRow, defineOnce, type RowModel } from './models.ts';
import { isUniqueViolation, type SqlScope } from './sql-scope.ts';

interface IdempotencyRow {
  user_id: string;
  idem_key: string;
  fingerprint: string;
  token: string;
  response_status: number | null;
  response_body: string | null;
  claimed_at: Date;
  completed_at: Date | null;
  expires_at: Date;
}

type Owner = Pick<IdempotencyClaim, 'userId' | 'key' | 'token'>;

const idempotencyModel = (sequelize: Sequelize): RowModel<IdempotencyRow> =>
  defineOnce(sequelize, 'IdempotencyKey', () =>
    sequelize.define<Model<IdempotencyRow, IdempotencyRow>>(
      'IdempotencyKey',
      {
        user_id: { type: DataTypes.UUID, primaryKey: true },
        idem_key: { type: DataTypes.STRING(128).BINARY, primaryKey: true },
        fingerprint: { type: DataTypes.STRING(64), allowNull: false },
        token: { type: DataTypes.UUID, allowNull: false },
        response_status: { type: DataTypes.INTEGER, allowNull: true },
        response_body: { type: DataTypes.TEXT, allowNull: true }, // LONGTEXT on MariaDB (the migration's); the model only reads and writes text
        claimed_at: { type: DataTypes.DATE(3), allowNull: false },
        completed_at: { type: DataTypes.DATE(3), allowNull: true },
        expires_at: { type: DataTypes.DATE(3), allowNull: false },
      },
      { tableName: 'idempotency_keys' },
    ),
  );

const toRecord = (row: IdempotencyRow): IdempotencyRecord => ({
  userId: row.user_id,
  key: row.idem_key,
  fingerprint: row.fingerprint,
  token: row.token,
  claimedAt: new Date(row.claimed_at),
  expiresAt: new Date(row.expires_at),
  completedAt: row.completed_at ? new Date(row.completed_at) : null,
  response:
    row.response_status === null ? null : { status: Number(row.response_status), body: row.response_body === null ? null : JSON.parse(row.response_body) },
});

const fresh = (claim: IdempotencyClaim): IdempotencyRow => ({
  user_id: claim.userId,
  idem_key: claim.key,
  fingerprint: claim.fingerprint,
  token: claim.token,
  response_status: null,
  response_body: null,
  claimed_at: claim.claimedAt,
  completed_at: null,
  expires_at: claim.expiresAt,
});

/** Every write goes through `scope.write`, so on SQLite it queues on the one writer instead of busy-waiting. */
export class SequelizeIdempotencyStore implements IdempotencyStore {
  constructor(private readonly scope: SqlScope) {}

  async claim(claim: IdempotencyClaim): Promise<ClaimOutcome> {
    // The primary key (user, key) is the lock: exactly one insert wins. A loser reads the winner's row;
    // if that row vanished in between (released), it tries again.
    for (;;) {
      try {
        await this.scope.write((s) => idempotencyModel(s.sequelize).create(fresh(claim), s.options));
        return { claimed: true };
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
      const existing = await this.find(claim.userId, claim.key);
      if (existing) return { claimed: false, existing };
    }
  }

  async find(userId: string, key: string): Promise<IdempotencyRecord | null> {
    const row = await idempotencyModel(this.scope.sequelize).findOne({ where: { user_id: userId, idem_key: key }, raw: true, ...this.scope.options });
    return row ? toRecord(asRow<IdempotencyRow>(row)) : null;
  }

  async replace(seen: Pick<IdempotencyRecord, 'token' | 'completedAt'>, claim: IdempotencyClaim): Promise<boolean> {
    const [changed] = await this.scope.write((s) =>
      idempotencyModel(s.sequelize).update(fresh(claim), {
        where: {
          user_id: claim.userId,
          idem_key: claim.key,
          token: seen.token,
          completed_at: seen.completedAt === null ? { [Op.is]: null } : { [Op.not]: null },
        },
        ...s.options,
      }),
    );
    return changed === 1;
  }

  async complete(owner: Owner, response: StoredResponse, at: Date): Promise<boolean> {
    const [changed] = await this.scope.write((s) =>
      idempotencyModel(s.sequelize).update(
        { response_status: response.status, response_body: JSON.stringify(response.body ?? null), completed_at: at },
        { where: { ...this.ownerWhere(owner), completed_at: { [Op.is]: null } }, ...s.options },
      ),
    );
    return changed === 1;
  }

  async release(owner: Owner): Promise<void> {
    await this.scope.write((s) => idempotencyModel(s.sequelize).destroy({ where: { ...this.ownerWhere(owner), completed_at: { [Op.is]: null } }, ...s.options }));
  }

  async purgeExpired(now: Date): Promise<number> {
    return this.scope.write((s) => idempotencyModel(s.sequelize).destroy({ where: { expires_at: { [Op.lte]: now } }, ...s.options }));
  }

  private ownerWhere(owner: Owner) {
    return { user_id: owner.userId, idem_key: owner.key, token: owner.token };
  }
}
