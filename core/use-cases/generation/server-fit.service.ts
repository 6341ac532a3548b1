import type { NodeCatalog } from '../../ports/node-catalog.port.ts';
import type { TemplateRepository } from '../../ports/template-repository.port.ts';
import type { Clock } from '../../ports/clock.port.ts';
import { fleetProblems } from '../templates/fleet-check.service.ts';

/** The engine servers (1-based, as in COMFYUI_URLS) a template's jobs can run on; null when that is not known (they may compete anywhere). */
export type ServerSet = readonly number[] | null;

/** How long a template's servers are kept before the catalogue and the template are read again. */
export const SERVER_FIT_TTL_MS = 30_000;

export interface ServerFitDeps {
  /** Looked up on first use (the engine may be made after this service). */
  nodes: () => NodeCatalog;
  templates: Pick<TemplateRepository, 'findById'>;
  clock: Clock;
}

/** Whether two jobs can be given the same server: yes when either set is unknown, else when they share one. */
export const compete = (a: ServerSet, b: ServerSet): boolean => a === null || b === null || a.some((server) => b.includes(server));

/**
 * Which servers can run each template's jobs (ADR 037, amended): the servers whose catalogue has no problem with
 * the template's workflow and parameter map, the same check that decides where it may be published (ADR 033).
 * Unknown (null), so counted as competing everywhere: a raw workflow (no template), a template gone, no catalogue
 * readable, a server that never answered (it may be able to), or a template no server can run (its jobs fail anyway).
 * Kept SERVER_FIT_TTL_MS per template, and forgotten when a server's catalogue changes.
 */
export class ServerFit {
  private readonly known = new Map<string, { servers: ServerSet; until: number }>();
  private nodes: NodeCatalog | null = null;

  constructor(private readonly deps: ServerFitDeps) {}

  async of(templateId: string | null): Promise<ServerSet> {
    if (templateId === null) return null;
    const now = this.deps.clock.now().getTime();
    const kept = this.known.get(templateId);
    if (kept && kept.until > now) return kept.servers;
    const servers = await this.look(templateId);
    this.known.set(templateId, { servers, until: now + SERVER_FIT_TTL_MS });
    return servers;
  }

  private async look(templateId: string): Promise<ServerSet> {
    if (this.nodes === null) {
      this.nodes = this.deps.nodes();
      this.nodes.onCatalogueChange?.(() => this.known.clear());
    }
    const [fleet, template] = await Promise.all([this.nodes.catalogues(), this.deps.templates.findById(templateId)]);
    if (fleet === null || template === null || fleet.some((server) => server.objectInfo === null)) return null;
    const { problems } = fleetProblems(fleet, template.workflow, template.parameterMap);
    const able = fleet.map((server) => server.server).filter((server) => !problems.some((problem) => problem.server === server));
    return able.length === 0 ? null : able;
  }
}
