/**
 * ComfyUI's classic execution cache (comfy_execution/caching.py, CacheType.CLASSIC): node results by input
 * signature, kept across prompts; each new prompt drops the entries its own nodes do not use. An identical
 * prompt therefore runs nothing and lists the earlier run's files again, whether they still exist or not.
 * POST /free with free_memory empties it (after the running prompt, as main.py's worker does).
 */
type Entry = { outputs: unknown[]; ui: Record<string, unknown> | undefined };

export class ExecutionCache {
  private readonly entries = new Map<string, Entry>();

  get(signature: string): Entry | undefined {
    return this.entries.get(signature);
  }

  set(signature: string, value: Entry): void {
    this.entries.set(signature, value);
  }

  keepOnly(signatures: ReadonlySet<string>): void {
    for (const key of this.entries.keys()) if (!signatures.has(key)) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
