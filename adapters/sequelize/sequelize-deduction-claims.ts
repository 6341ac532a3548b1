import { DataTypes, QueryTypes, UniqueConstraintError, type Model, type Sequelize } from 'sequelize';
import type { DeductionClaims } from '../../core/ports/deduction-claims.port.ts';
import { defineOnce, type RowModel } from './models.ts';
import { sqlTime, type SqlScope } from './sql-scope.ts';

interface ClaimRow {
  deduction_id: string;
  outcome: string;
  job_id: string | null;
  created_at: Date;
}

const claimModel = (sequelize: Sequelize): RowModel<ClaimRow> =>
  defineOnce(sequelize, 'DeductionClaim', () =>
    sequelize.define<Model<ClaimRow, ClaimRow>>(
      'DeductionClaim',
      {
        deduction_id: { type: DataTypes.UUID, primaryKey: true },
        outcome: DataTypes.STRING(16),
        job_id: DataTypes.UUID,
        created_at: DataTypes.DATE(3),
      },
      { tableName: 'deduction_claims' },
    ),
  );

// A user's own generation deduction linked to a request, with no ending yet.
const UNCLAIMED = `
  SELECT t.id AS id, t.user_id AS user_id, t.amount AS amount, t.related_entity_id AS related_entity_id
  FROM coin_transactions t
  LEFT JOIN deduction_claims c ON c.deduction_id = t.id
  WHERE c.deduction_id IS NULL
    AND t.amount < 0
    AND t.reason IN ('image_generation', 'video_generation')
    AND t.related_entity_id IS NOT NULL`;

export class SequelizeDeductionClaims implements DeductionClaims {
  constructor(private readonly scope: SqlScope) {}

  async claim(deductionId: string, outcome: 'job' | 'refunded', jobId: string | null, at: Date): Promise<boolean> {
    try {
      await this.scope.write((s) => claimModel(s.sequelize).create({ deduction_id: deductionId, outcome, job_id: jobId, created_at: at }, s.options));
      return true;
    } catch (error) {
      if (error instanceof UniqueConstraintError) return false;
      throw error;
    }
  }

  async listUnclaimed(before: Date, max: number) {
    const rows = await this.scope.sequelize.query<{ id: string; user_id: string; amount: number; related_entity_id: string }>(
      `${UNCLAIMED} AND t.created_at <= :before ORDER BY t.created_at ASC LIMIT ${Math.max(1, Math.floor(max))}`,
      { replacements: { before: sqlTime(before, this.scope.dialect) }, type: QueryTypes.SELECT, ...this.scope.options },
    );
    return rows.map((row) => ({ id: row.id, userId: row.user_id, amount: -Number(row.amount), relatedEntityId: row.related_entity_id }));
  }

  async findUnclaimed(userId: string, relatedEntityId: string) {
    const rows = await this.scope.sequelize.query<{ id: string; amount: number }>(
      `${UNCLAIMED} AND t.user_id = :userId AND t.related_entity_id = :relatedEntityId ORDER BY t.created_at ASC LIMIT 1`,
      { replacements: { userId, relatedEntityId }, type: QueryTypes.SELECT, ...this.scope.options },
    );
    const row = rows[0];
    return row ? { id: row.id, amount: -Number(row.amount) } : null;
  }
}
