/**
 * ComfyUI's POST /prompt validation (execution.py validate_prompt / validate_inputs), reproduced
 * with the same error types, messages, details and extra_info, so a client written against
 * ComfyUI sees the same answers. Like ComfyUI it converts literal inputs in place (INT/FLOAT/...
 * and `{"__value__": [...]}` unwrapping) and never fills in defaults.
 */
import type { ComfyValidationError, NodeErrorEntry, ValidateResult } from './runtime-types.ts';
import type { InputSpec, NodeDef, NodeEnv } from './types.ts';
import { PyException, pyBool, pyEquals, pyFloat, pyFloatRepr, pyInt, pyRepr, pyStr, pyTypeName } from './py-format.ts';

interface Entry {
  valid: boolean;
  errors: ComfyValidationError[];
}

interface State {
  prompt: Record<string, unknown>;
  registry: ReadonlyMap<string, NodeDef>;
  env: NodeEnv;
  validated: Map<string, Entry>;
}

const traceback = (fn: string, code: string): string[] => [
  `  File "execution.py", line 1, in ${fn}\n    ${code}\n`,
];

const asRecord = (v: unknown): Record<string, unknown> | null =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/**
 * prompt[id] with Python's KeyError (JSON object keys are strings, so a numeric id never matches). validatePrompt
 * has checked that every node of the prompt is an object.
 */
const lookupNode = (prompt: Record<string, unknown>, id: unknown): Record<string, unknown> => {
  if (typeof id === 'string' && Object.hasOwn(prompt, id)) return prompt[id] as Record<string, unknown>;
  if (id !== null && typeof id === 'object') throw new PyException('TypeError', `unhashable type: '${Array.isArray(id) ? 'list' : 'dict'}'`);
  throw new PyException('KeyError', pyRepr(id));
};

/** RETURN_TYPES[slot] with Python's IndexError/TypeError. */
const pyIndex = (tuple: string[], slot: unknown): string => {
  if (typeof slot === 'boolean') slot = slot ? 1 : 0;
  if (typeof slot !== 'number' || !Number.isInteger(slot)) {
    throw new PyException('TypeError', `tuple indices must be integers or slices, not ${pyTypeName(slot)}`);
  }
  const i = slot < 0 ? tuple.length + slot : slot;
  if (i < 0 || i >= tuple.length) throw new PyException('IndexError', 'tuple index out of range');
  return tuple[i]!;
};

/** comfy_execution/validation.py validate_node_input */
export const validateNodeInput = (received: unknown, inputType: unknown): boolean => {
  if (pyEquals(received, inputType)) return true;
  if (typeof received !== 'string' || typeof inputType !== 'string') return false;
  const r = new Set(received.split(',').map((t) => t.trim()));
  const i = new Set(inputType.split(',').map((t) => t.trim()));
  if (r.has('*') || i.has('*')) return true;
  return [...r].some((t) => i.has(t));
};

/** Formats a min/max/value the way Python would print it for this input type. */
const fmtNum = (v: unknown, inputType: unknown): string =>
  inputType === 'FLOAT' && typeof v === 'number' ? pyFloatRepr(v) : pyStr(v);

const convert = (inputType: unknown, val: unknown): unknown => {
  if (inputType === 'INT') return pyInt(val);
  if (inputType === 'FLOAT') return pyFloat(val);
  if (inputType === 'STRING') return pyStr(val);
  if (inputType === 'BOOLEAN') return pyBool(val);
  return val;
};

const exceptionInfo = (ex: unknown): { type: string; message: string } =>
  ex instanceof PyException ? { type: ex.pyType, message: ex.message } : { type: 'Exception', message: String((ex as Error)?.message ?? ex) };

const checkLiteral = (
  x: string,
  inputType: unknown,
  extra: Record<string, unknown>,
  inputs: Record<string, unknown>,
  skipGeneric: boolean,
): ComfyValidationError | null => {
  const info = [inputType, extra];
  let val = inputs[x];
  try {
    const rec = asRecord(val);
    if (rec && '__value__' in rec) {
      val = rec['__value__'];
      inputs[x] = val;
    }
    val = convert(inputType, val);
    inputs[x] = val;
  } catch (ex) {
    const e = exceptionInfo(ex);
    return {
      type: 'invalid_input_type',
      message: `Failed to convert an input value to a ${pyStr(inputType)} value`,
      details: `${x}, ${pyStr(val)}, ${e.message}`,
      extra_info: { input_name: x, input_config: info, received_value: val, exception_message: e.message },
    };
  }
  if (skipGeneric) return null;
  if ('min' in extra && typeof val === 'number' && val < (extra['min'] as number)) {
    return {
      type: 'value_smaller_than_min',
      message: `Value ${fmtNum(val, inputType)} smaller than min of ${fmtNum(extra['min'], inputType)}`,
      details: x,
      extra_info: { input_name: x, input_config: info, received_value: val },
    };
  }
  if ('max' in extra && typeof val === 'number' && val > (extra['max'] as number)) {
    return {
      type: 'value_bigger_than_max',
      message: `Value ${fmtNum(val, inputType)} bigger than max of ${fmtNum(extra['max'], inputType)}`,
      details: x,
      extra_info: { input_name: x, input_config: info, received_value: val },
    };
  }
  if (Array.isArray(inputType) || inputType === 'COMBO') {
    const options = (Array.isArray(inputType) ? inputType : (extra['options'] as unknown[] | undefined)) ?? [];
    if (!options.some((o) => pyEquals(o, val))) {
      const big = options.length > 20;
      return {
        type: 'value_not_in_list',
        message: 'Value not in list',
        details: `${x}: ${pyRepr(val)} not in ${big ? `(list of length ${options.length})` : pyRepr(options)}`,
        extra_info: { input_name: x, input_config: big ? null : info, received_value: val },
      };
    }
  }
  return null;
};

const validateNode = (st: State, uid: string, visiting: string[]): Entry => {
  const done = st.validated.get(uid);
  if (done) return done;
  if (visiting.includes(uid)) {
    const path = [...visiting.slice(visiting.indexOf(uid)), uid];
    const cycleNodes = [...new Set(path)];
    const details = path.map((id) => `${id} (${pyStr(lookupNode(st.prompt, id)['class_type'])})`).join(' -> ');
    for (const id of cycleNodes) {
      st.validated.set(id, {
        valid: false,
        errors: [
          { type: 'dependency_cycle', message: 'Dependency cycle detected', details, extra_info: { node_id: id, cycle_nodes: cycleNodes } },
        ],
      });
    }
    return st.validated.get(uid)!;
  }
  const node = lookupNode(st.prompt, uid);
  if (!('inputs' in node)) throw new PyException('KeyError', "'inputs'");
  const inputs = asRecord(node['inputs']) ?? {};
  const def = st.registry.get(node['class_type'] as string)!;
  const classInputs = def.inputTypes(st.env);
  const custom = def.validateInputs;
  const customNames = custom?.inputs ?? [];
  const errors: ComfyValidationError[] = [];
  let valid = true;
  const all: [string, InputSpec, 'required' | 'optional'][] = [
    ...Object.entries(classInputs.required).map(([k, s]) => [k, s, 'required'] as [string, InputSpec, 'required']),
    ...Object.entries(classInputs.optional ?? {}).map(([k, s]) => [k, s, 'optional'] as [string, InputSpec, 'optional']),
  ];
  for (const [x, spec, category] of all) {
    const inputType = spec[0];
    const extra = spec[1] ?? {};
    const info = [inputType, extra];
    if (!(x in inputs)) {
      if (category === 'required') {
        errors.push({ type: 'required_input_missing', message: 'Required input is missing', details: x, extra_info: { input_name: x } });
      }
      continue;
    }
    const val = inputs[x];
    if (!Array.isArray(val)) {
      const err = checkLiteral(x, inputType, extra, inputs, customNames.includes(x));
      if (err) errors.push(err);
      continue;
    }
    if (val.length !== 2) {
      errors.push({
        type: 'bad_linked_input',
        message: 'Bad linked input, must be a length-2 list of [node_id, slot_index]',
        details: x,
        extra_info: { input_name: x, input_config: info, received_value: val },
      });
      continue;
    }
    const source = lookupNode(st.prompt, val[0]);
    const receivedType = pyIndex(st.registry.get(source['class_type'] as string)!.output, val[1]);
    if (!validateNodeInput(receivedType, inputType)) {
      errors.push({
        type: 'return_type_mismatch',
        message: 'Return type mismatch between linked nodes',
        details: `${x}, received_type(${receivedType}) mismatch input_type(${pyStr(inputType)})`,
        extra_info: { input_name: x, input_config: info, received_type: receivedType, linked_node: val },
      });
      continue;
    }
    const sourceId = val[0] as string;
    try {
      visiting.push(uid);
      let r: Entry;
      try {
        r = validateNode(st, sourceId, visiting);
      } finally {
        visiting.pop();
      }
      if (!r.valid) valid = false;
    } catch (ex) {
      valid = false;
      const e = exceptionInfo(ex);
      st.validated.set(sourceId, {
        valid: false,
        errors: [
          {
            type: 'exception_during_inner_validation',
            message: 'Exception when validating inner node',
            details: e.message,
            extra_info: {
              input_name: x,
              input_config: info,
              exception_message: e.message,
              exception_type: e.type,
              traceback: traceback('validate_inputs', "o_class_type = prompt[o_id]['class_type']"),
              linked_node: val,
            },
          },
        ],
      });
    }
  }
  if (custom) {
    const values: Record<string, unknown> = {};
    for (const name of custom.inputs) {
      if (name in inputs) values[name] = Array.isArray(inputs[name]) ? null : inputs[name];
    }
    const missing = custom.inputs.filter((n) => !(n in values)).map((n) => `'${n}'`);
    if (missing.length > 0) {
      // Python names them 'a', 'a' and 'b', or 'a', 'b', and 'c'.
      const names = missing.length > 2 ? `${missing.slice(0, -1).join(', ')}, and ${missing.at(-1)}` : missing.join(' and ');
      throw new PyException('TypeError', `${def.name}.VALIDATE_INPUTS() missing ${missing.length} required positional argument${missing.length > 1 ? 's' : ''}: ${names}`);
    }
    const r = custom.check(values, st.env);
    if (r !== true) {
      for (const x of Object.keys(values)) {
        errors.push({
          type: 'custom_validation_failed',
          message: 'Custom validation failed for node',
          details: r === false ? x : `${x} - ${r}`,
          extra_info: { input_name: x },
        });
      }
    }
  }
  const prior = st.validated.get(uid) ?? { valid: true, errors: [] };
  const merged: Entry = {
    valid: prior.valid && valid && errors.length === 0,
    errors: [...prior.errors, ...errors],
  };
  st.validated.set(uid, merged);
  return merged;
};

const invalidPrompt = (message: string, details: string): ValidateResult => ({
  ok: false,
  error: { type: 'invalid_prompt', message, details, extra_info: {} },
  node_errors: {},
});

export const validatePrompt = (
  registry: ReadonlyMap<string, NodeDef>,
  env: NodeEnv,
  prompt: unknown,
  partialExecutionTargets?: string[],
): ValidateResult => {
  if (prompt === undefined) {
    return {
      ok: false,
      error: { type: 'no_prompt', message: 'No prompt provided', details: 'No prompt provided', extra_info: {} },
      node_errors: {},
    };
  }
  const graph = asRecord(prompt);
  if (!graph) return invalidPrompt('Cannot execute because the prompt is not an object.', '');
  const outputs: string[] = [];
  for (const [id, raw] of Object.entries(graph)) {
    const node = asRecord(raw);
    if (!node || !('class_type' in node)) {
      return invalidPrompt('Cannot execute because a node is missing the class_type property.', `Node ID '#${id}'`);
    }
    const def = registry.get(node['class_type'] as string);
    if (!def) {
      return invalidPrompt(`Cannot execute because node ${pyStr(node['class_type'])} does not exist.`, `Node ID '#${id}'`);
    }
    if (def.outputNode && (partialExecutionTargets == null || partialExecutionTargets.includes(id))) outputs.push(id);
  }
  if (outputs.length === 0) {
    return {
      ok: false,
      error: { type: 'prompt_no_outputs', message: 'Prompt has no outputs', details: '', extra_info: {} },
      node_errors: {},
    };
  }
  const st: State = { prompt: graph, registry, env, validated: new Map() };
  const good: string[] = [];
  const failures: [string, ComfyValidationError[]][] = [];
  const nodeErrors: Record<string, NodeErrorEntry> = {};
  for (const o of outputs) {
    let entry: Entry;
    try {
      entry = validateNode(st, o, []);
    } catch (ex) {
      const e = exceptionInfo(ex);
      entry = {
        valid: false,
        errors: [
          {
            type: 'exception_during_validation',
            message: 'Exception when validating node',
            details: e.message,
            extra_info: { exception_type: e.type, traceback: traceback('validate_prompt', 'm = await validate_inputs(prompt_id, prompt, o, validated)') },
          },
        ],
      };
      st.validated.set(o, entry);
    }
    if (entry.valid) {
      good.push(o);
      continue;
    }
    failures.push([o, entry.errors]);
    // As in ComfyUI, every failed node validated so far gets this output as a dependent.
    for (const [id, result] of st.validated) {
      // A node that failed only because of what it links to has no errors of its own, and is not listed.
      if (result.errors.length === 0) continue;
      nodeErrors[id] ??= { errors: result.errors, dependent_outputs: [], class_type: String(asRecord(graph[id])?.['class_type']) };
      nodeErrors[id].dependent_outputs.push(o);
    }
  }
  if (good.length === 0) {
    return {
      ok: false,
      error: {
        type: 'prompt_outputs_failed_validation',
        message: 'Prompt outputs failed validation',
        details: failures.flatMap(([, errs]) => errs.map((e) => `${e.message}: ${e.details}`)).join('\n'),
        extra_info: {},
      },
      node_errors: nodeErrors,
    };
  }
  return { ok: true, outputs: good, nodeErrors };
};
