import { DataTypes, Op, type Model, type Sequelize, type WhereOptions } from 'sequelize';
import { sourcesOf, STATUS_TEXT_MAX, storedProgress, storedStatusText, type GenerationJob, type JobError, type JobStatus, type JobSummary } from '../../core/domain/job.ts';
import { pageOf, rowCount, type Page, type PageRequest } from '../../core/domain/pagination.ts';
import type { QueueOrder } from '../../core/domain/queue-order.ts';
import type { JobChanges, JobMove, JobRepository, NewJob, QueuedAhead, RunningWork } from '../../core/ports/job-repository.port.ts';
import { asRows, defineOnce, type RowModel } from './models.ts';
import { isUniqueViolation, paddedToPowerOfTwo, readPage, selectRows, sqlIn, sqlTime, type SqlScope } from './sql-scope.ts';
import { failureRateOf, type TemplateStats } from '../../core/domain/template-stats.ts';
import { CHOICES_WINDOW } from '../../core/domain/run-estimate.ts';

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
  test_run: boolean | number;
  error: string | null;
  text_outputs: string;
  attempts: number;
  run_id: string | null;
  lease_until: Date | null;
  start_deadline: Date | null;
  announced_position: number | null;
  queue_turn: number;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  engine_server: number | null;
  retry_at: Date | null;
  fit_choices: string;
}

export const jobModel = (sequelize: Sequelize): RowModel<JobRow> =>
  defineOnce(sequelize, 'GenerationJob', () =>
    sequelize.define<Model<JobRow, JobRow>>(
      'GenerationJob',
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        user_id: DataTypes.UUID,
        template_id: DataTypes.UUID,
        template_version: DataTypes.INTEGER,
        status: DataTypes.STRING(16),
        progress_value: DataTypes.INTEGER,
        progress_max: DataTypes.INTEGER,
        status_text: DataTypes.STRING(STATUS_TEXT_MAX),
        workflow: DataTypes.TEXT,
        used_parameters: DataTypes.TEXT,
        image_refs: DataTypes.TEXT,
        output_type: DataTypes.STRING(8),
        paid_coins: DataTypes.INTEGER,
        refunded_coins: DataTypes.INTEGER,
        test_run: DataTypes.BOOLEAN,
        error: DataTypes.TEXT,
        text_outputs: DataTypes.TEXT,
        attempts: DataTypes.INTEGER,
        run_id: DataTypes.STRING(36),
        lease_until: DataTypes.DATE(3),
        start_deadline: DataTypes.DATE(3),
        announced_position: DataTypes.INTEGER,
        queue_turn: DataTypes.INTEGER,
        created_at: DataTypes.DATE(3),
        updated_at: DataTypes.DATE(3),
        started_at: DataTypes.DATE(3),
        finished_at: DataTypes.DATE(3),
        engine_server: DataTypes.INTEGER,
        retry_at: DataTypes.DATE(3),
        fit_choices: DataTypes.STRING(1000),
      },
      { tableName: 'generation_jobs' },
    ),
  );

const toJob = (row: JobRow): GenerationJob => ({ ...toSummary(row), workflow: JSON.parse(row.workflow) });

/** A job row without its workflow, as the lists read it (SUMMARY_COLUMNS). */
const toSummary = (row: Omit<JobRow, 'workflow'>): JobSummary => ({
  id: row.id,
  userId: row.user_id,
  templateId: row.template_id,
  templateVersion: row.template_version === null ? null : Number(row.template_version),
  status: row.status as JobStatus,
  progress: { value: Number(row.progress_value), max: Number(row.progress_max) },
  statusText: row.status_text,
  usedParameters: JSON.parse(row.used_parameters),
  imageRefs: JSON.parse(row.image_refs),
  outputType: row.output_type === 'video' ? 'video' : 'image',
  paidCoins: Number(row.paid_coins),
  refundedCoins: Number(row.refunded_coins),
  testRun: Boolean(Number(row.test_run)),
  error: row.error ? JSON.parse(row.error) : null,
  textOutputs: JSON.parse(row.text_outputs),
  attempts: Number(row.attempts),
  runId: row.run_id ?? null,
  leaseUntil: row.lease_until ? new Date(row.lease_until) : null,
  startDeadline: row.start_deadline ? new Date(row.start_deadline) : null,
  queueTurn: Number(row.queue_turn),
  createdAt: new Date(row.created_at),
  updatedAt: new Date(row.updated_at),
  startedAt: row.started_at ? new Date(row.started_at) : null,
  finishedAt: row.finished_at ? new Date(row.finished_at) : null,
  engineServer: row.engine_server === null || row.engine_server === undefined ? null : Number(row.engine_server),
  retryAt: row.retry_at ? new Date(row.retry_at) : null,
  fitChoices: row.fit_choices ?? '',
});

/** A TEXT column holds 65,535 bytes on MariaDB (a longer value fails the whole write, and the job would stay running). */
const TEXT_COLUMN_BYTES = 65_535;

/** The error as stored: its message cut (on a character boundary) until the JSON fits the column. */
export const errorColumn = (error: JobError): string => {
  let stored = JSON.stringify(error);
  let message = error.message;
  while (Buffer.byteLength(stored) > TEXT_COLUMN_BYTES) {
    const excess = Buffer.byteLength(stored) - TEXT_COLUMN_BYTES;
    const keep = Math.max(0, Buffer.byteLength(message) - excess - 3);
    // A cut inside a multi-byte character decodes to U+FFFD: dropped.
    message = `${Buffer.from(message).subarray(0, keep).toString('utf8').replace(/\uFFFD+$/, '')}…`;
    stored = JSON.stringify({ ...error, message });
  }
  return stored;
};

/** The columns of a job row in table order, for the plain INSERT. */
const JOB_COLUMNS = [
  'id', 'user_id', 'template_id', 'template_version', 'status', 'progress_value', 'progress_max', 'status_text', 'workflow', 'used_parameters',
  'image_refs', 'output_type', 'paid_coins', 'refunded_coins', 'test_run', 'error', 'text_outputs', 'attempts', 'run_id', 'lease_until',
  'start_deadline', 'announced_position', 'queue_turn', 'created_at', 'updated_at', 'started_at', 'finished_at', 'engine_server', 'retry_at', 'fit_choices',
] as const satisfies readonly (keyof JobRow)[];
/** Every column but the workflow: what the lists read. */
const SUMMARY_COLUMNS = JOB_COLUMNS.filter((column) => column !== 'workflow').join(', ');
const INSERT_JOB = `INSERT INTO generation_jobs (${JOB_COLUMNS.join(', ')}) VALUES (${JOB_COLUMNS.map(() => '?').join(', ')})`;

/** `column = ?, ...` for an UPDATE of these columns, parameters in `Object.values` order. */
const assignments = (values: Partial<JobRow>): string =>
  Object.keys(values)
    .map((column) => `${column} = ?`)
    .join(', ');

const progressColumns = ({ value, max }: { value: number; max: number }): Partial<JobRow> => ({ progress_value: value, progress_max: max });

const toColumns = (update: JobChanges, at: Date): Partial<JobRow> => ({
  updated_at: at,
  ...(update.progress ? progressColumns(storedProgress(update.progress)) : {}),
  ...(update.statusText !== undefined ? { status_text: storedStatusText(update.statusText) } : {}),
  ...(update.error !== undefined ? { error: update.error ? errorColumn(update.error) : null } : {}),
  ...(update.textOutputs ? { text_outputs: JSON.stringify(update.textOutputs) } : {}),
  ...(update.attempts !== undefined ? { attempts: update.attempts } : {}),
  ...(update.startedAt ? { started_at: update.startedAt } : {}),
  ...(update.finishedAt ? { finished_at: update.finishedAt } : {}),
  ...(update.leaseUntil !== undefined ? { lease_until: update.leaseUntil } : {}),
  ...(update.engineServer !== undefined ? { engine_server: update.engineServer } : {}),
  ...(update.retryAt !== undefined ? { retry_at: update.retryAt } : {}),
});

/**
 * The queued jobs ahead of one, per template and choices (JobRepository.queuedAhead). Arrival order reads the queued jobs
 * created before it and no others (about 2 ms at 5,000 queued on SQLite); owner turns read the queued jobs of an
 * earlier turn, or of its turn and created before it (each job's turn is stored at submit, ADR 047). Either way, a job
 * no longer queued has no place: nothing is ahead of it (the EXISTS does not depend on the rows read: SQLite evaluates
 * it once, before the scan, so a job not queued reads nothing more). Plain SQL on the driver, positional
 * parameters: ARRIVED_AHEAD takes [createdAt, createdAt, id, id], TURNS_AHEAD [turn, turn, createdAt, createdAt, id, id].
 * Several jobs (the queued jobs of a page a client polls) are asked in one statement: one such SELECT per job, tagged
 * with its place (`asked`), joined by UNION ALL. The number of SELECTs is padded to the next power of two with a job
 * that does not exist (PADDING), so a handful of statement shapes are prepared; at most AHEAD_BATCH jobs per statement.
 */
const ARRIVED_AHEAD = (asked: number) => `SELECT ${asked} AS asked, template_id, fit_choices, COUNT(*) AS n FROM generation_jobs
  WHERE status = 'queued' AND (created_at < ? OR (created_at = ? AND id < ?))
    AND EXISTS (SELECT 1 FROM generation_jobs me WHERE me.id = ? AND me.status = 'queued')
  GROUP BY template_id, fit_choices`;
const TURNS_AHEAD = (asked: number) => `SELECT ${asked} AS asked, template_id, fit_choices, COUNT(*) AS n FROM generation_jobs
  WHERE status = 'queued'
    AND (queue_turn < ? OR (queue_turn = ? AND (created_at < ? OR (created_at = ? AND id < ?))))
    AND EXISTS (SELECT 1 FROM generation_jobs mine WHERE mine.id = ? AND mine.status = 'queued')
  GROUP BY template_id, fit_choices`;
const AHEAD_BATCH = 128;
/** Stands in for the jobs that pad a statement: no job has the empty id, so its SELECT reads nothing. */
const PADDING: Pick<GenerationJob, 'id' | 'createdAt' | 'queueTurn'> = { id: '', createdAt: new Date(0), queueTurn: 0 };

export class SequelizeJobRepository implements JobRepository {
  constructor(private readonly scope: SqlScope) {}

  private get jobs(): RowModel<JobRow> {
    return jobModel(this.scope.sequelize);
  }

  async create(job: NewJob): Promise<boolean> {
    // Plain SQL (`run`): one per job, inside the submit's transaction.
    const row: JobRow = {
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
      test_run: job.testRun ? 1 : 0,
      error: null,
      text_outputs: '[]',
      attempts: 0,
      run_id: null,
      lease_until: null,
      start_deadline: job.startDeadline,
      announced_position: null,
      queue_turn: job.queueTurn,
      created_at: job.createdAt,
      updated_at: job.createdAt,
      started_at: null,
      finished_at: null,
      engine_server: null,
      retry_at: null,
      fit_choices: job.fitChoices,
    };
    try {
      await this.scope.run(INSERT_JOB, JOB_COLUMNS.map((column) => row[column]));
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /** Read on every delivery and every job request: plain SQL on the driver (`read`). */
  async findById(id: string): Promise<GenerationJob | null> {
    const [row] = await this.scope.read<JobRow>('SELECT * FROM generation_jobs WHERE id = ?', [id]);
    return row ? toJob(row) : null;
  }

  async findForUser(id: string, userId: string): Promise<GenerationJob | null> {
    const [row] = await this.scope.read<JobRow>('SELECT * FROM generation_jobs WHERE id = ? AND user_id = ?', [id, userId]);
    return row ? toJob(row) : null;
  }

  async findSummaryForUser(id: string, userId: string): Promise<JobSummary | null> {
    const [row] = await this.scope.read<Omit<JobRow, 'workflow'>>(`SELECT ${SUMMARY_COLUMNS} FROM generation_jobs WHERE id = ? AND user_id = ?`, [id, userId]);
    return row ? toSummary(row) : null;
  }

  async listForUser(userId: string, request: PageRequest): Promise<Page<JobSummary>> {
    // Plain SQL on the driver: the job list is what clients poll.
    const mine = 'FROM generation_jobs WHERE user_id = ? AND test_run = 0';
    const page = await readPage<Omit<JobRow, 'workflow'>>(this.scope, { columns: SUMMARY_COLUMNS, from: mine, orderBy: 'created_at DESC, id DESC', params: [userId] }, request);
    return { ...page, items: page.items.map(toSummary) };
  }

  async listTestRuns(templateId: string, max: number): Promise<GenerationJob[]> {
    const rows = await this.jobs.findAll({ where: { test_run: true, template_id: templateId }, order: [['created_at', 'DESC'], ['id', 'DESC']], limit: rowCount(max), raw: true, ...this.scope.options });
    return asRows<JobRow>(rows).map(toJob);
  }

  async announcePosition(id: string, position: number): Promise<boolean> {
    const where: WhereOptions<JobRow> = { id, status: 'queued', [Op.or]: [{ announced_position: null }, { announced_position: { [Op.ne]: position } }] };
    const [changed] = await this.scope.write((s) => jobModel(s.sequelize).update({ announced_position: position }, { where, ...s.options }));
    return changed === 1;
  }

  async queuedAhead(jobs: readonly Pick<GenerationJob, 'id' | 'createdAt' | 'queueTurn'>[], order: QueueOrder): Promise<QueuedAhead[][]> {
    const answers: QueuedAhead[][] = [];
    for (let start = 0; start < jobs.length; start += AHEAD_BATCH) answers.push(...(await this.aheadOf(jobs.slice(start, start + AHEAD_BATCH), order)));
    return answers;
  }

  private async aheadOf(jobs: readonly Pick<GenerationJob, 'id' | 'createdAt' | 'queueTurn'>[], order: QueueOrder): Promise<QueuedAhead[][]> {
    const asked = paddedToPowerOfTwo(jobs, PADDING);
    const rows = await this.scope.read<{ asked: number | string; template_id: string | null; fit_choices: string; n: number | string }>(
      `${asked.map((_, i) => (order === 'arrival' ? ARRIVED_AHEAD(i) : TURNS_AHEAD(i))).join('\nUNION ALL\n')}\nORDER BY template_id, fit_choices`,
      asked.flatMap((job) => {
        const createdAt = sqlTime(job.createdAt, this.scope.dialect);
        return order === 'arrival' ? [createdAt, createdAt, job.id, job.id] : [job.queueTurn, job.queueTurn, createdAt, createdAt, job.id, job.id];
      }),
    );
    const answers: QueuedAhead[][] = jobs.map(() => []);
    for (const row of rows) answers[Number(row.asked)]!.push({ templateId: row.template_id, fitChoices: row.fit_choices, count: Number(row.n) });
    return answers;
  }

  async recentRunTimes(templateId: string | null, max: number, servers?: readonly number[], fitChoices?: string): Promise<number[]> {
    // Server numbers are written into the statement: whole numbers only (an empty list matches nothing).
    const onServers = servers === undefined ? '' : ` AND engine_server IN (${servers.map((server) => Math.floor(server)).join(', ') || 'NULL'})`;
    const limit = rowCount(max);
    const recent = `SELECT ${this.runMs()} AS ms, fit_choices, finished_at, id FROM generation_jobs
       WHERE status = 'succeeded' AND started_at IS NOT NULL AND finished_at IS NOT NULL${templateId === null ? '' : ' AND template_id = ?'}${onServers}
       ORDER BY finished_at DESC, id DESC`;
    const params: unknown[] = templateId === null ? [] : [templateId];
    // With choices: those among the last CHOICES_WINDOW successes, so a rare choice reads a bounded window.
    const withChoices = fitChoices !== undefined;
    const rows = await this.scope.read<{ ms: number | string }>(
      withChoices
        ? `SELECT ms FROM (${recent} LIMIT ${CHOICES_WINDOW}) recent WHERE fit_choices = ? ORDER BY finished_at DESC, id DESC LIMIT ${limit}`
        : `${recent} LIMIT ${limit}`,
      withChoices ? [...params, fitChoices] : params,
    );
    return rows.map((row) => Number(row.ms));
  }

  async runningWork(max: number): Promise<RunningWork[]> {
    const rows = await this.scope.read<{ template_id: string | null; fit_choices: string; engine_server: number | string | null; started_at: Date | string | null; created_at: Date | string; retry_at: Date | string | null }>(
      `SELECT template_id, fit_choices, engine_server, started_at, created_at, retry_at FROM generation_jobs WHERE status = 'running'
       ORDER BY started_at ASC, id ASC LIMIT ${rowCount(max)}`,
      [],
    );
    return rows.map((row) => ({
      templateId: row.template_id,
      fitChoices: row.fit_choices,
      engineServer: row.engine_server === null ? null : Number(row.engine_server),
      startedAt: new Date(row.started_at ?? row.created_at),
      retryAt: row.retry_at ? new Date(row.retry_at) : null,
    }));
  }

  /** A succeeded job's run time in ms, in either dialect's SQL. */
  private runMs(): string {
    return this.scope.dialect === 'sqlite'
      ? 'CAST(ROUND((julianday(finished_at) - julianday(started_at)) * 86400000) AS INTEGER)'
      : 'TIMESTAMPDIFF(MICROSECOND, started_at, finished_at) DIV 1000';
  }

  /** One statement on either dialect: nearest-rank percentiles from ROW_NUMBER() (no PERCENTILE_CONT in SQLite). */
  async templateStats(since: Date): Promise<TemplateStats[]> {
    const runMs = this.runMs();
    const rows = await selectRows<{ template_id: string; jobs: number | string; succeeded: number | string; failed: number | string; cancelled: number | string; p50: number | string | null; p95: number | string | null }>(
      this.scope,
      `WITH windowed AS (
         SELECT template_id, status, started_at, finished_at FROM generation_jobs WHERE template_id IS NOT NULL AND created_at >= :since
       ), runs AS (
         SELECT template_id, ${runMs} AS ms,
                ROW_NUMBER() OVER (PARTITION BY template_id ORDER BY ${runMs}) AS rn,
                COUNT(*) OVER (PARTITION BY template_id) AS n
         FROM windowed WHERE status = 'succeeded' AND started_at IS NOT NULL AND finished_at IS NOT NULL
       ), percentiles AS (
         SELECT template_id, MIN(CASE WHEN rn * 100 >= 50 * n THEN ms END) AS p50, MIN(CASE WHEN rn * 100 >= 95 * n THEN ms END) AS p95
         FROM runs GROUP BY template_id
       )
       SELECT w.template_id, COUNT(*) AS jobs,
              SUM(CASE WHEN w.status = 'succeeded' THEN 1 ELSE 0 END) AS succeeded,
              SUM(CASE WHEN w.status = 'failed' THEN 1 ELSE 0 END) AS failed,
              SUM(CASE WHEN w.status = 'cancelled' THEN 1 ELSE 0 END) AS cancelled,
              p.p50, p.p95
       FROM windowed w LEFT JOIN percentiles p ON p.template_id = w.template_id
       GROUP BY w.template_id, p.p50, p.p95
       ORDER BY w.template_id`,
      { since: sqlTime(since, this.scope.dialect) },
    );
    const num = (value: number | string | null) => (value === null ? null : Number(value));
    return rows.map((row) => {
      const [succeeded, failed] = [Number(row.succeeded), Number(row.failed)];
      return {
        templateId: row.template_id,
        jobs: Number(row.jobs),
        succeeded,
        failed,
        cancelled: Number(row.cancelled),
        failureRate: failureRateOf(succeeded, failed),
        p50RunMs: num(row.p50),
        p95RunMs: num(row.p95),
      };
    });
  }

  async listByStatus(statuses: readonly JobStatus[], request: PageRequest): Promise<Page<JobSummary>> {
    if (statuses.length === 0) return pageOf([], request, 0);
    // Plain SQL on the driver, without workflows: the queue announcer reads up to 500 queued jobs every 10 s.
    const inStatuses = sqlIn(statuses);
    const matching = `FROM generation_jobs WHERE status ${inStatuses.sql}`;
    const page = await readPage<Omit<JobRow, 'workflow'>>(this.scope, { columns: SUMMARY_COLUMNS, from: matching, orderBy: 'created_at ASC, id ASC', params: inStatuses.params }, request);
    return { ...page, items: page.items.map(toSummary) };
  }

  async listActiveForUser(userId: string): Promise<JobSummary[]> {
    const rows = await this.scope.read<Omit<JobRow, 'workflow'>>(
      `SELECT ${SUMMARY_COLUMNS} FROM generation_jobs WHERE user_id = ? AND status IN ('queued', 'running') ORDER BY created_at ASC, id ASC LIMIT 100`,
      [userId],
    );
    return rows.map(toSummary);
  }

  /**
   * SQLite: transactions hold the database's one write lock (BEGIN IMMEDIATE), so they run one at a time.
   * MariaDB: the user's row is locked first (FOR UPDATE), so the submits of one user queue there; the count
   * that follows is this transaction's first plain read, so its snapshot starts after the lock was granted
   * and sees every job committed before.
   */
  async countActiveForUserExclusively(userId: string): Promise<number> {
    if (this.scope.dialect === 'mysql') await selectRows(this.scope, 'SELECT id FROM users WHERE id = :userId FOR UPDATE', { userId });
    const [row] = await this.scope.read<{ n: number | string }>("SELECT COUNT(*) AS n FROM generation_jobs WHERE user_id = ? AND status IN ('queued', 'running')", [userId]);
    return Number(row?.n ?? 0);
  }

  // Every move of every job: plain SQL on the driver (`run`). Column names come from toColumns, never from input.
  async transition(id: string, move: JobMove, at: Date): Promise<boolean> {
    const values: Partial<JobRow> = { ...toColumns(move.changes ?? {}, at), status: move.to, ...(move.runId !== undefined ? { run_id: move.runId } : {}) };
    // The guard: the sources come from the domain's transition table, the fence from the attempt.
    const sources = sourcesOf(move.to);
    if (sources.length === 0) return false;
    const status = `status IN (${sources.map(() => '?').join(', ')})`;
    const fence = move.fence !== undefined ? { sql: ' AND run_id = ?', params: [move.fence] } : { sql: '', params: [] };
    const changed = await this.scope.run(`UPDATE generation_jobs SET ${assignments(values)} WHERE id = ? AND ${status}${fence.sql}`, [...Object.values(values), id, ...sources, ...fence.params]);
    return changed === 1;
  }

  async updateRunning(id: string, fence: string, changes: JobChanges, at: Date): Promise<boolean> {
    const values = toColumns(changes, at);
    const changed = await this.scope.run(`UPDATE generation_jobs SET ${assignments(values)} WHERE id = ? AND status = 'running' AND run_id = ?`, [...Object.values(values), id, fence]);
    return changed === 1;
  }

  async markRefunded(id: string, amount: number, at: Date): Promise<boolean> {
    const where: WhereOptions<JobRow> = { id, refunded_coins: 0 };
    const [changed] = await this.scope.write((s) => jobModel(s.sequelize).update({ refunded_coins: amount, updated_at: at }, { where, ...s.options }));
    return changed === 1;
  }

  async countForTemplate(templateId: string): Promise<number> {
    return this.jobs.count({ where: { template_id: templateId }, ...this.scope.options });
  }

  async listUnrefunded(statuses: readonly JobStatus[], max: number): Promise<GenerationJob[]> {
    const rows = await this.jobs.findAll({
      where: { status: { [Op.in]: [...statuses] }, refunded_coins: 0, paid_coins: { [Op.gt]: 0 } },
      order: [['updated_at', 'ASC']],
      limit: rowCount(max),
      raw: true,
      ...this.scope.options,
    });
    return asRows<JobRow>(rows).map(toJob);
  }

  listPastStartDeadline(now: Date, max: number): Promise<GenerationJob[]> {
    return this.oldestBy('start_deadline', { status: 'queued', start_deadline: { [Op.lte]: now } }, max);
  }

  listStalled(before: Date, max: number): Promise<GenerationJob[]> {
    return this.oldestBy('lease_until', { status: 'running', lease_until: { [Op.lt]: before } }, max);
  }

  private async oldestBy(column: 'start_deadline' | 'lease_until', where: WhereOptions<JobRow>, max: number): Promise<GenerationJob[]> {
    const rows = await this.jobs.findAll({ where, order: [[column, 'ASC']], limit: rowCount(max), raw: true, ...this.scope.options });
    return asRows<JobRow>(rows).map(toJob);
  }
}
