import { outputKey, type GenerationJob, type HistoryItem } from '../../domain/job.ts';
import type { WorkflowGraph } from '../../domain/workflow-graph.types.ts';
import type { InputImageSource, UserEventPublisher } from '../../ports/generation-sources.port.ts';
import type { HistoryRepository } from '../../ports/history-repository.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { ObjectStorage } from '../../ports/object-storage.port.ts';
import type { DeliveredMessage, HandlerOutcome } from '../../ports/queue.port.ts';
import type { EngineEvent, EngineInputFile, EngineRunResult, WorkflowEngine } from '../../ports/workflow-engine.port.ts';
import { historyItemView, type HistoryView } from './history-view.ts';
import { refundJob, type RefundDeps } from './refunds.ts';

export interface RunGenerationDeps extends RefundDeps {
  engine: WorkflowEngine;
  storage: ObjectStorage;
  history: HistoryRepository;
  images: InputImageSource;
  events: UserEventPublisher;
  logger: Logger;
  retentionDays: number;
  maxAttempts: number;
  /** The queue's visibility timeout: a running job extends it every third of it. */
  visibilitySeconds: number;
  viewUrl(item: HistoryItem): Promise<string>;
  /** Registers an abort hook so a cancel request reaches the running engine call. */
  onCancel(jobId: string, abort: () => void): () => void;
  /** Smallest gap between two progress events of one job, so a fast engine doesn't flood the store. */
  progressIntervalMs?: number;
}

const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };
const backoff = (attempt: number): number => Math.min(60, 2 ** Math.max(0, attempt - 1));

/** The worker's handler for one `generation` message. Idempotent: a redelivery of a finished job changes nothing. */
export class RunGeneration {
  constructor(private readonly deps: RunGenerationDeps) {}

  async execute(message: DeliveredMessage): Promise<HandlerOutcome> {
    const body = message.body as { jobId?: unknown };
    if (typeof body?.jobId !== 'string') return { action: 'dead', reason: 'message has no jobId' };
    const job = await this.deps.jobs.findById(body.jobId);
    if (!job) return { action: 'dead', reason: `job ${body.jobId} does not exist` };
    if (job.status !== 'queued' && job.status !== 'running') return { action: 'ack' };

    const now = this.deps.clock.now();
    const moved = await this.deps.jobs.transition(job.id, ['queued', 'running'], 'running', { statusText: 'Starting', attempts: message.attempt, startedAt: now }, now);
    if (!moved) return { action: 'ack' };
    // A crash mid-run leaves part of an earlier attempt behind (only a job already `running` can have
    // one); this attempt starts clean so history never doubles.
    if (job.status === 'running') await this.discardOutputs(job);
    await this.emit(job, { type: 'job.started', jobId: job.id, attempt: message.attempt });
    await this.status(job, 'Generating');

    const controller = new AbortController();
    const unregister = this.deps.onCancel(job.id, () => controller.abort());
    const visibility = this.deps.visibilitySeconds;
    const heartbeat = setInterval(() => void message.extendVisibility(visibility).catch(() => undefined), (visibility * 1000) / 3);
    let result: EngineRunResult;
    try {
      const inputs = await this.inputs(job);
      const relay = this.progressRelay(job);
      result = await this.deps.engine.run({
        runId: job.id,
        workflow: inputs.workflow,
        inputs: inputs.files,
        onEvent: relay.handle,
        signal: controller.signal,
      });
      await relay.drain();
      if (result.ok) {
        await this.status(job, 'Uploading results');
        return await this.complete(job, result);
      }
    } catch (error) {
      return this.transientFailure(job, message, 'STORAGE.UNAVAILABLE', (error as Error).message);
    } finally {
      clearInterval(heartbeat);
      unregister();
    }
    if (result.error.code === 'ENGINE.INTERRUPTED') {
      await this.deps.engine.release?.(job.id).catch(() => undefined);
      return { action: 'ack' };
    }
    if (result.transient) return this.transientFailure(job, message, result.error.code, result.error.message);
    return this.fail(job, { code: result.error.code, message: result.error.message, ...(result.error.nodeId ? { nodeId: result.error.nodeId } : {}) });
  }

  private async inputs(job: GenerationJob): Promise<{ workflow: WorkflowGraph; files: EngineInputFile[] }> {
    if (job.imageRefs.length === 0) return { workflow: job.workflow, files: [] };
    const workflow: WorkflowGraph = { ...job.workflow };
    const files: EngineInputFile[] = [];
    for (const ref of job.imageRefs) {
      const key = await this.findImageKey(job, ref.id);
      const stored = await this.deps.storage.get(key);
      if (!stored) throw new Error(`input image ${ref.id} is no longer stored`);
      const chunks: Buffer[] = [];
      for await (const chunk of stored.body) chunks.push(chunk as Buffer);
      const name = `${ref.id}.${EXTENSIONS[stored.contentType] ?? 'png'}`;
      files.push({ name, mimeType: stored.contentType, data: Buffer.concat(chunks) });
      const node = workflow[ref.nodeId]!;
      workflow[ref.nodeId] = { ...node, inputs: { ...node.inputs, [ref.inputName]: name } };
    }
    return { workflow, files };
  }

  private async findImageKey(job: GenerationJob, id: string): Promise<string> {
    const image = await this.deps.images.find(job.userId, id);
    if (!image) throw new Error(`input image ${id} is gone`);
    return image.storageKey;
  }

  private async complete(job: GenerationJob, result: Extract<EngineRunResult, { ok: true }>): Promise<HandlerOutcome> {
    const { storage, history, clock } = this.deps;
    const saved: HistoryItem[] = [];
    const files = result.files.filter((file) => file.kind === 'output');
    for (const file of files.length > 0 ? files : result.files) {
      const key = outputKey(job.userId, job.id, file.fileName);
      const stream = await file.open();
      const { sizeBytes } = await storage.put(key, stream, { contentType: file.mimeType });
      const createdAt = clock.now();
      const item: HistoryItem = {
        id: this.deps.ids.newId(),
        jobId: job.id,
        userId: job.userId,
        templateId: job.templateId,
        storageKey: key,
        fileName: file.fileName,
        mimeType: file.mimeType,
        sizeBytes,
        width: file.width ?? null,
        height: file.height ?? null,
        durationSeconds: file.durationSeconds ?? null,
        usedParameters: job.usedParameters,
        createdAt,
        expiresAt: new Date(createdAt.getTime() + this.deps.retentionDays * 86_400_000),
      };
      if (await history.add(item)) {
        saved.push(item);
        await this.emit(job, { type: 'job.output', jobId: job.id, output: await this.view(item) });
      }
    }
    const at = clock.now();
    const done = await this.deps.jobs.transition(job.id, ['running'], 'succeeded', {
      progress: { value: 1, max: 1 },
      statusText: 'Completed',
      textOutputs: result.texts.map((text) => ({ nodeId: text.nodeId, text: text.text })),
      finishedAt: at,
    }, at);
    await this.deps.engine.release?.(job.id).catch(() => undefined);
    if (!done) {
      // Cancelled while we stored the results: the user was refunded, so the files must not stay.
      await this.discardOutputs(job);
      return { action: 'ack' };
    }
    const outputs = await Promise.all(saved.map((item) => this.view(item)));
    await this.emit(job, { type: 'job.completed', jobId: job.id, outputs, texts: result.texts.map((t) => t.text) });
    return { action: 'ack' };
  }

  private async transientFailure(job: GenerationJob, message: DeliveredMessage, code: string, text: string): Promise<HandlerOutcome> {
    this.deps.logger.warn('transient generation failure', { jobId: job.id, attempt: message.attempt, code, message: text });
    if (message.attempt >= this.deps.maxAttempts) {
      await this.fail(job, { code, message: `${text} (gave up after ${message.attempt} attempts)` });
      return { action: 'dead', reason: text };
    }
    await this.status(job, `Retrying after a temporary problem (attempt ${message.attempt} of ${this.deps.maxAttempts})`);
    return { action: 'retry', delaySeconds: backoff(message.attempt) };
  }

  private async fail(job: GenerationJob, error: { code: string; message: string; nodeId?: string }): Promise<HandlerOutcome> {
    const at = this.deps.clock.now();
    await this.deps.engine.release?.(job.id).catch(() => undefined);
    if (!(await this.deps.jobs.transition(job.id, ['queued', 'running'], 'failed', { error, statusText: 'Failed', finishedAt: at }, at))) {
      return { action: 'ack' };
    }
    await this.discardOutputs(job);
    const refunded = await refundJob(this.deps, job.id);
    await this.emit(job, { type: 'job.failed', jobId: job.id, error: { code: error.code, message: error.message, ...(error.nodeId ? { nodeId: error.nodeId } : {}) }, refunded });
    return { action: 'ack' };
  }

  private async discardOutputs(job: GenerationJob): Promise<void> {
    for (const item of await this.deps.history.listForJob(job.id)) {
      await this.deps.storage.delete(item.storageKey);
      await this.deps.history.delete(item.id);
    }
  }

  /** Engine events arrive synchronously; they are relayed in order, thinned, and drained before the job ends. */
  private progressRelay(job: GenerationJob): { handle: (event: EngineEvent) => void; drain: () => Promise<void> } {
    const interval = this.deps.progressIntervalMs ?? 200;
    let last = 0;
    let chain = Promise.resolve();
    const handle = (event: EngineEvent): void => {
      if (event.type === 'status') {
        chain = chain.then(() => this.status(job, event.text));
        return;
      }
      if (event.type !== 'progress') return;
      const now = Date.now();
      if (event.value < event.max && now - last < interval) return;
      last = now;
      chain = chain.then(async () => {
        await this.deps.jobs.update(job.id, { progress: { value: event.value, max: event.max } }, this.deps.clock.now());
        await this.emit(job, { type: 'job.progress', jobId: job.id, value: event.value, max: event.max, ...(event.nodeId ? { node: event.nodeId } : {}) });
      });
    };
    return { handle, drain: () => chain.catch(() => undefined) };
  }

  private async status(job: GenerationJob, text: string): Promise<void> {
    await this.deps.jobs.update(job.id, { statusText: text }, this.deps.clock.now());
    await this.emit(job, { type: 'job.status', jobId: job.id, text });
  }

  private view(item: HistoryItem): Promise<HistoryView> {
    return historyItemView(item, this.deps.viewUrl);
  }

  private async emit(job: GenerationJob, event: { type: string; jobId: string; [field: string]: unknown }): Promise<void> {
    try {
      await this.deps.events.execute({ userId: job.userId, event });
    } catch (error) {
      this.deps.logger.warn('event not published', { jobId: job.id, type: event.type, error });
    }
  }
}
