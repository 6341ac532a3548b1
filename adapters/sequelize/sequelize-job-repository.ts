import { DataTypes, Op, UniqueConstraintError, type Model } from 'sequelize';
import type { GenerationJob, JobStatus } from '../../core/domain/job.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../core/domain/pagination.ts';
import type { JobRepository, JobUpdate, NewJob } from '../../core/ports/job-repository.port.ts';
import type { SequelizeDatabase } from './sequelize-database.ts';
import { asRow, asRows, defineOnce, type RowModel } from './models.ts';

interface JobRow {
  id: string;
  user_id: string;
  template_id: string | null;
  template_version: number | null;
  status: string;
  progress_value: number;
  progress_max: number;
  status_text: string;
  workflow: string;
  used_parameters: string;
  image_refs: string;
  output_type: string;
  paid_coins: number;
  refunded_coins: number;
  error: string | null;
  text_outputs: string;
  attempts: number;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

const jobModel = (db: SequelizeDatabase): RowModel<JobRow> =>
  defineOnce(db.sequelize, 'GenerationJob', () =>
    db.sequelize.define<Model<JobRow, JobRow>>(
      'GenerationJob',
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        user_id: DataTypes.UUID,
        template_id: DataTypes.UUID,
        template_version: DataTypes.INTEGER,
        status: DataTypes.STRING(16),
        progress_value: DataTypes.INTEGER,
        progress_max: DataTypes.INTEGER,
        status_text: DataTypes.STRING(255),
        workflow: DataTypes.TEXT,
        used_parameters: DataTypes.TEXT,
        image_refs: DataTypes.TEXT,
        output_type: DataTypes.STRING(8),
        paid_coins: DataTypes.INTEGER,
        refunded_coins: DataTypes.INTEGER,
        error: DataTypes.TEXT,
        text_outputs: DataTypes.TEXT,
        attempts: DataTypes.INTEGER,
        created_at: DataTypes.DATE(3),
        updated_at: DataTypes.DATE(3),
        started_at: DataTypes.DATE(3),
        finished_at: DataTypes.DATE(3),
      },
      { tableName: 'generation_jobs' },
    ),
  );

const toJob = (row: JobRow): GenerationJob => ({
  id: row.id,
  userId: row.user_id,
  templateId: row.template_id,
  templateVersion: row.template_version === null ? null : Number(row.template_version),
  status: row.status as JobStatus,
  progress: { value: Number(row.progress_value), max: Number(row.progress_max) },
  statusText: row.status_text,
  workflow: JSON.parse(row.workflow),
  usedParameters: JSON.parse(row.used_parameters),
  imageRefs: JSON.parse(row.image_refs),
  outputType: row.output_type === 'video' ? 'video' : 'image',
  paidCoins: Number(row.paid_coins),
  refundedCoins: Number(row.refunded_coins),
  error: row.error ? JSON.parse(row.error) : null,
  textOutputs: JSON.parse(row.text_outputs),
  attempts: Number(row.attempts),
  createdAt: new Date(row.created_at),
  updatedAt: new Date(row.updated_at),
  startedAt: row.started_at ? new Date(row.started_at) : null,
  finishedAt: row.finished_at ? new Date(row.finished_at) : null,
});

const toColumns = (update: JobUpdate, at: Date): Partial<JobRow> => ({
  updated_at: at,
  ...(update.progress ? { progress_value: Math.round(update.progress.value), progress_max: Math.max(1, Math.round(update.progress.max)) } : {}),
  ...(update.statusText !== undefined ? { status_text: update.statusText.slice(0, 255) } : {}),
  ...(update.error !== undefined ? { error: update.error ? JSON.stringify(update.error) : null } : {}),
  ...(update.textOutputs ? { text_outputs: JSON.stringify(update.textOutputs) } : {}),
  ...(update.attempts !== undefined ? { attempts: update.attempts } : {}),
  ...(update.startedAt ? { started_at: update.startedAt } : {}),
  ...(update.finishedAt ? { finished_at: update.finishedAt } : {}),
});

export class SequelizeJobRepository implements JobRepository {
  private readonly jobs;

  constructor(db: SequelizeDatabase) {
    this.jobs = jobModel(db);
  }

  async create(job: NewJob): Promise<boolean> {
    try {
      await this.jobs.create({
        id: job.id,
        user_id: job.userId,
        template_id: job.templateId,
        template_version: job.templateVersion,
        status: job.status,
        progress_value: job.progress.value,
        progress_max: job.progress.max,
        status_text: job.statusText,
        workflow: JSON.stringify(job.workflow),
        used_parameters: JSON.stringify(job.usedParameters),
        image_refs: JSON.stringify(job.imageRefs),
        output_type: job.outputType,
        paid_coins: job.paidCoins,
        refunded_coins: 0,
        error: null,
        text_outputs: '[]',
        attempts: 0,
        created_at: job.createdAt,
        updated_at: job.createdAt,
        started_at: null,
        finished_at: null,
      });
      return true;
    } catch (error) {
      if (error instanceof UniqueConstraintError) return false;
      throw error;
    }
  }

  async findById(id: string): Promise<GenerationJob | null> {
    const row = await this.jobs.findByPk(id, { raw: true });
    return row ? toJob(asRow<JobRow>(row)) : null;
  }

  async findForUser(id: string, userId: string): Promise<GenerationJob | null> {
    const row = await this.jobs.findOne({ where: { id, user_id: userId }, raw: true });
    return row ? toJob(asRow<JobRow>(row)) : null;
  }

  async listForUser(userId: string, request: PageRequest): Promise<Page<GenerationJob>> {
    const { rows, count } = await this.jobs.findAndCountAll({
      where: { user_id: userId },
      order: [['created_at', 'DESC'], ['id', 'DESC']],
      limit: request.limit,
      offset: offsetOf(request),
      raw: true,
    });
    return pageOf(asRows<JobRow>(rows).map(toJob), request, count);
  }

  async listActiveForUser(userId: string): Promise<GenerationJob[]> {
    const rows = await this.jobs.findAll({ where: { user_id: userId, status: ['queued', 'running'] }, order: [['created_at', 'ASC']], limit: 100, raw: true });
    return asRows<JobRow>(rows).map(toJob);
  }

  async transition(id: string, from: readonly JobStatus[], to: JobStatus, update: JobUpdate, at: Date): Promise<boolean> {
    const [changed] = await this.jobs.update({ ...toColumns(update, at), status: to }, { where: { id, status: { [Op.in]: [...from] } } });
    return changed === 1;
  }

  async update(id: string, update: JobUpdate, at: Date): Promise<void> {
    await this.jobs.update(toColumns(update, at), { where: { id, status: { [Op.in]: ['queued', 'running'] } } });
  }

  async markRefunded(id: string, amount: number, at: Date): Promise<boolean> {
    const [changed] = await this.jobs.update({ refunded_coins: amount, updated_at: at }, { where: { id, refunded_coins: 0 } });
    return changed === 1;
  }

  async countForTemplate(templateId: string): Promise<number> {
    return this.jobs.count({ where: { template_id: templateId } });
  }
}
