import type { HistoryEntry, HistoryStore, StatusMessage } from './history-store.ts';
import type { PromptQueue, QueueItem } from './prompt-queue.ts';
import type { ProtocolExecuteResult, ProtocolRuntime } from './protocol-runtime.types.ts';
import { ExecutionCache } from './execution-cache.ts';
import { ProgressTracker } from './progress-tracker.ts';

export interface EventSink {
  /** PromptServer.send_sync: a null/undefined sid broadcasts. */
  send(type: string, data: unknown, sid: unknown): void;
}

/** extra_data keys ComfyUI strips before an item reaches history. */
const SENSITIVE_EXTRA_DATA_KEYS = ['auth_token_comfy_org', 'api_key_comfy_org'];

/**
 * ComfyUI's prompt worker plus PromptExecutor's messaging: runs one item at a time and turns
 * the runtime's hooks into the WebSocket events, status messages and history entry.
 */
export class PromptExecutor {
  private interruptFlag = false;
  /** server.client_id: set when a prompt starts, kept after it ends, as in ComfyUI. */
  private clientId: unknown = null;
  private lastNodeId: string | null = null;
  private readonly stop = { stopped: false };
  private loop: Promise<void> | null = null;
  private readonly cache = new ExecutionCache();
  private running = false;
  private freeRequested = false;

  constructor(
    private readonly runtime: ProtocolRuntime,
    private readonly queue: PromptQueue,
    private readonly history: HistoryStore,
    private readonly events: EventSink,
  ) {}

  start(): void {
    this.loop ??= this.work();
  }

  async close(): Promise<void> {
    this.stop.stopped = true;
    this.interruptFlag = true;
    this.queue.stopWaiting();
    await this.loop;
  }

  /** nodes.interrupt_processing(): a flag the running prompt polls; the next prompt clears it. */
  interrupt(): void {
    this.interruptFlag = true;
  }

  /** POST /free {free_memory: true}: main.py's worker resets the executor (its caches) once the running prompt ends. */
  freeMemory(): void {
    if (this.running) this.freeRequested = true;
    else this.cache.clear();
  }

  runningClient(): { clientId: unknown; lastNodeId: string | null } {
    return { clientId: this.clientId, lastNodeId: this.lastNodeId };
  }

  private async work(): Promise<void> {
    for (;;) {
      const item = await this.queue.take(this.stop);
      if (!item) return;
      this.running = true;
      try {
        await this.run(item);
      } finally {
        this.running = false;
        if (this.freeRequested) this.cache.clear();
        this.freeRequested = false;
      }
    }
  }

  private async run(item: QueueItem): Promise<void> {
    const promptId = item.promptId;
    this.interruptFlag = false;
    const clientId = item.extraData['client_id'] ?? null;
    this.clientId = clientId;
    const hasClient = clientId !== null;
    const messages: StatusMessage[] = [];
    const addMessage = (event: string, data: Record<string, unknown>, broadcast: boolean): void => {
      const stamped = { ...data, timestamp: Date.now() };
      messages.push([event, stamped]);
      if (hasClient || broadcast) this.events.send(event, stamped, clientId);
    };
    const progress = new ProgressTracker(promptId, (data) => this.events.send('progress_state', data, clientId));
    let started = false;
    let cachedSent = false;
    const ensureStarted = (): void => {
      if (started) return;
      started = true;
      addMessage('execution_start', { prompt_id: promptId }, false);
    };
    const ensureCached = (nodes: string[] = []): void => {
      ensureStarted();
      if (cachedSent) return;
      cachedSent = true;
      addMessage('execution_cached', { nodes, prompt_id: promptId }, false);
    };

    let result: ProtocolExecuteResult;
    try {
      result = await this.runtime.execute(
        promptId,
        item.prompt,
        {
          onExecutionStart: ensureStarted,
          onCached: (nodeIds) => ensureCached([...nodeIds]),
          onExecuting: (nodeId) => {
            ensureCached();
            progress.finishRunning();
            progress.start(nodeId);
            if (hasClient) {
              this.lastNodeId = nodeId;
              this.events.send('executing', { node: nodeId, display_node: nodeId, prompt_id: promptId }, clientId);
            }
          },
          onProgress: (value, max, nodeId) => {
            ensureCached();
            progress.update(nodeId, value, max);
            this.events.send('progress', { value, max, prompt_id: promptId, node: nodeId }, clientId);
          },
          onExecuted: (nodeId, output) => {
            ensureCached();
            if (hasClient) {
              this.events.send('executed', { node: nodeId, display_node: nodeId, output, prompt_id: promptId }, clientId);
            }
            progress.finish(nodeId);
          },
          isInterrupted: () => this.interruptFlag,
          cache: this.cache,
        },
        item.outputs,
      );
    } catch (error) {
      // The runtime should report failures as values; an escaped exception still ends the prompt cleanly.
      result = {
        status: 'error',
        nodeId: progress.runningNode() ?? '',
        nodeType: item.prompt[progress.runningNode() ?? '']?.class_type ?? '',
        exceptionMessage: error instanceof Error ? error.message : String(error),
        exceptionType: error instanceof Error ? error.name : 'Exception',
        executed: [],
        outputs: {},
      };
    }
    ensureCached();
    if (result.status === 'success') {
      progress.finishRunning();
      addMessage('execution_success', { prompt_id: promptId }, false);
    } else {
      // The failing node stays "running" in the last progress_state, as ComfyUI shows it.
      if (progress.runningNode() !== result.nodeId) progress.finishRunning();
      const common = { prompt_id: promptId, node_id: result.nodeId, node_type: result.nodeType, executed: [...result.executed] };
      if (result.status === 'interrupted') {
        addMessage('execution_interrupted', common, true);
      } else {
        addMessage(
          'execution_error',
          {
            ...common,
            exception_message: result.exceptionMessage,
            exception_type: result.exceptionType,
            traceback: [],
            current_inputs: {},
            current_outputs: [...result.executed],
          },
          false,
        );
      }
    }
    this.lastNodeId = null;
    this.queue.done((done) => this.history.add(promptId, historyEntry(done, result, messages)));
    if (hasClient) this.events.send('executing', { node: null, prompt_id: promptId }, clientId);
  }
}

const historyEntry = (item: QueueItem, result: ProtocolExecuteResult, messages: StatusMessage[]): HistoryEntry => {
  const extraData = { ...item.extraData };
  for (const key of SENSITIVE_EXTRA_DATA_KEYS) delete extraData[key];
  const meta: HistoryEntry['meta'] = {};
  for (const nodeId of Object.keys(result.outputs)) {
    meta[nodeId] = { node_id: nodeId, display_node: nodeId, parent_node: null, real_node_id: nodeId };
  }
  const success = result.status === 'success';
  return {
    prompt: [item.number, item.promptId, item.prompt, extraData, item.outputs],
    outputs: result.outputs,
    status: { status_str: success ? 'success' : 'error', completed: success, messages },
    meta,
  };
};
