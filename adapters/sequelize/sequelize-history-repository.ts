import { DataTypes, Op, type Model, type Sequelize } from 'sequelize';
import type { HistoryItem } from '../../core/domain/job.ts';
import type { Page, PageRequest } from '../../core/domain/pagination.ts';
import type { HistoryRepository } from '../../core/ports/history-repository.port.ts';
import { asRow, asRows, defineOnce, type RowModel } from './models.ts';
import { isUniqueViolation, readPage, sqlIn, type SqlScope } from './sql-scope.ts';

interface HistoryRow {
  id: string;
  job_id: string;
  user_id: string;
  template_id: string | null;
  storage_key: string;
  file_name: string;
  mime_type: string;
  size_bytes: number;
  width: number | null;
  height: number | null;
  duration_seconds: number | null;
  used_parameters: string;
  created_at: Date;
  expires_at: Date;
}

/** The jobs that are test runs (few, found by the generation_jobs_test_runs index). */
const TEST_RUN_JOBS = '(SELECT id FROM generation_jobs WHERE test_run = 1)';

const historyModel = (sequelize: Sequelize): RowModel<HistoryRow> =>
  defineOnce(sequelize, 'HistoryItem', () =>
    sequelize.define<Model<HistoryRow, HistoryRow>>(
      'HistoryItem',
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        job_id: DataTypes.UUID,
        user_id: DataTypes.UUID,
        template_id: DataTypes.UUID,
        storage_key: DataTypes.STRING(512),
        file_name: DataTypes.STRING(255),
        mime_type: DataTypes.STRING(100),
        size_bytes: DataTypes.BIGINT,
        width: DataTypes.INTEGER,
        height: DataTypes.INTEGER,
        duration_seconds: DataTypes.DOUBLE,
        used_parameters: DataTypes.TEXT,
        created_at: DataTypes.DATE(3),
        expires_at: DataTypes.DATE(3),
      },
      { tableName: 'history_items' },
    ),
  );

const toItem = (row: HistoryRow): HistoryItem => ({
  id: row.id,
  jobId: row.job_id,
  userId: row.user_id,
  templateId: row.template_id,
  storageKey: row.storage_key,
  fileName: row.file_name,
  mimeType: row.mime_type,
  sizeBytes: Number(row.size_bytes),
  width: row.width === null ? null : Number(row.width),
  height: row.height === null ? null : Number(row.height),
  durationSeconds: row.duration_seconds === null ? null : Number(row.duration_seconds),
  usedParameters: JSON.parse(row.used_parameters),
  createdAt: new Date(row.created_at),
  expiresAt: new Date(row.expires_at),
});

export class SequelizeHistoryRepository implements HistoryRepository {
  constructor(private readonly scope: SqlScope) {}

  private get items(): RowModel<HistoryRow> {
    return historyModel(this.scope.sequelize);
  }

  async add(item: HistoryItem): Promise<boolean> {
    const row: HistoryRow = {
      id: item.id,
      job_id: item.jobId,
      user_id: item.userId,
      template_id: item.templateId,
      storage_key: item.storageKey,
      file_name: item.fileName,
      mime_type: item.mimeType,
      size_bytes: item.sizeBytes,
      width: item.width,
      height: item.height,
      duration_seconds: item.durationSeconds,
      used_parameters: JSON.stringify(item.usedParameters),
      created_at: item.createdAt,
      expires_at: item.expiresAt,
    };
    try {
      await this.scope.write((s) => historyModel(s.sequelize).create(row, s.options));
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async findForUser(id: string, userId: string): Promise<HistoryItem | null> {
    const row = await this.items.findOne({ where: { id, user_id: userId }, raw: true, ...this.scope.options });
    return row ? toItem(asRow<HistoryRow>(row)) : null;
  }

  async listForUser(userId: string, request: PageRequest): Promise<Page<HistoryItem>> {
    // Outputs of test runs are the administrators' (ADR 043), read through GET /admin/templates/{id}/test-runs.
    // Plain SQL on the driver: the history page is polled like the job list.
    const mine = `FROM history_items WHERE user_id = ? AND job_id NOT IN ${TEST_RUN_JOBS}`;
    const page = await readPage<HistoryRow>(this.scope, { columns: '*', from: mine, orderBy: 'created_at DESC, id DESC', params: [userId] }, request);
    return { ...page, items: page.items.map(toItem) };
  }

  async listForJob(jobId: string): Promise<HistoryItem[]> {
    const rows = await this.items.findAll({ where: { job_id: jobId }, order: [['created_at', 'ASC'], ['file_name', 'ASC']], raw: true, ...this.scope.options });
    return asRows<HistoryRow>(rows).map(toItem);
  }

  async listForJobs(jobIds: readonly string[]): Promise<HistoryItem[]> {
    if (jobIds.length === 0) return [];
    // Plain SQL on the driver: read for every page of the job list a client polls.
    const jobs = sqlIn(jobIds);
    const rows = await this.scope.read<HistoryRow>(`SELECT * FROM history_items WHERE job_id ${jobs.sql} ORDER BY job_id, created_at, file_name`, jobs.params);
    return rows.map(toItem);
  }

  async delete(id: string): Promise<void> {
    await this.scope.write((s) => historyModel(s.sequelize).destroy({ where: { id }, ...s.options }));
  }

  async listAllForUser(userId: string, max: number): Promise<HistoryItem[]> {
    const rows = await this.items.findAll({ where: { user_id: userId }, order: [['created_at', 'ASC'], ['id', 'ASC']], limit: max, raw: true, ...this.scope.options });
    return asRows<HistoryRow>(rows).map(toItem);
  }

  async listExpired(before: Date, max: number): Promise<HistoryItem[]> {
    const rows = await this.items.findAll({ where: { expires_at: { [Op.lte]: before } }, order: [['expires_at', 'ASC']], limit: max, raw: true, ...this.scope.options });
    return asRows<HistoryRow>(rows).map(toItem);
  }
}
