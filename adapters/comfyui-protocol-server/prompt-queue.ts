import { heapify, heapPop, heapPush } from './prompt-heap.ts';
import type { ComfyGraph } from './protocol-runtime.types.ts';

export interface QueueItem {
  number: number;
  promptId: string;
  prompt: ComfyGraph;
  extraData: Record<string, unknown>;
  outputs: string[];
}

export type WireQueueItem = [number, string, ComfyGraph, Record<string, unknown>, string[]];

export const toWire = (item: QueueItem): WireQueueItem => [
  item.number,
  item.promptId,
  item.prompt,
  item.extraData,
  item.outputs,
];

/**
 * ComfyUI's PromptQueue minus the history: a heap ordered by `number`, at most one running
 * item, and a `changed` callback fired exactly where ComfyUI calls `queue_updated()` (each one
 * becomes a `status` broadcast).
 */
export class PromptQueue {
  private pending: QueueItem[] = [];
  private running: QueueItem | null = null;
  private wake: (() => void) | null = null;

  constructor(private readonly changed: () => void) {}

  put(item: QueueItem): void {
    heapPush(this.pending, item);
    this.changed();
    this.wake?.();
  }

  /** Waits for an item, marks it running. Resolves null once `stopWaiting` is called. */
  async take(signal: { stopped: boolean }): Promise<QueueItem | null> {
    while (this.pending.length === 0) {
      if (signal.stopped) return null;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = null;
    }
    if (signal.stopped) return null;
    const item = heapPop(this.pending) as QueueItem;
    this.running = structuredClone(item);
    this.changed();
    return this.running;
  }

  stopWaiting(): void {
    this.wake?.();
  }

  /** ComfyUI's task_done: the running item leaves and `record` writes history before the status broadcast. */
  done(record: (item: QueueItem) => void): void {
    const item = this.running;
    this.running = null;
    if (item) record(item);
    this.changed();
  }

  runningItem(): QueueItem | null {
    return this.running;
  }

  remaining(): number {
    return this.pending.length + (this.running ? 1 : 0);
  }

  snapshot(): { running: WireQueueItem[]; pending: WireQueueItem[] } {
    return {
      running: this.running ? [toWire(this.running)] : [],
      pending: this.pending.map(toWire),
    };
  }

  wipe(): void {
    this.pending = [];
    this.changed();
  }

  /** Removes the first pending item with this id. Like ComfyUI, removing the last one reports twice. */
  delete(promptId: string): boolean {
    const index = this.pending.findIndex((item) => item.promptId === promptId);
    if (index < 0) return false;
    if (this.pending.length === 1) {
      this.wipe();
    } else {
      this.pending.splice(index, 1);
      heapify(this.pending);
    }
    this.changed();
    return true;
  }
}
