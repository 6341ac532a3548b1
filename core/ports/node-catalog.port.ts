import type { ObjectInfo } from '../domain/object-info.ts';

/** One engine server's catalogue, by its position in the configuration (1-based; addresses stay private). */
export interface ServerCatalogue {
  server: number;
  /** Its GET /object_info as last read; null while it has never answered. */
  objectInfo: ObjectInfo | null;
}

/** What the engine's servers can run: their node classes, inputs and combo lists (ComfyUI's `/object_info`; the builtin engine's registry). */
export interface NodeCatalog {
  /** Every server's catalogue; null when none can be read now (no server reachable). */
  catalogues(): Promise<ServerCatalogue[] | null>;
  /** Calls `listener` when a server's catalogue changes (not every engine's can); returns the unsubscribe. */
  onCatalogueChange?(listener: () => void): () => void;
}
