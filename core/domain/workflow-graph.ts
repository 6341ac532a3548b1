import { ok, validationFailed } from './result.ts';
import type { FieldProblem, Result } from './result.ts';
import { isLink } from './workflow-graph.types.ts';
import type { WorkflowGraph, WorkflowNode } from './workflow-graph.types.ts';

export const DEFAULT_MAX_NODES = 500;
export const DEFAULT_MAX_BYTES = 1_048_576;
/** A hostile or badly broken graph could yield thousands of problems; the first few are enough to act on. */
export const MAX_PROBLEMS = 50;
/** Output nodes of ComfyUI core whose names do not start with `Save`. */
export const BUILTIN_OUTPUT_NODE_TYPES: readonly string[] = Object.freeze(['PreviewImage', 'PreviewAny', 'PreviewAudio']);

export interface WorkflowGraphOptions {
  /** Extra output node types (OUTPUT_NODE_TYPES), e.g. custom nodes like VHS_VideoCombine. */
  outputNodeTypes?: readonly string[];
  /** When given (ALLOWED_NODE_TYPES), every other class_type is rejected. */
  allowedNodeTypes?: readonly string[];
  maxNodes?: number;
  maxBytes?: number;
}

export const isOutputNodeType = (classType: string, extra?: readonly string[]): boolean =>
  classType.startsWith('Save') || BUILTIN_OUTPUT_NODE_TYPES.includes(classType) || (extra?.includes(classType) ?? false);

export const outputNodeIds = (graph: WorkflowGraph, outputNodeTypes?: readonly string[]): string[] =>
  Object.keys(graph).filter((id) => isOutputNodeType(graph[id]!.class_type, outputNodeTypes));

export const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null) return false;
  // An array's prototype is Array.prototype: refused here with every other class instance.
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
};

/** Field path segment for a node id or input name as users wrote it. */
export const inputField = (nodeId: string, inputName: string): string => `workflow.${nodeId}.inputs.${inputName}`;

const utf8Length = (text: string): number => {
  // Counting beats encoding: no 1 MiB buffer is allocated just to measure it.
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
};

class Problems {
  readonly list: FieldProblem[] = [];
  get full(): boolean {
    return this.list.length >= MAX_PROBLEMS;
  }
  add(field: string, message: string): void {
    if (!this.full) this.list.push({ field, message });
  }
}

/**
 * What is wrong with a literal `filename_prefix`, or null. ComfyUI (folder_paths.get_save_image_path) normalises the
 * prefix: its folders become the output's subfolder and its last part the file stem. A prefix that names no stem
 * (`''`, `.`, `a/..`) saved hidden files named `._00001_.png` there, and the per-run folder the engines add (ADR 034)
 * made the same prefix save elsewhere on ComfyUI (`output/mgs/<run>_00001_.png`) than on the builtin engine; an
 * absolute one, or one that climbs above the folder, is refused by ComfyUI only when it lands outside `output/`.
 * Every engine gets the same answer here, before a template is stored or a job is paid for. A backslash counts as `/`
 * (a Windows server's separator).
 */
export const filenamePrefixProblem = (prefix: string): string | null => {
  const path = prefix.replaceAll('\\', '/');
  if (path.startsWith('/')) return 'must be a path inside the output folder, not an absolute one';
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part !== '..') parts.push(part);
    else if (parts.pop() === undefined) return 'leads out of the output folder (..)';
  }
  return parts.length === 0 ? 'names no file: give the outputs a name, such as ComfyUI or images/portrait' : null;
};

/**
 * Checks a ComfyUI API-format graph before it is stored or sent to an engine, so that an admin or a user
 * gets every fixable problem at once with the node and input it concerns, instead of ComfyUI's first
 * KeyError. Returns a deep copy with link source ids normalised to strings.
 */
export const validateWorkflowGraph = (input: unknown, options: WorkflowGraphOptions = {}): Result<WorkflowGraph> => {
  const maxNodes = options.maxNodes ?? DEFAULT_MAX_NODES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;

  if (!isPlainObject(input)) {
    return validationFailed([{ field: 'workflow', message: 'must be an object from node id to {class_type, inputs}' }]);
  }
  const nodeCount = Object.keys(input).length;
  if (nodeCount === 0) return validationFailed([{ field: 'workflow', message: 'must contain at least 1 node' }]);
  if (nodeCount > maxNodes) {
    return validationFailed([{ field: 'workflow', message: `has ${nodeCount} nodes; at most ${maxNodes} are allowed` }]);
  }
  let serialised: string;
  try {
    serialised = JSON.stringify(input);
  } catch {
    return validationFailed([{ field: 'workflow', message: 'is not representable as JSON' }]);
  }
  const size = utf8Length(serialised);
  if (size > maxBytes) {
    return validationFailed([{ field: 'workflow', message: `is ${size} bytes as JSON; at most ${maxBytes} are allowed` }]);
  }
  // A JSON round trip is the cheapest complete deep copy, and it drops what JSON cannot carry.
  const copy = JSON.parse(serialised) as Record<string, unknown>;

  const problems = new Problems();
  const allowed = options.allowedNodeTypes ? new Set(options.allowedNodeTypes) : null;
  const graph: WorkflowGraph = {};

  for (const id of Object.keys(copy)) {
    const raw = copy[id];
    if (!isPlainObject(raw)) {
      problems.add(`workflow.${id}`, 'must be an object with class_type and inputs');
      continue;
    }
    const classType = raw['class_type'];
    const inputs = raw['inputs'];
    let classOk = true;
    if (typeof classType !== 'string' || classType.trim() === '') {
      problems.add(`workflow.${id}.class_type`, 'must be a non-empty string');
      classOk = false;
    } else if (allowed && !allowed.has(classType)) {
      problems.add(`workflow.${id}.class_type`, `node type ${classType} is not allowed on this server`);
    }
    if (!isPlainObject(inputs)) {
      problems.add(`workflow.${id}.inputs`, 'must be an object from input name to value or link');
      continue;
    }
    const node: WorkflowNode = { class_type: classOk ? (classType as string) : '', inputs };
    const meta = raw['_meta'];
    if (isPlainObject(meta)) node._meta = meta;
    graph[id] = node;
  }

  // Links are checked once every node id is known, so forward references are fine.
  for (const id of Object.keys(graph)) {
    const inputs = graph[id]!.inputs;
    for (const name of Object.keys(inputs)) {
      const value = inputs[name];
      if (name === 'filename_prefix' && typeof value === 'string') {
        const problem = filenamePrefixProblem(value);
        if (problem) problems.add(inputField(id, name), problem);
      }
      if (!Array.isArray(value)) continue;
      const field = inputField(id, name);
      if (!isLink(value)) {
        problems.add(
          field,
          'must be a link [sourceNodeId, outputIndex]; wrap a literal list as {"__value__": [...]}',
        );
        continue;
      }
      const source = String(value[0]);
      if (value[1] < 0) {
        problems.add(field, `links to output ${value[1]} of node ${source}; an output index must be 0 or more`);
      }
      if (!Object.hasOwn(copy, source)) {
        problems.add(field, `links to node ${source}, which does not exist`);
      }
      inputs[name] = [source, value[1]];
    }
  }

  if (!problems.full) findCycles(graph, problems);

  const outputTypes = options.outputNodeTypes;
  if (outputNodeIds(graph, outputTypes).length === 0) {
    const extra = outputTypes && outputTypes.length > 0 ? `, or one of ${outputTypes.join(', ')}` : '';
    problems.add(
      'workflow',
      `has no output node (a class_type starting with Save, or ${BUILTIN_OUTPUT_NODE_TYPES.join(', ')}${extra})`,
    );
  }

  return problems.list.length > 0 ? validationFailed(problems.list) : ok(graph);
};

/** Iterative three-colour DFS over links; each cycle found is reported once, on the input that closes it. */
const findCycles = (graph: WorkflowGraph, problems: Problems): void => {
  const WHITE = 0;
  const GREY = 1;
  const BLACK = 2;
  const colour = new Map<string, number>();
  const edges = (id: string): [string, string][] => {
    const out: [string, string][] = [];
    const inputs = graph[id]!.inputs;
    for (const name of Object.keys(inputs)) {
      const value = inputs[name];
      if (isLink(value) && Object.hasOwn(graph, String(value[0]))) out.push([name, String(value[0])]);
    }
    return out;
  };

  for (const start of Object.keys(graph)) {
    if ((colour.get(start) ?? WHITE) !== WHITE) continue;
    const stack: { id: string; edges: [string, string][]; next: number }[] = [{ id: start, edges: edges(start), next: 0 }];
    colour.set(start, GREY);
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      if (frame.next >= frame.edges.length) {
        colour.set(frame.id, BLACK);
        stack.pop();
        continue;
      }
      const [inputName, target] = frame.edges[frame.next++]!;
      const state = colour.get(target) ?? WHITE;
      if (state === GREY) {
        const from = stack.findIndex((f) => f.id === target);
        const path = [...stack.slice(from).map((f) => f.id), target].join(' -> ');
        problems.add(inputField(frame.id, inputName), `is part of a cycle: ${path}`);
        if (problems.full) return;
      } else if (state === WHITE) {
        colour.set(target, GREY);
        stack.push({ id: target, edges: edges(target), next: 0 });
      }
    }
  }
};
