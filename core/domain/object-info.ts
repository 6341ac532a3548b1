/**
 * A workflow checked against one engine's node catalogue (ComfyUI's GET /object_info) by the rules ComfyUI's
 * own POST /prompt validation applies (execution.py validate_inputs): the node class exists, every required
 * input is present, a link points at an existing node and output slot whose type the input accepts, INT and
 * FLOAT literals lie within min/max (ComfyUI checks no step), and a combo value is one the list offers. Every
 * problem is named (node id, class, input, why) rather than the first one only. Pure: no I/O.
 */
import type { ParameterMap, ParameterMappingItem } from './parameter-map.ts';
import { MAX_SEED } from './parameter-map.ts';
import { isPlainObject, MAX_PROBLEMS } from './workflow-graph.ts';
import { isLink } from './workflow-graph.types.ts';

/** One node class as /object_info describes it. An input spec is `[type, options?]`; a combo's type is its list. */
export interface ObjectInfoNode {
  input?: { required?: Record<string, unknown>; optional?: Record<string, unknown>; hidden?: Record<string, unknown> };
  output?: unknown[];
  [key: string]: unknown;
}

export type ObjectInfo = Record<string, ObjectInfoNode>;

export type WorkflowProblemCode =
  | 'invalid_node'
  | 'node_missing'
  | 'required_input_missing'
  | 'bad_link'
  | 'return_type_mismatch'
  | 'invalid_input_type'
  | 'value_smaller_than_min'
  | 'value_bigger_than_max'
  | 'value_not_in_list'
  | 'parameter_out_of_bounds';

export interface WorkflowProblem {
  nodeId: string;
  classType: string;
  input?: string;
  code: WorkflowProblemCode;
  message: string;
}

interface InputSpec {
  type: unknown;
  extra: Record<string, unknown>;
}

/** Combo inputs whose list is the server's input folder: the engine uploads those files when a job runs. */
const UPLOAD_FLAGS = ['image_upload', 'video_upload', 'audio_upload'] as const;

const specOf = (raw: unknown): InputSpec | null => {
  if (!Array.isArray(raw) || raw.length === 0) return null;
  return { type: raw[0], extra: isPlainObject(raw[1]) ? raw[1] : {} };
};

/**
 * The choices of a combo input (old style: the type is the list; new style: "COMBO" with `options`), else null.
 * A COMBO without an options list (one the UI fetches from a `remote` route) cannot be checked here.
 */
const comboOptions = (spec: InputSpec): unknown[] | null => {
  if (Array.isArray(spec.type)) return spec.type;
  if (spec.type === 'COMBO' && Array.isArray(spec.extra['options'])) return spec.extra['options'] as unknown[];
  return null;
};

const isUploadCombo = (spec: InputSpec): boolean => UPLOAD_FLAGS.some((flag) => spec.extra[flag] === true);

/** comfy_execution/validation.py validate_node_input: equal, a shared member of comma lists, or a `*` wildcard. */
const typesMatch = (received: unknown, wanted: unknown): boolean => {
  const name = (t: unknown): unknown => (Array.isArray(t) ? 'COMBO' : t);
  const r = name(received);
  const w = name(wanted);
  if (typeof r !== 'string' || typeof w !== 'string') return false;
  const rs = r.split(',').map((t) => t.trim());
  const ws = new Set(w.split(',').map((t) => t.trim()));
  return rs.includes('*') || ws.has('*') || rs.some((t) => ws.has(t));
};

const show = (value: unknown): string => JSON.stringify(value) ?? String(value);

const listText = (options: unknown[]): string =>
  options.length > 20 ? `a list of ${options.length} choices` : options.length === 0 ? 'an empty list' : options.map(show).join(', ');

/** What ComfyUI's int()/float() would make of a literal, or null when it would raise. */
const toNumber = (type: 'INT' | 'FLOAT', value: unknown): number | null => {
  let n: number | null = null;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'boolean') n = value ? 1 : 0;
  else if (typeof value === 'string' && value.trim() !== '') n = Number(value.trim());
  if (n === null || Number.isNaN(n)) return null;
  if (type === 'INT') {
    if (typeof value === 'string' && !/^\s*[+-]?\d+\s*$/.test(value)) return null;
    return Math.trunc(n);
  }
  return n;
};

const bounds = (extra: Record<string, unknown>): { min?: number; max?: number } => ({
  ...(typeof extra['min'] === 'number' ? { min: extra['min'] } : {}),
  ...(typeof extra['max'] === 'number' ? { max: extra['max'] } : {}),
});

type Add = (code: WorkflowProblemCode, message: string) => void;

const checkLiteral = (spec: InputSpec, raw: unknown, add: Add): void => {
  const value = isPlainObject(raw) && '__value__' in raw ? raw['__value__'] : raw;
  const options = comboOptions(spec);
  if (options) {
    if (isUploadCombo(spec)) return;
    if (!options.some((o) => o === value)) add('value_not_in_list', `${show(value)} is not one of ${listText(options)}`);
    return;
  }
  if (spec.type !== 'INT' && spec.type !== 'FLOAT') return;
  const n = toNumber(spec.type, value);
  if (n === null) {
    add('invalid_input_type', `${show(value)} is not ${spec.type === 'INT' ? 'an integer' : 'a number'}`);
    return;
  }
  const { min, max } = bounds(spec.extra);
  if (min !== undefined && n < min) add('value_smaller_than_min', `${n} is smaller than the minimum ${min}`);
  if (max !== undefined && n > max) add('value_bigger_than_max', `${n} is bigger than the maximum ${max}`);
};

/** The range of values a mapping item lets users send (a seed is 0..MAX_SEED unless narrowed). */
const parameterRange = (item: ParameterMappingItem): { min?: number; max?: number } => {
  if (item.type === 'seed') return { min: Math.max(0, item.min ?? 0), max: Math.min(MAX_SEED, item.max ?? MAX_SEED) };
  return { ...(item.min === undefined ? {} : { min: item.min }), ...(item.max === undefined ? {} : { max: item.max }) };
};

/**
 * A mapped input gets its value at submit time: its placeholder is not checked, but every value the parameter
 * allows must fit the node: its range within min/max (the map's own check keeps a default within that range),
 * its options or default in the combo list.
 */
const checkMapped = (spec: InputSpec, name: string, item: ParameterMappingItem, add: Add): void => {
  if (item.type === 'image') return;
  const options = comboOptions(spec);
  if (options) {
    if (isUploadCombo(spec)) return;
    const offered = item.type === 'enum' ? (item.options ?? []) : item.default === undefined ? [] : [item.default];
    for (const option of offered) {
      if (!options.some((o) => o === option)) add('parameter_out_of_bounds', `parameter ${name} offers ${show(option)}, which is not one of ${listText(options)}`);
    }
    return;
  }
  if (spec.type !== 'INT' && spec.type !== 'FLOAT') return;
  const node = bounds(spec.extra);
  const range = parameterRange(item);
  if (node.min !== undefined && (range.min === undefined || range.min < node.min)) {
    add('parameter_out_of_bounds', `parameter ${name} allows values below the node's minimum ${node.min}${range.min === undefined ? '' : ` (its min is ${range.min})`}`);
  }
  if (node.max !== undefined && (range.max === undefined || range.max > node.max)) {
    add('parameter_out_of_bounds', `parameter ${name} allows values above the node's maximum ${node.max}${range.max === undefined ? '' : ` (its max is ${range.max})`}`);
  }
};

const checkLink = (workflow: Record<string, unknown>, info: ObjectInfo, spec: InputSpec, link: [string | number, number], add: Add): void => {
  const sourceId = String(link[0]);
  const source = workflow[sourceId];
  if (!isPlainObject(source)) {
    add('bad_link', `links to node ${sourceId}, which is not in the workflow`);
    return;
  }
  const sourceClass = source['class_type'];
  const sourceInfo = typeof sourceClass === 'string' && Object.hasOwn(info, sourceClass) ? info[sourceClass] : undefined;
  if (!sourceInfo) return; // the source node's own problem (unknown class) is reported on it
  const outputs = Array.isArray(sourceInfo.output) ? sourceInfo.output : [];
  const slot = link[1];
  if (slot < 0 || slot >= outputs.length) {
    add('bad_link', `links to output ${slot} of node ${sourceId} (${String(sourceClass)}), which has ${outputs.length} output${outputs.length === 1 ? '' : 's'}`);
    return;
  }
  if (!typesMatch(outputs[slot], spec.type)) {
    add('return_type_mismatch', `links to output ${slot} of node ${sourceId} (${String(sourceClass)}), of type ${show(outputs[slot])}, but the input takes ${show(Array.isArray(spec.type) ? 'COMBO' : spec.type)}`);
  }
};

const mappedItems = (map: ParameterMap | undefined): Map<string, [string, ParameterMappingItem]> => {
  const out = new Map<string, [string, ParameterMappingItem]>();
  for (const [name, item] of Object.entries(map ?? {})) out.set(`${item.node_id}\u0000${item.input_name}`, [name, item]);
  return out;
};

/**
 * Every problem ComfyUI would report for `workflow` on a server whose /object_info is `info` (all nodes are
 * checked, not only those feeding an output). Inputs named by `parameterMap` are checked as parameters.
 */
export const validateAgainstObjectInfo = (workflow: unknown, info: ObjectInfo, parameterMap?: ParameterMap): WorkflowProblem[] => {
  const problems: WorkflowProblem[] = [];
  if (!isPlainObject(workflow)) return problems;
  const mapped = mappedItems(parameterMap);
  for (const [nodeId, node] of Object.entries(workflow)) {
    if (problems.length >= MAX_PROBLEMS) break;
    const classType = isPlainObject(node) && typeof node['class_type'] === 'string' ? node['class_type'] : '';
    const at = (input?: string): Add => (code, message) => {
      if (problems.length < MAX_PROBLEMS) problems.push({ nodeId, classType, ...(input === undefined ? {} : { input }), code, message });
    };
    if (!isPlainObject(node) || classType === '') {
      at()('invalid_node', 'must be an object with a class_type');
      continue;
    }
    const def = Object.hasOwn(info, classType) ? info[classType] : undefined;
    if (!def) {
      at()('node_missing', `node type ${classType} does not exist`);
      continue;
    }
    const inputs = isPlainObject(node['inputs']) ? node['inputs'] : {};
    const required = isPlainObject(def.input?.required) ? def.input.required : {};
    const optional = isPlainObject(def.input?.optional) ? def.input.optional : {};
    for (const [name, rawSpec] of [...Object.entries(required), ...Object.entries(optional)]) {
      const spec = specOf(rawSpec);
      if (!spec) continue;
      const add = at(name);
      if (!Object.hasOwn(inputs, name)) {
        if (Object.hasOwn(required, name)) add('required_input_missing', 'is required but missing');
        continue;
      }
      const value = inputs[name];
      if (isLink(value)) {
        checkLink(workflow, info, spec, value, add);
        continue;
      }
      const item = mapped.get(`${nodeId}\u0000${name}`);
      if (item) checkMapped(spec, item[0], item[1], add);
      else checkLiteral(spec, value, add);
    }
  }
  return problems;
};

/** What a rendered job needs of a server: its node classes and the values it picks from combo lists (model files, sampler names). */
export interface JobRequirements {
  nodeTypes: string[];
  choices: { nodeId: string; classType: string; input: string; value: string }[];
}

export const jobRequirements = (workflow: unknown): JobRequirements => {
  const nodeTypes = new Set<string>();
  const choices: JobRequirements['choices'] = [];
  if (!isPlainObject(workflow)) return { nodeTypes: [], choices };
  for (const [nodeId, node] of Object.entries(workflow)) {
    if (!isPlainObject(node) || typeof node['class_type'] !== 'string') continue;
    const classType = node['class_type'];
    nodeTypes.add(classType);
    const inputs = isPlainObject(node['inputs']) ? node['inputs'] : {};
    for (const [input, value] of Object.entries(inputs)) {
      if (typeof value === 'string') choices.push({ nodeId, classType, input, value });
    }
  }
  return { nodeTypes: [...nodeTypes], choices };
};

/** The model files a job loads: the values it gives the `*_name` inputs of its loader nodes (as `modelFilesOf` reads a server's), sorted. */
export const jobModelFiles = (requirements: JobRequirements): string[] =>
  [...new Set(requirements.choices.filter((c) => c.classType.includes('Loader') && c.input.endsWith('_name')).map((c) => c.value))].sort();

/** What a server lacks to run a job (empty when it can): missing node classes and combo values it does not offer. */
export const unmetRequirements = (info: ObjectInfo, requirements: JobRequirements): string[] => {
  const missing = requirements.nodeTypes.filter((t) => !Object.hasOwn(info, t)).map((t) => `node type ${t}`);
  for (const choice of requirements.choices) {
    const def = Object.hasOwn(info, choice.classType) ? info[choice.classType] : undefined;
    const raw = def?.input?.required?.[choice.input] ?? def?.input?.optional?.[choice.input];
    const spec = specOf(raw);
    const options = spec ? comboOptions(spec) : null;
    if (!spec || !options || isUploadCombo(spec)) continue;
    if (!options.includes(choice.value)) missing.push(`${choice.input} ${show(choice.value)} (node ${choice.nodeId}, ${choice.classType})`);
  }
  return missing;
};

/**
 * The model files a server offers, as its loader nodes list them: the choices of every combo input named
 * `*_name` of a node class whose name contains "Loader", by input name (ckpt_name, lora_name, vae_name...),
 * sorted. The same shape as the admin console's per-server `models`.
 */
export const modelFilesOf = (info: ObjectInfo): Record<string, string[]> => {
  const found = new Map<string, Set<string>>();
  for (const [classType, def] of Object.entries(info)) {
    if (!classType.includes('Loader')) continue;
    for (const [input, raw] of [...Object.entries(def?.input?.required ?? {}), ...Object.entries(def?.input?.optional ?? {})]) {
      const spec = specOf(raw);
      const options = spec && input.endsWith('_name') ? comboOptions(spec) : null;
      if (!options) continue;
      const files = found.get(input) ?? new Set<string>();
      for (const option of options) if (typeof option === 'string') files.add(option);
      found.set(input, files);
    }
  }
  return Object.fromEntries([...found.keys()].sort().map((input) => [input, [...found.get(input)!].sort()]));
};

/** A problem as a field error of API.md's validation body. */
export const problemField = (p: WorkflowProblem): { field: string; message: string } => ({
  field: p.input === undefined ? `workflow.${p.nodeId}.class_type` : `workflow.${p.nodeId}.inputs.${p.input}`,
  message: `${p.classType || 'node'} #${p.nodeId}${p.input === undefined ? '' : ` ${p.input}`}: ${p.message} (${p.code})`,
});
