import type { NodeCatalog } from '../../ports/node-catalog.port.ts';
import type { TemplateRepository } from '../../ports/template-repository.port.ts';
import type { Clock } from '../../ports/clock.port.ts';
import { narrowToChoices } from '../../domain/fit-choices.ts';
import { fleetProblems } from '../templates/fleet-check.service.ts';

/** The engine servers (1-based, as in COMFYUI_URLS) a template's jobs can run on; null when that is not known (they may compete anywhere). */
export type ServerSet = readonly number[] | null;

/** How long a template's servers are kept before the catalogue and the template are read again. */
export const SERVER_FIT_TTL_MS = 30_000;
/** Templates-and-choices kept at most; beyond that all are forgotten (read again on next use). */
export const FIT_KEPT_MAX = 10_000;

export interface ServerFitDeps {
  /** Looked up on first use (the engine may be made after this service). */
  nodes: () => NodeCatalog;
  templates: Pick<TemplateRepository, 'findById'>;
  clock: Clock;
}

/** Whether two jobs can be given the same server: yes when either set is unknown, else when they share one. */
export const compete = (a: ServerSet, b: ServerSet): boolean => a === null || b === null || a.some((server) => b.includes(server));

/**
 * Which servers can run a template's jobs (ADR 037, amended): the servers whose catalogue has no problem with the
 * template's workflow and parameter map, the same check that decides where it may be published (ADR 033), with the
 * map narrowed to the job's choices among its enum parameters (`fitChoices`, ADR 050): a job that chose flux needs a
 * server with flux, not one with every checkpoint the template offers.
 * Unknown (null), so counted as competing everywhere: a raw workflow (no template), a template gone, no catalogue
 * readable, a server that never answered (it may be able to), or a job no server can run (it fails anyway).
 * Kept SERVER_FIT_TTL_MS per template and choices (at most FIT_KEPT_MAX of them), and forgotten when a server's
 * catalogue changes.
 */
export class ServerFit {
  private readonly known = new Map<string, { servers: ServerSet; until: number }>();
  private nodes: NodeCatalog | null = null;

  constructor(private readonly deps: ServerFitDeps) {}

  /** The servers that can run a job of this template with these choices ('' : the template's own fit). */
  async of(templateId: string | null, fitChoices = ''): Promise<ServerSet> {
    if (templateId === null) return null;
    const now = this.deps.clock.now().getTime();
    const key = `${templateId}\u0000${fitChoices}`;
    const kept = this.known.get(key);
    if (kept && kept.until > now) return kept.servers;
    const servers = await this.look(templateId, fitChoices);
    if (this.known.size >= FIT_KEPT_MAX) this.known.clear();
    this.known.set(key, { servers, until: now + SERVER_FIT_TTL_MS });
    return servers;
  }

  private async look(templateId: string, fitChoices: string): Promise<ServerSet> {
    if (this.nodes === null) {
      this.nodes = this.deps.nodes();
      this.nodes.onCatalogueChange?.(() => this.known.clear());
    }
    const [fleet, template] = await Promise.all([this.nodes.catalogues(), this.deps.templates.findById(templateId)]);
    if (fleet === null || template === null || fleet.some((server) => server.objectInfo === null)) return null;
    const { problems } = fleetProblems(fleet, template.workflow, narrowToChoices(template.parameterMap, fitChoices));
    const able = fleet.map((server) => server.server).filter((server) => !problems.some((problem) => problem.server === server));
    return able.length === 0 ? null : able;
  }
}
