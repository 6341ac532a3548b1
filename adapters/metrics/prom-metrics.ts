import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Logger } from '../../core/ports/logger.port.ts';
import type { JobMetrics, JobOutcome, RefundReason, WebhookOutcome } from '../../core/ports/metrics.port.ts';
import type { QueueStats } from '../../core/ports/queue.port.ts';
import type { EngineServerState } from '../../core/ports/workflow-engine.port.ts';

/** What is read at scrape time: each source is asked once per scrape, and a failing one leaves its gauges out. */
export interface MetricsSources {
  queue?: () => Promise<QueueStats[]>;
  /** Absent in a process without the worker role (the engine is the worker's). */
  engine?: () => Promise<EngineServerState[]>;
}

export interface RequestSample {
  method: string;
  /** The route's pattern (`/api/v1/generate/:id`), never the raw URL. */
  route: string;
  status: number;
  seconds: number;
}

/** A raw workflow (no template) counts under this label. */
export const RAW_WORKFLOW = 'raw';
/** SQS keeps every task type on one queue: its figures carry this label. */
export const ALL_TASK_TYPES = 'all';

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const JOB_BUCKETS = [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800];

/**
 * The process's metrics in Prometheus' text format (ADR 029): a Registry of its own (never prom-client's global
 * one, so two applications in one process, as in the tests, keep apart), the default process and Node.js metrics,
 * and the service's `mediagen_*` ones.
 */
export class PromMetrics implements JobMetrics {
  readonly registry = new Registry();
  private readonly http: { requests: Counter<'method' | 'route' | 'status'>; duration: Histogram<'method' | 'route' | 'status'> };
  private readonly jobs: { submitted: Counter<'template'>; started: Counter<'template'>; ended: Counter<'template' | 'outcome'> };
  private readonly times: { queueWait: Histogram; run: Histogram; upload: Histogram };
  private readonly coins: { charged: Counter<'reason'>; refunded: Counter<'reason'> };
  private readonly deadLetteredTotal: Counter<'task_type'>;
  private readonly webhookDeliveries: Counter<'outcome'>;

  constructor(sources: MetricsSources, private readonly logger: Logger) {
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    this.http = {
      requests: new Counter({ name: 'mediagen_http_requests_total', help: 'HTTP requests by method, route pattern and status', labelNames: ['method', 'route', 'status'], registers }),
      duration: new Histogram({ name: 'mediagen_http_request_duration_seconds', help: 'HTTP request durations', labelNames: ['method', 'route', 'status'], buckets: SECONDS_BUCKETS, registers }),
    };
    this.jobs = {
      submitted: new Counter({ name: 'mediagen_jobs_submitted_total', help: 'Jobs created (queued), by template id', labelNames: ['template'], registers }),
      started: new Counter({ name: 'mediagen_jobs_started_total', help: 'Delivery attempts that took a job, by template id', labelNames: ['template'], registers }),
      ended: new Counter({ name: 'mediagen_jobs_ended_total', help: 'Jobs that ended, by template id and outcome', labelNames: ['template', 'outcome'], registers }),
    };
    this.times = {
      queueWait: new Histogram({ name: 'mediagen_job_queue_wait_seconds', help: "From a job's creation to its first attempt's start", buckets: JOB_BUCKETS, registers }),
      run: new Histogram({ name: 'mediagen_job_run_seconds', help: "One attempt's engine run", buckets: JOB_BUCKETS, registers }),
      upload: new Histogram({ name: 'mediagen_job_upload_seconds', help: "Storing one successful attempt's outputs", buckets: JOB_BUCKETS, registers }),
    };
    this.coins = {
      charged: new Counter({ name: 'mediagen_coins_charged_total', help: 'Coins taken from users for generations, by ledger reason', labelNames: ['reason'], registers }),
      refunded: new Counter({ name: 'mediagen_coins_refunded_total', help: 'Coins given back to users, by why', labelNames: ['reason'], registers }),
    };
    this.webhookDeliveries = new Counter({ name: 'mediagen_webhook_deliveries_total', help: 'Webhook attempts this worker recorded, by outcome (delivered, retry, failed)', labelNames: ['outcome'], registers });
    this.deadLetteredTotal = new Counter({ name: 'mediagen_queue_dead_lettered_total', help: 'Messages this process sent to the dead letters, by task type', labelNames: ['task_type'], registers });
    if (sources.queue) this.queueGauges(sources.queue);
    if (sources.engine) this.engineGauges(sources.engine);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  observeRequest(sample: RequestSample): void {
    const labels = { method: sample.method, route: sample.route, status: String(sample.status) };
    this.http.requests.inc(labels);
    this.http.duration.observe(labels, sample.seconds);
  }

  jobSubmitted(template: string | null): void {
    this.jobs.submitted.inc({ template: template ?? RAW_WORKFLOW });
  }

  jobStarted(template: string | null): void {
    this.jobs.started.inc({ template: template ?? RAW_WORKFLOW });
  }

  jobEnded(template: string | null, outcome: JobOutcome): void {
    this.jobs.ended.inc({ template: template ?? RAW_WORKFLOW, outcome });
  }

  queueWait(seconds: number): void {
    this.times.queueWait.observe(Math.max(0, seconds));
  }

  runTime(seconds: number): void {
    this.times.run.observe(Math.max(0, seconds));
  }

  uploadTime(seconds: number): void {
    this.times.upload.observe(Math.max(0, seconds));
  }

  coinsCharged(amount: number, reason: string): void {
    this.coins.charged.inc({ reason }, amount);
  }

  coinsRefunded(amount: number, reason: RefundReason): void {
    this.coins.refunded.inc({ reason }, amount);
  }

  webhookAttempt(outcome: WebhookOutcome): void {
    this.webhookDeliveries.inc({ outcome });
  }

  deadLettered(taskType: string): void {
    this.deadLetteredTotal.inc({ task_type: taskType });
  }

  private queueGauges(stats: () => Promise<QueueStats[]>): void {
    this.sourceGauges('queue', stats, 'task_type', (entry) => entry.taskType ?? ALL_TASK_TYPES, [
      ['mediagen_queue_waiting_messages', 'Messages waiting to be taken, by task type', (entry) => entry.waiting],
      ['mediagen_queue_oldest_waiting_seconds', 'Age of the oldest waiting message, by task type (database and memory queues only)', (entry) => entry.oldestWaitingSeconds],
      ['mediagen_queue_dead_letters', 'Messages in the dead letters now, by task type', (entry) => entry.deadLetters],
    ]);
  }

  private engineGauges(servers: () => Promise<EngineServerState[]>): void {
    this.sourceGauges('engine', servers, 'server', (server) => server.server, [
      ['mediagen_engine_server_up', 'Whether an engine server answers (1) or not (0)', (server) => (server.healthy ? 1 : 0)],
      ['mediagen_engine_server_running_jobs', "This process's jobs running on an engine server", (server) => server.runningJobs],
      ['mediagen_engine_server_vram_total_bytes', "An engine server's VRAM, all devices", (server) => server.vram?.totalBytes],
      ['mediagen_engine_server_vram_free_bytes', "An engine server's free VRAM, all devices", (server) => server.vram?.freeBytes],
    ]);
  }

  /** Gauges filled at scrape time from one source's entries, one series per entry (a figure it lacks is left out). */
  private sourceGauges<T>(source: string, load: () => Promise<T[]>, labelName: string, label: (entry: T) => string, specs: [string, string, (entry: T) => number | undefined][]): void {
    const read = this.oncePerScrape(source, load);
    for (const [name, help, pick] of specs) {
      new Gauge({
        name,
        help,
        labelNames: [labelName],
        registers: [this.registry],
        async collect() {
          this.reset();
          for (const entry of (await read()) ?? []) {
            const value = pick(entry);
            if (value !== undefined) this.set({ [labelName]: label(entry) }, value);
          }
        },
      });
    }
  }

  /**
   * The gauges of one source collect together (prom-client asks every metric at once): they share one read. A
   * source that fails is logged and its gauges stay empty, so one broken integration does not fail the scrape.
   */
  private oncePerScrape<T>(source: string, load: () => Promise<T>): () => Promise<T | null> {
    let pending: Promise<T | null> | null = null;
    return () =>
      (pending ??= load()
        .catch((error: unknown) => {
          this.logger.warn('metrics source failed', { source, error: String(error) });
          return null;
        })
        .finally(() => setImmediate(() => (pending = null))));
  }
}
