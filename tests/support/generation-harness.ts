import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BuiltinEngine } from '../../adapters/builtin-engine/builtin-engine.ts';
import { MemoryCoinLedger } from '../../adapters/memory/memory-coin-ledger.ts';
import { MemoryDeductionClaims } from '../../adapters/memory/memory-deduction-claims.ts';
import { MemoryHistoryRepository } from '../../adapters/memory/memory-history-repository.ts';
import { MemoryJobRepository } from '../../adapters/memory/memory-job-repository.ts';
import { MemoryObjectStorage } from '../../adapters/memory/memory-object-storage.ts';
import { MemoryOutbox } from '../../adapters/memory/memory-outbox.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import { MemoryUserRepository } from '../../adapters/memory/memory-user-repository.ts';
import type { ParameterMap } from '../../core/domain/parameter-map.ts';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';
import type { TemplateForGeneration } from '../../core/ports/generation-sources.port.ts';
import type { Logger } from '../../core/ports/logger.port.ts';
import type { DeliveredMessage } from '../../core/ports/queue.port.ts';
import type { WorkflowEngine } from '../../core/ports/workflow-engine.port.ts';
import { CancelGeneration } from '../../core/use-cases/generation/cancel-generation.use-case.ts';
import { OutputHistory } from '../../core/use-cases/generation/history.use-case.ts';
import { RunGeneration } from '../../core/use-cases/generation/run-generation.use-case.ts';
import { SubmitGeneration } from '../../core/use-cases/generation/submit-generation.use-case.ts';
import { SweepUnclaimedDeductions } from '../../core/use-cases/generation/sweep-unclaimed-deductions.use-case.ts';

export const quietLogger: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => quietLogger };

export const imageWorkflow = (color = 0xff0000): WorkflowGraph => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 16, height: 8, batch_size: 1, color } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'test' } },
});

/** Two images of different channel counts: ImageBatch fails at run time, like ComfyUI. */
export const failingWorkflow = (): WorkflowGraph => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } },
  '2': { class_type: 'SolidMask', inputs: { value: 1, width: 8, height: 8 } },
  '3': { class_type: 'JoinImageWithAlpha', inputs: { image: ['1', 0], alpha: ['2', 0] } },
  '4': { class_type: 'ImageBatch', inputs: { image1: ['1', 0], image2: ['3', 0] } },
  '5': { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: 'fail' } },
});

export const colorTemplate = (cost: number): TemplateForGeneration => ({
  id: randomUUID(),
  version: 1,
  workflow: imageWorkflow(),
  parameterMap: {
    color: { key: 'color', type: 'integer', node_id: '1', input_name: 'color', min: 0, max: 0xffffff },
  } as ParameterMap,
  cost,
  outputType: 'image',
});

/** The generation use cases on the in-memory adapters and the real builtin engine. */
export function generationHarness(options: { engine?: WorkflowEngine; maxAttempts?: number } = {}) {
  const store = new MemoryStore();
  const users = new MemoryUserRepository(store);
  const ledger = new MemoryCoinLedger(store);
  const jobs = new MemoryJobRepository(store);
  const history = new MemoryHistoryRepository(store);
  const claims = new MemoryDeductionClaims(store);
  const outbox = new MemoryOutbox(store);
  const storage = new MemoryObjectStorage();
  const uow = new MemoryUnitOfWork();
  const ids = { newId: () => randomUUID() };
  let now = new Date('2026-01-01T00:00:00Z');
  const clock = { now: () => new Date(now) };
  const events: { userId: string; event: { type: string; [k: string]: unknown } }[] = [];
  const publisher = { execute: async (input: { userId: string; event: { type: string } }) => void events.push(input) };
  const templates = new Map<string, TemplateForGeneration>();
  const engine = options.engine ?? new BuiltinEngine({ workDir: mkdtempSync(path.join(tmpdir(), 'mgs-engine-')) });
  const cancels = new Map<string, () => void>();
  const outputs = new OutputHistory({ history, storage, clock, logger: quietLogger, viewUrlTtlSeconds: 900, downloadUrlTtlSeconds: 300 });
  const images = { find: async () => null, markUsed: async () => undefined };
  const refundDeps = { jobs, ledger, claims, uow, ids, clock };

  const submit = new SubmitGeneration({
    ...refundDeps,
    templates: { findActive: async (id) => templates.get(id) ?? null },
    images,
    outbox,
    events: publisher,
    logger: quietLogger,
    random: () => 0.5,
    environment: 'local',
    requireTemplate: false,
    outputNodeTypes: [],
    allowedNodeTypes: null,
  });
  const run = new RunGeneration({
    ...refundDeps,
    engine,
    storage,
    history,
    images,
    events: publisher,
    logger: quietLogger,
    retentionDays: 30,
    maxAttempts: options.maxAttempts ?? 3,
    visibilitySeconds: 30,
    viewUrl: outputs.viewUrl,
    onCancel: (jobId, abort) => {
      cancels.set(jobId, abort);
      return () => cancels.delete(jobId);
    },
    progressIntervalMs: 0,
  });
  const cancel = new CancelGeneration({ ...refundDeps, events: publisher, logger: quietLogger, requestCancel: async (jobId) => cancels.get(jobId)?.() });
  const sweeper = new SweepUnclaimedDeductions({ ledger, claims, uow, ids, clock, logger: quietLogger, unclaimedMinutes: 15 });

  return {
    store, users, ledger, jobs, history, claims, outbox, storage, events, templates, submit, run, cancel, sweeper, outputs,
    advance(minutes: number) {
      now = new Date(now.getTime() + minutes * 60_000);
    },
    async newUser(coins: number) {
      const id = randomUUID();
      await users.create({ id, email: `${id}@example.com`, displayName: 'U', role: 'user', passwordHash: null, createdAt: clock.now() });
      if (coins > 0) await ledger.apply({ id: randomUUID(), userId: id, amount: coins, reason: 'signup_bonus', relatedEntityId: null, actorId: null, createdAt: clock.now() });
      return id;
    },
    async balance(userId: string) {
      return (await users.findById(userId))!.coinBalance;
    },
    /** The queue message the outbox holds for a job, as a worker would receive it. */
    async delivery(jobId: string, attempt = 1): Promise<DeliveredMessage> {
      const entry = (await outbox.pending(1000)).find((e) => (e.message.body as { jobId: string }).jobId === jobId);
      if (!entry) throw new Error(`no outbox message for job ${jobId}`);
      return { id: entry.id, taskType: 'generation', environment: 'local', body: entry.message.body, attempt, extendVisibility: async () => undefined };
    },
  };
}
