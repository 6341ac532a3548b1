import type { EngineFleet, EngineServerStatus } from '../../core/ports/engine-fleet.port.ts';
import { ComfyClient } from './comfy-client.ts';
import { modelFilesOf, type ObjectInfo } from '../../core/domain/object-info.ts';

const MiB = 1024 * 1024;

/**
 * The ComfyUI servers of COMFYUI_URLS as the admin console shows them: each asked directly (system_stats, queue,
 * object_info), so an API process without the worker role sees them too. Errors name the server by its place.
 */
export class ComfyFleet implements EngineFleet {
  private readonly clients: ComfyClient[];

  constructor(options: { urls: string[]; token?: string; timeoutMs: number }) {
    this.clients = options.urls.map((url) => new ComfyClient(url, { timeoutMs: options.timeoutMs, ...(options.token ? { token: options.token } : {}) }));
  }

  servers(): Promise<EngineServerStatus[]> {
    return Promise.all(this.clients.map((client, index) => this.status(client, index + 1)));
  }

  private async status(client: ComfyClient, server: number): Promise<EngineServerStatus> {
    const name = `server ${server}`;
    try {
      const [stats, queue, objectInfo] = await Promise.all([client.systemStats(), client.queue(), client.objectInfo()]);
      return {
        server,
        name,
        healthy: true,
        error: null,
        running: queue.running.length,
        waiting: queue.pending.length,
        version: stats.system?.comfyui_version ?? null,
        devices: (stats.devices ?? []).map((d) => ({ name: d.name, vramTotalMiB: Math.round(d.vram_total / MiB), vramFreeMiB: Math.round(d.vram_free / MiB) })),
        models: modelFilesOf(objectInfo as ObjectInfo),
      };
    } catch (error) {
      const message = ((error as Error)?.message ?? String(error)).replaceAll(client.name, name);
      return { server, name, healthy: false, error: message, running: null, waiting: null, version: null, devices: [], models: {} };
    }
  }
}
