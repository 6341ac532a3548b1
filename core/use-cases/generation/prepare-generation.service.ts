import { takeAssetReferences, type AssetInput } from '../../domain/asset-reference.ts';
import { isUuid } from '../../domain/ids.ts';
import type { ImageRef } from '../../domain/job.ts';
import { checkResourceLimits, type ResourceLimits } from '../../domain/resource-limits.ts';
import { checkConformance, renderWorkflow, type RenderedWorkflow } from '../../domain/render-workflow.ts';
import { fail, ok, validationFailed, type Fail, type FieldProblem, type Result } from '../../domain/result.ts';
import type { UserRole } from '../../domain/user.ts';
import { inputField, validateWorkflowGraph, type WorkflowGraphOptions } from '../../domain/workflow-graph.ts';
import type { WorkflowGraph } from '../../domain/workflow-graph.types.ts';
import type { NodeCatalog } from '../../ports/node-catalog.port.ts';
import { checkOnFleet } from '../templates/fleet-check.service.ts';
import { fitChoicesOf } from '../../domain/fit-choices.ts';
import type { ActiveTemplates, TemplateForGeneration } from './active-templates.service.ts';
import type { InputImage, InputImages } from './input-images.service.ts';

export interface RawWorkflowPolicy {
  /** Roles that may run a workflow that matches no active template (ALLOW_RAW_WORKFLOWS). */
  roles: readonly UserRole[];
  /** What such a run costs (RAW_WORKFLOW_COST). */
  cost: number;
}

export interface PrepareGenerationDeps {
  templates: ActiveTemplates;
  images: InputImages;
  random: () => number;
  outputNodeTypes: readonly string[];
  allowedNodeTypes: readonly string[] | null;
  raw: RawWorkflowPolicy;
  /** The caps every workflow that runs must fit (checked on the rendered graph). */
  limits: ResourceLimits;
  /** When bound, a raw workflow no engine server can run is refused (templates were checked when saved). */
  nodes?: NodeCatalog;
}

export interface GenerationRequest {
  userId: string;
  role: UserRole;
  workflow?: unknown;
  templateId?: unknown;
  parameters?: unknown;
}

/** What a job will run and what it costs. */
export interface PreparedGeneration {
  workflow: WorkflowGraph;
  usedParameters: Record<string, unknown>;
  imageRefs: ImageRef[];
  images: InputImage[];
  templateId: string | null;
  templateVersion: number | null;
  price: number;
  outputType: 'image' | 'video';
  /** The job's choices among its template's enum parameters (`fitChoicesOf`); '' for a raw workflow. */
  fitChoices: string;
}

const VIDEO_NODES = new Set(['SaveVideo', 'SaveWEBM', 'VHS_VideoCombine']);

/** A core/ASSET reference (ADR 042) the job cannot read: v2's `missing_asset`. */
const missingAsset = (problems: FieldProblem[]): Fail => fail('ASSET.MISSING', `An asset reference is not usable: ${problems[0]!.field} ${problems[0]!.message}`, problems);
const NOT_YOURS = 'is not one of your uploads or outputs';

/** The same nodes (ids and class types) as the template: the template this raw workflow is a run of. */
const sameShape = (template: WorkflowGraph, graph: WorkflowGraph): boolean => {
  const ids = Object.keys(template);
  return ids.length === Object.keys(graph).length && ids.every((id) => graph[id]?.class_type === template[id]!.class_type);
};

/**
 * Turns a generation request into the workflow a job runs and its price. No generation is free unless an
 * operator priced it at 0: a template run costs the template's cost; a raw workflow that is a run of an active
 * template (its graph, with only mapped inputs changed) costs that template's; any other raw workflow is
 * refused unless ALLOW_RAW_WORKFLOWS lets the caller's role run it, at RAW_WORKFLOW_COST.
 */
export class PrepareGeneration {
  constructor(private readonly deps: PrepareGenerationDeps) {}

  async execute(request: GenerationRequest): Promise<Result<PreparedGeneration>> {
    return this.withinLimits(await this.prepare(request));
  }

  /**
   * A run of this template with these parameters, whatever its state: an administrator's test run of a draft
   * (ADR 043). The same rendering, checks and limits as a user's run of an offered template.
   */
  async ofTemplate(userId: string, template: TemplateForGeneration, parameters: unknown): Promise<Result<PreparedGeneration>> {
    const rendered = renderWorkflow(template, parameters, this.deps.random);
    return this.withinLimits(await this.fromTemplate(userId, template, rendered, this.graphOptions(), []));
  }

  private graphOptions(): WorkflowGraphOptions {
    return { outputNodeTypes: this.deps.outputNodeTypes, ...(this.deps.allowedNodeTypes ? { allowedNodeTypes: this.deps.allowedNodeTypes } : {}) };
  }

  private withinLimits(prepared: Result<PreparedGeneration>): Result<PreparedGeneration> {
    if (!prepared.ok) return prepared;
    const problems = checkResourceLimits(prepared.value.workflow, this.deps.limits);
    return problems.length > 0 ? validationFailed(problems, `The workflow exceeds a resource limit: ${problems[0]!.message}`) : prepared;
  }

  private async prepare(request: GenerationRequest): Promise<Result<PreparedGeneration>> {
    const { templateId, parameters } = request;
    // Asset references become the asset's id, read like an image parameter's value (ADR 042).
    const taken = request.workflow === undefined ? null : takeAssetReferences(request.workflow);
    if (taken && taken.problems.length > 0) return missingAsset(taken.problems);
    const workflow = taken?.workflow;
    const assets = taken?.inputs ?? [];
    if (workflow === undefined && templateId === undefined) return validationFailed([{ field: 'workflow', message: 'workflow or templateId is required' }]);
    if (workflow !== undefined && parameters !== undefined) {
      return validationFailed([{ field: 'parameters', message: 'send either workflow or parameters, not both' }]);
    }
    const graphOptions = this.graphOptions();
    const graph = workflow === undefined ? null : validateWorkflowGraph(workflow, graphOptions);
    if (graph && !graph.ok) return graph;

    if (templateId !== undefined) {
      if (!isUuid(templateId)) return validationFailed([{ field: 'templateId', message: 'must be a UUID' }]);
      const template = await this.deps.templates.find(templateId.toLowerCase());
      if (!template) return validationFailed([{ field: 'templateId', message: 'no active template with this id' }]);
      const rendered = graph ? checkConformance(template, graph.value, this.deps.random) : renderWorkflow(template, parameters, this.deps.random);
      return this.fromTemplate(request.userId, template, rendered, graphOptions, assets);
    }
    const raw = graph!.value;
    // A run of an active template: the first (oldest) whose graph it conforms to. When some have its shape
    // but none accepts it, the first one's problems say what to change.
    let refusal: Result<RenderedWorkflow> | null = null;
    for (const template of await this.deps.templates.list()) {
      if (!sameShape(template.workflow, raw)) continue;
      const rendered = checkConformance(template, raw, this.deps.random);
      if (rendered.ok) return this.fromTemplate(request.userId, template, rendered, graphOptions, assets);
      refusal ??= rendered;
    }
    if (refusal && !this.deps.raw.roles.includes(request.role)) return refusal as Fail;
    if (!this.deps.raw.roles.includes(request.role)) {
      return validationFailed([{ field: 'workflow', message: 'matches no active template; run a template (templateId), or ask an administrator to add one for this workflow' }]);
    }
    const fleet = await checkOnFleet(this.deps.nodes, raw);
    if (!fleet.ok) return fleet;
    const outputType = Object.values(raw).some((node) => VIDEO_NODES.has(node.class_type)) ? 'video' : 'image';
    // In a raw workflow every asset reference is an input file of the job.
    const imageRefs = assets.map((asset) => ({ key: `${asset.nodeId}.${asset.inputName}`, ...asset }));
    const images: InputImage[] = [];
    for (const ref of imageRefs) {
      const image = await this.deps.images.find(request.userId, ref.id);
      if (!image) return missingAsset([{ field: inputField(ref.nodeId, ref.inputName), message: NOT_YOURS }]);
      images.push(image);
    }
    return ok({ workflow: raw, usedParameters: {}, imageRefs, images, templateId: null, templateVersion: null, price: this.deps.raw.cost, outputType, fitChoices: '' });
  }

  private async fromTemplate(
    userId: string,
    template: TemplateForGeneration,
    rendered: Result<RenderedWorkflow>,
    graphOptions: WorkflowGraphOptions,
    assets: AssetInput[],
  ): Promise<Result<PreparedGeneration>> {
    if (!rendered.ok) return rendered;
    const isAsset = (ref: { nodeId: string; inputName: string }) => assets.some((asset) => asset.nodeId === ref.nodeId && asset.inputName === ref.inputName);
    const misplaced = assets.find((asset) => !rendered.value.imageRefs.some((ref) => ref.nodeId === asset.nodeId && ref.inputName === asset.inputName));
    if (misplaced) return missingAsset([{ field: inputField(misplaced.nodeId, misplaced.inputName), message: 'takes no image in this template: an asset reference can only stand where it takes one' }]);
    // The template may predate a tightened ALLOWED_NODE_TYPES; the rendered graph is what runs.
    const final = validateWorkflowGraph(rendered.value.workflow, graphOptions);
    if (!final.ok) return final;
    const images: InputImage[] = [];
    for (const ref of rendered.value.imageRefs) {
      const image = await this.deps.images.find(userId, ref.id);
      if (!image && isAsset(ref)) return missingAsset([{ field: inputField(ref.nodeId, ref.inputName), message: NOT_YOURS }]);
      if (!image) return validationFailed([{ field: `parameters.${ref.key}`, message: NOT_YOURS }]);
      images.push(image);
    }
    return ok({
      workflow: final.value,
      usedParameters: rendered.value.usedParameters,
      imageRefs: rendered.value.imageRefs,
      images,
      templateId: template.id,
      templateVersion: template.version,
      price: template.cost,
      outputType: template.outputType,
      fitChoices: fitChoicesOf(template.parameterMap, rendered.value.usedParameters),
    });
  }
}
