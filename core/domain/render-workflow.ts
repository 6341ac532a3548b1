import { ok, validationFailed } from './result.ts';
import type { FieldProblem, Result } from './result.ts';
import { checkParameterValue, RANDOM_SEED } from './parameter-map.ts';
import type { ParameterMap, ParameterMappingItem } from './parameter-map.ts';
import { inputField, isPlainObject, MAX_PROBLEMS } from './workflow-graph.ts';
import { isLink } from './workflow-graph.types.ts';
import type { WorkflowGraph, WorkflowNode } from './workflow-graph.types.ts';

export interface RenderTemplate {
  workflow: WorkflowGraph;
  parameterMap: ParameterMap;
}

/** An image parameter names an upload or output by id; the worker turns it into an engine-side file. */
export interface ImageRef {
  key: string;
  id: string;
  nodeId: string;
  inputName: string;
}

export interface RenderedWorkflow {
  workflow: WorkflowGraph;
  /** Every mapped parameter with the value the job ran with, so a result can be reproduced (random seeds included). */
  usedParameters: Record<string, unknown>;
  imageRefs: ImageRef[];
}

const SEED_SPACE = 0x1_0000_0000;

/**
 * A 32-bit unsigned seed (every sampler accepts it, and it survives any JSON or database round trip),
 * kept within the item's min/max so that a seed drawn for the user is one they could have typed.
 */
export const randomSeed = (random: () => number, min = 0, max = SEED_SPACE - 1): number => {
  const low = Math.max(0, min);
  const high = Math.min(max, low + SEED_SPACE - 1);
  return Math.min(low + Math.floor(random() * (high - low + 1)), high);
};

/**
 * Copies node and inputs objects (what rendering writes to) and shares the literals under them, which
 * nothing here writes. A full deep copy per render costs several times more on large templates.
 */
const copyGraph = (graph: WorkflowGraph): WorkflowGraph => {
  const out: WorkflowGraph = {};
  for (const id in graph) {
    const node = graph[id]!;
    const source = node.inputs;
    const inputs: Record<string, unknown> = {};
    for (const name in source) {
      const value = source[name];
      // Links are the one array shape consumers commonly rewrite (e.g. when splicing graphs), so they are copied.
      inputs[name] = Array.isArray(value) ? [value[0], value[1]] : value;
    }
    const copy: WorkflowNode = { class_type: node.class_type, inputs };
    if (node._meta !== undefined) copy._meta = node._meta;
    out[id] = copy;
  }
  return out;
};

const cloneLiteral = (value: unknown): unknown =>
  typeof value === 'object' && value !== null ? structuredClone(value) : value;

interface Locator {
  field: (name: string, item: ParameterMappingItem) => string;
  message: (name: string, message: string) => string;
  /** True when the value is the template's own literal, which rendering keeps unchecked (e.g. LoadImage's file name). */
  isTemplateLiteral?: (name: string) => boolean;
}

/** Fills every mapped input of a copy of the template from `supplied`, by the rules of each mapping item. */
const applyParameters = (
  template: RenderTemplate,
  supplied: (name: string) => unknown,
  random: () => number,
  locate: Locator,
  problems: FieldProblem[],
): Result<RenderedWorkflow> => {
  const workflow = copyGraph(template.workflow);
  const usedParameters: Record<string, unknown> = {};
  const imageRefs: ImageRef[] = [];
  const map = template.parameterMap;
  const add = (name: string, item: ParameterMappingItem, message: string): void => {
    if (problems.length < MAX_PROBLEMS) problems.push({ field: locate.field(name, item), message: locate.message(name, message) });
  };

  for (const name in map) {
    const item = map[name]!;
    const node = workflow[item.node_id];
    if (node === undefined) {
      // The map was validated against this workflow when it was stored; reaching here is a bug, not bad input.
      throw new Error(`parameter ${name} maps to node ${item.node_id}, which is not in the template's workflow`);
    }
    let value = supplied(name);
    if (value === undefined || value === null) {
      if (item.default !== undefined) value = item.default;
      else if (item.required) {
        add(name, item, 'is required');
        continue;
      } else if (item.type === 'seed') value = RANDOM_SEED;
      else {
        usedParameters[name] = cloneLiteral(node.inputs[item.input_name]);
        continue;
      }
    }
    const checked = checkParameterValue(item, value);
    if (!checked.ok && locate.isTemplateLiteral?.(name)) {
      usedParameters[name] = cloneLiteral(node.inputs[item.input_name]);
      continue;
    }
    if (!checked.ok) {
      add(name, item, checked.message);
      continue;
    }
    let final = checked.value;
    if (item.type === 'seed' && final === RANDOM_SEED) final = randomSeed(random, item.min, item.max);
    node.inputs[item.input_name] = final;
    usedParameters[name] = final;
    if (item.type === 'image') {
      imageRefs.push({ key: name, id: final as string, nodeId: item.node_id, inputName: item.input_name });
    }
  }

  return problems.length > 0 ? validationFailed(problems) : ok({ workflow, usedParameters, imageRefs });
};

const listNames = (names: readonly string[]): string => {
  const shown = names.slice(0, 20).join(', ');
  return names.length > 20 ? `${shown} and ${names.length - 20} more` : shown;
};

/**
 * Renders a template with a user's parameters. `random` returns [0, 1) like Math.random; it is injected so
 * that tests and replays are deterministic. The template is never modified.
 */
export const renderWorkflow = (
  template: RenderTemplate,
  parameters: unknown,
  random: () => number,
): Result<RenderedWorkflow> => {
  if (parameters !== undefined && parameters !== null && !isPlainObject(parameters)) {
    return validationFailed([{ field: 'parameters', message: 'must be an object from parameter name to value' }]);
  }
  const params: Record<string, unknown> = parameters ?? {};
  const map = template.parameterMap;
  const problems: FieldProblem[] = [];
  for (const name of Object.keys(params)) {
    if (!Object.hasOwn(map, name) && problems.length < MAX_PROBLEMS) {
      const known = Object.keys(map);
      problems.push({
        field: `parameters.${name}`,
        message: `is not a parameter of this template (${known.length > 0 ? `known: ${listNames(known)}` : 'it takes none'})`,
      });
    }
  }
  return applyParameters(
    template,
    (name) => (Object.hasOwn(params, name) ? params[name] : undefined),
    random,
    { field: (name) => `parameters.${name}`, message: (_name, message) => message },
    problems,
  );
};

/** Structural equality of JSON values; a link's source id may be a number on one side and a string on the other. */
export const sameValue = (a: unknown, b: unknown): boolean => {
  if (a === b) return true;
  if (isLink(a) && isLink(b)) return String(a[0]) === String(b[0]) && a[1] === b[1];
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => sameValue(v, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    // hasOwn: a parsed "__proto__" key is an own key; without the check it would be read from b's prototype.
    return keys.every((k) => Object.hasOwn(b, k) && sameValue(a[k], b[k]));
  }
  return false;
};

/**
 * Accepts a full workflow submitted with a template id when it is the template with only mapped inputs
 * changed, and checks those values exactly as rendering would. `_meta` (titles) may differ: it does not
 * reach execution. `random` is only used for a submitted seed of -1.
 */
export const checkConformance = (
  template: RenderTemplate,
  submitted: WorkflowGraph,
  random: () => number = Math.random,
): Result<RenderedWorkflow> => {
  if (!isPlainObject(submitted)) {
    return validationFailed([{ field: 'workflow', message: 'must be an object from node id to {class_type, inputs}' }]);
  }
  const problems: FieldProblem[] = [];
  const add = (field: string, message: string): void => {
    if (problems.length < MAX_PROBLEMS) problems.push({ field, message });
  };
  const expected = template.workflow;
  const mappedByNode = new Map<string, Map<string, string>>();
  for (const [name, item] of Object.entries(template.parameterMap)) {
    let inputs = mappedByNode.get(item.node_id);
    if (!inputs) mappedByNode.set(item.node_id, (inputs = new Map()));
    inputs.set(item.input_name, name);
  }

  for (const id of Object.keys(expected)) {
    if (!Object.hasOwn(submitted, id)) add(`workflow.${id}`, `is missing: the template has node ${id} (${expected[id]!.class_type})`);
  }
  for (const id of Object.keys(submitted)) {
    const want = expected[id];
    if (!Object.hasOwn(expected, id) || want === undefined) {
      add(`workflow.${id}`, 'is not in the template; only the values of mapped inputs may change');
      continue;
    }
    const got = submitted[id] as unknown;
    if (!isPlainObject(got) || !isPlainObject(got['inputs'])) {
      add(`workflow.${id}`, 'must be an object with class_type and inputs');
      continue;
    }
    if (got['class_type'] !== want.class_type) {
      add(`workflow.${id}.class_type`, `must be ${want.class_type} as in the template`);
      continue;
    }
    const gotInputs = got['inputs'];
    const mapped = mappedByNode.get(id);
    const mayChange = mapped && mapped.size > 0 ? `only ${[...mapped.keys()].join(', ')} may change on this node` : 'no input of this node is a parameter';
    for (const name of Object.keys(want.inputs)) {
      if (mapped?.has(name)) {
        if (isLink(gotInputs[name])) add(inputField(id, name), `parameter ${mapped.get(name)!}: must be a value, not a link`);
        continue;
      }
      if (!Object.hasOwn(gotInputs, name)) add(inputField(id, name), `is missing; the template sets it (${mayChange})`);
      else if (!sameValue(want.inputs[name], gotInputs[name])) add(inputField(id, name), `differs from the template (${mayChange})`);
    }
    for (const name of Object.keys(gotInputs)) {
      if (!Object.hasOwn(want.inputs, name)) add(inputField(id, name), 'is not in the template');
    }
  }
  if (problems.length > 0) return validationFailed(problems);

  const submittedValue = (name: string): unknown => {
    const item = template.parameterMap[name]!;
    return (submitted[item.node_id]!.inputs as Record<string, unknown>)[item.input_name];
  };
  return applyParameters(template, submittedValue, random, {
    field: (_name, item) => inputField(item.node_id, item.input_name),
    message: (name, message) => `parameter ${name}: ${message}`,
    isTemplateLiteral: (name) => {
      const item = template.parameterMap[name]!;
      return sameValue(submittedValue(name), expected[item.node_id]!.inputs[item.input_name]);
    },
  }, problems);
};
