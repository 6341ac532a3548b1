import { problemField, validateAgainstObjectInfo, type WorkflowProblem } from '../../domain/object-info.ts';
import type { ParameterMap } from '../../domain/parameter-map.ts';
import { ok, validationFailed, type Fail, type Result } from '../../domain/result.ts';
import type { TemplateRevision } from '../../domain/template-revision.ts';
import type { WorkflowTemplate } from '../../domain/workflow-template.ts';
import type { NodeCatalog, ServerCatalogue } from '../../ports/node-catalog.port.ts';
import { reviseStoredTemplate, type ReviseTemplateDeps, type RevisionAudit } from './revise-template.service.ts';

/** A problem one server has with a template: the template cannot run there. */
export type ServerProblem = WorkflowProblem & { server: number };

/** A template as administrators see it: with the problems of the servers that cannot run it (when any are known). */
export type TemplateWithProblems = WorkflowTemplate & { problems?: ServerProblem[] };

/** Every server's problems with a workflow; `runnable` when at least one server has none (or none could be read). */
export const fleetProblems = (fleet: ServerCatalogue[] | null, workflow: unknown, parameterMap?: ParameterMap): { problems: ServerProblem[]; runnable: boolean; servers: number } => {
  const known = (fleet ?? []).filter((s) => s.objectInfo !== null);
  const perServer = known.map((s) => validateAgainstObjectInfo(workflow, s.objectInfo!, parameterMap).map((p): ServerProblem => ({ ...p, server: s.server })));
  return { problems: perServer.flat(), runnable: known.length === 0 || perServer.some((list) => list.length === 0), servers: known.length };
};

/** The template with `problems` set when the catalogue is known. */
export const withProblems = (fleet: ServerCatalogue[] | null, template: WorkflowTemplate): TemplateWithProblems =>
  fleet === null ? template : { ...template, problems: fleetProblems(fleet, template.workflow, template.parameterMap).problems };

export type FleetVerdict = { ok: true; problems: ServerProblem[] } | Fail<'VALIDATION.FAILED'>;

/**
 * A workflow (and its parameter map) against every server's catalogue. It is accepted when at least one server
 * can run it; the problems of the servers that cannot are returned as warnings. When none can, the failure names
 * every problem, each once, with the servers it occurs on when not all of them. No catalogue, or none readable
 * now, accepts without checking: the engine still rejects the prompt when it runs.
 */
export const judgeOnFleet = (fleet: ServerCatalogue[] | null, workflow: unknown, parameterMap?: ParameterMap): FleetVerdict => {
  const { problems, runnable, servers: count } = fleetProblems(fleet, workflow, parameterMap);
  if (runnable) return { ok: true, problems };
  const byField = new Map<string, { field: string; message: string; servers: number[] }>();
  for (const p of problems) {
    const { field, message } = problemField(p);
    const key = `${field}\u0000${message}`;
    const entry = byField.get(key) ?? { field, message, servers: [] };
    entry.servers.push(p.server);
    byField.set(key, entry);
  }
  const details = [...byField.values()].map(({ field, message, servers }) => ({
    field,
    message: servers.length === count ? message : `${message} on ${servers.map((n) => `server ${n}`).join(', ')}`,
  }));
  return validationFailed(details, 'No engine server can run this workflow');
};

export const checkOnFleet = async (catalog: NodeCatalog | undefined, workflow: unknown, parameterMap?: ParameterMap): Promise<FleetVerdict> =>
  judgeOnFleet(catalog ? await catalog.catalogues() : null, workflow, parameterMap);

/**
 * The stored template revised under its row lock (see `reviseStoredTemplate`); a revision that makes a new
 * version (a new workflow or map) must run on some server. The catalogue is read before the lock: it may be a
 * network call. A change of name or cost of a template the fleet has since lost stays possible.
 */
export const reviseOnFleet = async (
  deps: ReviseTemplateDeps & { nodes?: NodeCatalog },
  rawId: unknown,
  revise: (current: WorkflowTemplate) => Result<TemplateRevision>,
  audit: RevisionAudit,
): Promise<Result<TemplateWithProblems>> => {
  const fleet = deps.nodes ? await deps.nodes.catalogues() : null;
  const result = await reviseStoredTemplate(deps, rawId, (current) => {
    const revision = revise(current);
    if (!revision.ok || !revision.value.newVersion) return revision;
    const verdict = judgeOnFleet(fleet, revision.value.next.workflow, revision.value.next.parameterMap);
    return verdict.ok ? revision : verdict;
  }, audit);
  return result.ok ? ok(withProblems(fleet, result.value)) : result;
};
