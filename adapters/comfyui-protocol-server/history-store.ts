/** ComfyUI's in-memory prompt history: insertion-ordered, capped, lost on restart. */
export type StatusMessage = [string, Record<string, unknown>];

export interface HistoryEntry {
  /** `[number, prompt_id, prompt, extra_data, outputs_to_execute]` */
  prompt: [number, string, unknown, Record<string, unknown>, string[]];
  outputs: Record<string, Record<string, unknown>>;
  status: { status_str: 'success' | 'error'; completed: boolean; messages: StatusMessage[] };
  meta: Record<string, { node_id: string; display_node: string; parent_node: string | null; real_node_id: string }>;
}

/** ComfyUI's MAXIMUM_HISTORY_SIZE. */
export const MAXIMUM_HISTORY_SIZE = 10000;

export class HistoryStore {
  // A Map keeps the first insertion position when a reused prompt_id overwrites, like a Python dict.
  private readonly entries = new Map<string, HistoryEntry>();

  constructor(private readonly maxSize = MAXIMUM_HISTORY_SIZE) {}

  add(promptId: string, entry: HistoryEntry): void {
    // Same off-by-one as ComfyUI: the oldest is dropped only once the map is already over the cap.
    if (this.entries.size > this.maxSize) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(promptId, structuredClone(entry));
  }

  get(promptId: string): Record<string, HistoryEntry> {
    const entry = this.entries.get(promptId);
    return entry ? { [promptId]: entry } : {};
  }

  /** `GET /history`: ComfyUI's window logic, including its quirks (max_items=0 with an offset gives one item). */
  list(maxItems: number | null, offset: number): Record<string, HistoryEntry> {
    const out: Record<string, HistoryEntry> = {};
    let start = offset;
    if (start < 0 && maxItems !== null) start = this.entries.size - maxItems;
    let i = 0;
    let count = 0;
    for (const [id, entry] of this.entries) {
      if (i >= start) {
        out[id] = entry;
        count += 1;
        if (maxItems !== null && count >= maxItems) break;
      }
      i += 1;
    }
    return out;
  }

  clear(): void {
    this.entries.clear();
  }

  delete(promptId: string): void {
    this.entries.delete(promptId);
  }
}
