/** The node classes an engine can run (ComfyUI's `/object_info`; the builtin engine's registry). */
export interface NodeCatalog {
  /** Every class_type the engine knows now; null when it cannot tell (no server reachable). */
  knownNodeTypes(): Promise<ReadonlySet<string> | null>;
}
