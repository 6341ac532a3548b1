import { QueryTypes } from 'sequelize';
import type { DeductionEnding, LinkedDeduction } from '../../core/domain/job-payment.ts';
import type { LinkedDeductions } from '../../core/ports/linked-deductions.port.ts';
import { rowCount } from '../../core/domain/pagination.ts';
import { selectRows, sqlTime, type SqlScope } from './sql-scope.ts';

interface LinkedRow {
  deduction_id: string;
  user_id: string;
  related_entity_id: string;
  amount: number;
  created_at: Date | string;
}

const COLUMNS = 'deduction_id, user_id, related_entity_id, amount, created_at';

const toDeduction = (row: LinkedRow): LinkedDeduction => ({
  id: row.deduction_id,
  userId: row.user_id,
  relatedEntityId: row.related_entity_id,
  amount: Number(row.amount),
  createdAt: new Date(row.created_at),
});

/** Stores what the core decides: the table holds nothing it was not told to, and an ending is written once. */
export class SequelizeLinkedDeductions implements LinkedDeductions {
  constructor(private readonly scope: SqlScope) {}

  async add(deduction: LinkedDeduction): Promise<void> {
    await this.scope.write((s) =>
      s.sequelize.query(`INSERT INTO linked_deductions (${COLUMNS}) VALUES (?, ?, ?, ?, ?)`, {
        replacements: [deduction.id, deduction.userId, deduction.relatedEntityId, deduction.amount, sqlTime(deduction.createdAt, s.dialect)],
        type: QueryTypes.INSERT,
        ...s.options,
      }),
    );
  }

  async end(deductionId: string, ending: DeductionEnding, jobId: string | null, at: Date): Promise<boolean> {
    // The guard: only an open deduction gets an ending. On MariaDB a concurrent ending waits for the row lock and
    // then sees the committed ending (an UPDATE reads the latest version), so exactly one of them changes the row.
    const changed = await this.scope.write((s) =>
      s.sequelize.query('UPDATE linked_deductions SET outcome = ?, job_id = ?, ended_at = ? WHERE deduction_id = ? AND outcome IS NULL', {
        replacements: [ending, jobId, sqlTime(at, s.dialect), deductionId],
        type: QueryTypes.BULKUPDATE,
        ...s.options,
      }),
    );
    return Number(changed) === 1;
  }

  async findOpen(userId: string, relatedEntityId: string): Promise<LinkedDeduction | null> {
    const rows = await selectRows<LinkedRow>(
      this.scope,
      `SELECT ${COLUMNS} FROM linked_deductions WHERE user_id = :userId AND related_entity_id = :relatedEntityId AND outcome IS NULL ORDER BY created_at ASC, deduction_id ASC LIMIT 1`,
      { userId, relatedEntityId },
    );
    return rows[0] ? toDeduction(rows[0]) : null;
  }

  async listOpen(before: Date, max: number): Promise<LinkedDeduction[]> {
    const rows = await selectRows<LinkedRow>(
      this.scope,
      `SELECT ${COLUMNS} FROM linked_deductions WHERE outcome IS NULL AND created_at <= :before ORDER BY created_at ASC, deduction_id ASC LIMIT ${rowCount(max)}`,
      { before: sqlTime(before, this.scope.dialect) },
    );
    return rows.map(toDeduction);
  }
}
