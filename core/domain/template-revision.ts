import { validateParameterMap } from './parameter-map.ts';
import { CATEGORIES, isCategory } from './parameter-presets.ts';
import type { Category } from './parameter-presets.ts';
import { sameValue } from './render-workflow.ts';
import { ok, validationFailed } from './result.ts';
import type { FieldProblem, Result } from './result.ts';
import { isPlainObject, validateWorkflowGraph } from './workflow-graph.ts';
import type { WorkflowGraph } from './workflow-graph.types.ts';
import { OUTPUT_TYPES, TEMPLATE_COST_MAX, TEMPLATE_DESCRIPTION_MAX, TEMPLATE_NAME_MAX } from './workflow-template.ts';
import type { OutputType, WorkflowTemplate } from './workflow-template.ts';

/** Server rules a workflow must meet (OUTPUT_NODE_TYPES, ALLOWED_NODE_TYPES). */
export interface TemplateRules {
  outputNodeTypes?: readonly string[];
  allowedNodeTypes?: readonly string[] | null;
}

/** Step 1 of creating a template: everything but the parameter map. */
export interface TemplateFields {
  name: string;
  description: string | null;
  category: Category;
  workflow: WorkflowGraph;
  cost: number;
  outputType: OutputType;
  isActive: boolean;
}

type Check<T> = (value: unknown) => { ok: true; value: T } | { ok: false; message: string };
type ScalarField = Exclude<keyof TemplateFields, 'workflow'>;

const good = <T>(value: T) => ({ ok: true as const, value });
const bad = (message: string) => ({ ok: false as const, message });

const SCALAR_CHECKS: { [K in ScalarField]: Check<TemplateFields[K]> } = {
  name: (v) => {
    const name = typeof v === 'string' ? v.trim() : '';
    return name.length >= 1 && name.length <= TEMPLATE_NAME_MAX ? good(name) : bad(`must be a string of 1 to ${TEMPLATE_NAME_MAX} characters`);
  },
  description: (v) => {
    if (v === null) return good(null);
    if (typeof v !== 'string' || v.length > TEMPLATE_DESCRIPTION_MAX) return bad(`must be a string of at most ${TEMPLATE_DESCRIPTION_MAX} characters`);
    return good(v.trim() === '' ? null : v);
  },
  category: (v) => (isCategory(v) ? good(v) : bad(`must be one of ${CATEGORIES.join(', ')}`)),
  cost: (v) =>
    typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= TEMPLATE_COST_MAX
      ? good(v)
      : bad(`must be an integer number of coins from 0 to ${TEMPLATE_COST_MAX}`),
  outputType: (v) =>
    typeof v === 'string' && (OUTPUT_TYPES as readonly string[]).includes(v) ? good(v as OutputType) : bad(`must be one of ${OUTPUT_TYPES.join(', ')}`),
  isActive: (v) => (typeof v === 'boolean' ? good(v) : bad('must be true or false')),
};

const REQUIRED_ON_CREATE: readonly ScalarField[] = ['name', 'category', 'cost', 'outputType'];

const graphOptions = (rules: TemplateRules) => ({
  ...(rules.outputNodeTypes ? { outputNodeTypes: rules.outputNodeTypes } : {}),
  ...(rules.allowedNodeTypes ? { allowedNodeTypes: rules.allowedNodeTypes } : {}),
});

const notAnObject = () => validationFailed([{ field: 'body', message: 'must be a JSON object' }]);

/** Checks the fields present in `input` (all of them when `required` lists them), collecting every problem. */
const checkFields = (
  input: Record<string, unknown>,
  rules: TemplateRules,
  required: readonly ScalarField[],
): Result<Partial<TemplateFields>> => {
  const problems: FieldProblem[] = [];
  const fields: Partial<Record<keyof TemplateFields, unknown>> = {};
  for (const name of Object.keys(SCALAR_CHECKS) as ScalarField[]) {
    const value = input[name];
    if (value === undefined) {
      if (required.includes(name)) problems.push({ field: name, message: 'is required' });
      continue;
    }
    const checked = SCALAR_CHECKS[name](value);
    if (checked.ok) fields[name] = checked.value;
    else problems.push({ field: name, message: checked.message });
  }
  if (input['workflow'] === undefined) {
    if (required.length > 0) problems.push({ field: 'workflow', message: 'is required' });
  } else {
    const graph = validateWorkflowGraph(input['workflow'], graphOptions(rules));
    if (graph.ok) fields.workflow = graph.value;
    else problems.push(...(graph.details ?? []));
  }
  return problems.length > 0 ? validationFailed(problems) : ok(fields as Partial<TemplateFields>);
};

/** Validates step 1 (POST): every field at once, the workflow against the server's node rules. */
export const checkNewTemplate = (input: unknown, rules: TemplateRules): Result<TemplateFields> => {
  if (!isPlainObject(input)) return notAnObject();
  const checked = checkFields(input, rules, REQUIRED_ON_CREATE);
  if (!checked.ok) return checked;
  const fields = checked.value as TemplateFields;
  return ok({ ...fields, description: fields.description ?? null, isActive: fields.isActive ?? true });
};

export interface TemplateRevision {
  next: WorkflowTemplate;
  /** False when the input changes nothing (then nothing needs saving). */
  changed: boolean;
  /** True when workflow or parameter map changed: `next.version` is one more than before. */
  newVersion: boolean;
}

/**
 * Applies a PATCH (any subset of step 1 plus `parameter_map`) to a template. Fields are validated together:
 * a new map is checked against the resulting workflow and category, and a new workflow or category
 * re-checks the stored map, so a template never holds a map that points at nodes it no longer has.
 * An empty stored map (step 2 not done yet) is not re-checked: it promises nothing yet.
 * `updatedAt` is left to the caller, which owns the clock.
 */
export const reviseTemplate = (current: WorkflowTemplate, input: unknown, rules: TemplateRules): Result<TemplateRevision> => {
  if (!isPlainObject(input)) return notAnObject();
  const checked = checkFields(input, rules, []);
  if (!checked.ok) return checked;
  const fields = checked.value;
  const next: WorkflowTemplate = { ...current, ...fields };
  const workflowChanged = fields.workflow !== undefined && !sameValue(fields.workflow, current.workflow);
  if (!workflowChanged) next.workflow = current.workflow;
  const categoryChanged = next.category !== current.category;

  let mapChanged = false;
  if (input['parameter_map'] !== undefined) {
    const map = validateParameterMap(input['parameter_map'], next.workflow, next.category);
    if (!map.ok) return map;
    mapChanged = !sameValue(map.value, current.parameterMap);
    if (mapChanged) next.parameterMap = map.value;
  } else if ((workflowChanged || categoryChanged) && Object.keys(current.parameterMap).length > 0) {
    // Only a check: the stored map is already normalised, and re-normalising could bring back preset
    // defaults that the admin removed with `"default": null`.
    const recheck = validateParameterMap(current.parameterMap, next.workflow, next.category);
    if (!recheck.ok) {
      const what = workflowChanged ? 'workflow' : 'category';
      return validationFailed(recheck.details ?? [], `The current parameter map does not fit the new ${what}; send a parameter_map that does`);
    }
  }

  const newVersion = workflowChanged || mapChanged;
  next.version = current.version + (newVersion ? 1 : 0);
  const changed =
    newVersion ||
    (Object.keys(SCALAR_CHECKS) as ScalarField[]).some((name) => next[name] !== current[name]);
  return ok({ next, changed, newVersion });
};

/** Validates a parameter map for a template (PUT) by the same rules as a PATCH carrying only the map. */
export const replaceParameterMap = (current: WorkflowTemplate, map: unknown, rules: TemplateRules): Result<TemplateRevision> =>
  reviseTemplate(current, { parameter_map: map === undefined ? null : map }, rules);
