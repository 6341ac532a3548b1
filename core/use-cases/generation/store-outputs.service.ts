import { outputKey, type GenerationJob, type HistoryItem } from '../../domain/job.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { MediaFacts, MediaInspector } from '../../ports/media-inspector.port.ts';
import type { ObjectStorage } from '../../ports/object-storage.port.ts';
import type { StagedOutputs } from '../../ports/staged-outputs.port.ts';
import type { Transaction, UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { EngineOutputFile, EngineTextOutput } from '../../ports/workflow-engine.port.ts';
import { historyItemView } from './history-view.service.ts';
import type { UserEventLog } from '../events/user-event-log.service.ts';
import type { JobLifecycle } from './job-lifecycle.service.ts';

export interface StoreOutputsDeps {
  uow: UnitOfWork;
  events: UserEventLog;
  staged: StagedOutputs;
  storage: ObjectStorage;
  lifecycle: JobLifecycle;
  ids: IdGenerator;
  clock: Clock;
  logger: Logger;
  retentionDays: number;
  viewUrl(item: HistoryItem): Promise<string>;
  /** Reads what an engine did not report (a ComfyUI video's duration and size, say) from the stored file. */
  media?: MediaInspector;
}

/** Whether the stored file may tell more than the engine said: a video's size or duration, an audio's or animation's duration. */
export function lacksMediaFacts(file: Pick<EngineOutputFile, 'mimeType' | 'width' | 'height' | 'durationSeconds'>): boolean {
  const { mimeType } = file;
  if (mimeType.startsWith('video/')) return file.durationSeconds === undefined || file.width === undefined || file.height === undefined;
  if (mimeType.startsWith('audio/')) return file.durationSeconds === undefined;
  // The image types that may be animated (sharp reads their frames).
  if (mimeType === 'image/webp' || mimeType === 'image/gif') return file.durationSeconds === undefined;
  return false;
}

/** Output file names unique within a job: two nodes saving `x_00001_.png` (in different subfolders) keep both. */
export function uniqueFileNames(names: readonly string[]): string[] {
  const used = new Set<string>();
  return names.map((name) => {
    const dot = name.lastIndexOf('.');
    const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
    let candidate = name;
    for (let n = 2; used.has(candidate); n++) candidate = `${stem}-${n}${extension}`;
    used.add(candidate);
    return candidate;
  });
}

/**
 * Puts an attempt's output files into object storage and makes them the job's result. Each file is staged
 * (a row naming its key) before its upload starts, and the history rows replace the staging in the one
 * transaction that also moves the job to `succeeded`; so a file is always either in history or staged for
 * deletion, whatever fails, and the keys carry the attempt's run id, so attempts never touch each other's files.
 */
export class StoreOutputs {
  constructor(private readonly deps: StoreOutputsDeps) {}

  /**
   * 'lost' when the attempt no longer holds the job (cancelled, or taken over): its files are removed again.
   * `alsoCommit` joins the completing transaction (the delivery's ack, where the queue can take one).
   */
  async complete(job: GenerationJob, runId: string, files: EngineOutputFile[], texts: EngineTextOutput[], alsoCommit?: (tx: Transaction) => Promise<void>): Promise<'succeeded' | 'lost'> {
    const { uow, storage, clock } = this.deps;
    const saved = files.filter((file) => file.kind === 'output');
    const chosen = saved.length > 0 ? saved : files;
    const names = uniqueFileNames(chosen.map((file) => file.fileName));
    const keys = names.map((name) => outputKey(job.userId, job.id, runId, name));
    if (keys.length > 0 && !(await this.stage(job, runId, keys))) return 'lost';
    const items: HistoryItem[] = [];
    for (const [index, file] of chosen.entries()) {
      const { sizeBytes } = await storage.put(keys[index]!, await file.open(), { contentType: file.mimeType });
      const facts = await this.mediaFacts(keys[index]!, file);
      const createdAt = clock.now();
      items.push({
        id: this.deps.ids.newId(),
        jobId: job.id,
        userId: job.userId,
        templateId: job.templateId,
        storageKey: keys[index]!,
        fileName: names[index]!,
        mimeType: file.mimeType,
        sizeBytes,
        width: file.width ?? facts.width ?? null,
        height: file.height ?? facts.height ?? null,
        durationSeconds: file.durationSeconds ?? facts.durationSeconds ?? null,
        usedParameters: job.usedParameters,
        createdAt,
        expiresAt: new Date(createdAt.getTime() + this.deps.retentionDays * 86_400_000),
      });
    }
    const views = await Promise.all(items.map((item) => historyItemView(item, this.deps.viewUrl)));
    const textOutputs = texts.map((text) => ({ nodeId: text.nodeId, text: text.text }));
    const succeeded = await uow.run(async (tx) => {
      if (!(await this.deps.lifecycle.succeed(tx, job, runId, items, views, textOutputs))) return false;
      await alsoCommit?.(tx);
      return true;
    });
    if (succeeded) return 'succeeded';
    await this.discard(runId);
    return 'lost';
  }

  /** What the stored file says that the engine did not; {} when nothing is missing or there is no inspector. */
  private async mediaFacts(key: string, file: EngineOutputFile): Promise<MediaFacts> {
    const { media, storage } = this.deps;
    if (!media || !lacksMediaFacts(file)) return {};
    return media.inspect(async () => {
      const stored = await storage.get(key);
      if (!stored) throw new Error(`stored output ${key} is gone`);
      return stored.body;
    }, file.mimeType);
  }

  /** Stages the keys and says "Uploading results", only while the attempt still holds the job (else nothing is uploaded). */
  private stage(job: GenerationJob, runId: string, keys: string[]): Promise<boolean> {
    const { clock, events } = this.deps;
    const text = 'Uploading results';
    return this.deps.uow.run(async (tx) => {
      if (!(await tx.jobs.updateRunning(job.id, runId, { statusText: text }, clock.now()))) return false;
      const stagedAt = clock.now();
      for (const storageKey of keys) await tx.staged.add({ storageKey, jobId: job.id, runId, createdAt: stagedAt });
      await events.record(tx, job.userId, { type: 'job.status', jobId: job.id, text });
      return true;
    });
  }

  /**
   * Deletes the files this attempt staged and never committed (its own keys only). A file whose delete fails
   * stays staged, and the reconciler tries again.
   */
  async discard(runId: string): Promise<void> {
    for (const entry of await this.deps.staged.listForRun(runId)) {
      try {
        await this.deps.storage.delete(entry.storageKey);
        await this.deps.staged.remove([entry.storageKey]);
      } catch (error) {
        this.deps.logger.warn('staged output not deleted; the reconciler will retry', { jobId: entry.jobId, key: entry.storageKey, error: String(error) });
      }
    }
  }
}
