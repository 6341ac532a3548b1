import { DataTypes, Op, QueryTypes, type Model, type Sequelize } from 'sequelize';
import type { StagedOutput, StagedOutputs } from '../../core/ports/staged-outputs.port.ts';
import { asRows, defineOnce, type RowModel } from './models.ts';
import { rowCount } from '../../core/domain/pagination.ts';
import { isUniqueViolation, sqlTime, type SqlScope } from './sql-scope.ts';

interface StagedRow {
  storage_key: string;
  job_id: string;
  run_id: string;
  created_at: Date;
}

const stagedModel = (sequelize: Sequelize): RowModel<StagedRow> =>
  defineOnce(sequelize, 'StagedOutput', () =>
    sequelize.define<Model<StagedRow, StagedRow>>(
      'StagedOutput',
      {
        storage_key: { type: DataTypes.STRING(512), primaryKey: true },
        job_id: DataTypes.UUID,
        run_id: DataTypes.STRING(36),
        created_at: DataTypes.DATE(3),
      },
      { tableName: 'staged_outputs' },
    ),
  );

const toStaged = (row: StagedRow): StagedOutput => ({ storageKey: row.storage_key, jobId: row.job_id, runId: row.run_id, createdAt: new Date(row.created_at) });

/** Orphans: the attempt no longer holds a running job, and no history row points at the file. */
const ORPHANED = `
  SELECT s.storage_key AS storage_key, s.job_id AS job_id, s.run_id AS run_id, s.created_at AS created_at
  FROM staged_outputs s
  LEFT JOIN generation_jobs j ON j.id = s.job_id
  WHERE s.created_at <= :before
    AND (j.id IS NULL OR j.status <> 'running' OR j.run_id IS NULL OR j.run_id <> s.run_id)
    AND NOT EXISTS (SELECT 1 FROM history_items h WHERE h.storage_key = s.storage_key)
  ORDER BY s.created_at ASC`;

export class SequelizeStagedOutputs implements StagedOutputs {
  constructor(private readonly scope: SqlScope) {}

  async add(entry: StagedOutput): Promise<void> {
    const row: StagedRow = { storage_key: entry.storageKey, job_id: entry.jobId, run_id: entry.runId, created_at: entry.createdAt };
    try {
      await this.scope.write((s) => stagedModel(s.sequelize).create(row, s.options));
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }

  async remove(storageKeys: readonly string[]): Promise<void> {
    if (storageKeys.length === 0) return;
    await this.scope.write((s) => stagedModel(s.sequelize).destroy({ where: { storage_key: { [Op.in]: [...storageKeys] } }, ...s.options }));
  }

  async listForRun(runId: string): Promise<StagedOutput[]> {
    const rows = await stagedModel(this.scope.sequelize).findAll({ where: { run_id: runId }, order: [['created_at', 'ASC']], raw: true, ...this.scope.options });
    return asRows<StagedRow>(rows).map(toStaged);
  }

  async listOrphaned(before: Date, max: number): Promise<StagedOutput[]> {
    const rows = await this.scope.sequelize.query<StagedRow>(`${ORPHANED} LIMIT ${rowCount(max)}`, {
      replacements: { before: sqlTime(before, this.scope.dialect) },
      type: QueryTypes.SELECT,
      ...this.scope.options,
    });
    return rows.map(toStaged);
  }
}
