import { ok, validationFailed } from './result.ts';
import type { FieldProblem, Result } from './result.ts';
import { CATEGORIES, REQUIRED_BY_CATEGORY, findPreset, isCategory, PARAMETER_PRESETS } from './parameter-presets.ts';
import type { Category, ParameterPreset } from './parameter-presets.ts';
import { isPlainObject, MAX_PROBLEMS } from './workflow-graph.ts';
import { isLink } from './workflow-graph.types.ts';
import type { WorkflowGraph } from './workflow-graph.types.ts';
import { isUuid } from './ids.ts';
import { requiredKeysFor } from './category-inputs.ts';

export const PARAMETER_TYPES = ['string', 'integer', 'number', 'boolean', 'enum', 'image', 'seed'] as const;
export type ParameterType = (typeof PARAMETER_TYPES)[number];
export type ParameterValue = string | number | boolean;

export interface ParameterMappingItem {
  key: string;
  type: ParameterType;
  node_id: string;
  input_name: string;
  label?: string;
  description?: string;
  default?: ParameterValue;
  required?: boolean;
  min?: number;
  max?: number;
  options?: (string | number)[];
  preset?: string;
}

export type ParameterMap = Record<string, ParameterMappingItem>;
/** What end users see: where a value lands in the graph is the admin's business. */
export type PublicParameter = Omit<ParameterMappingItem, 'node_id' | 'input_name'>;
export type ParameterMappingItemWithClassType = ParameterMappingItem & { class_type: string | null };

export const MAX_STRING_LENGTH = 10_000;
/** JSON numbers lose precision beyond this, so larger seeds would not reproduce a result. */
export const MAX_SEED = Number.MAX_SAFE_INTEGER;
export const RANDOM_SEED = -1;
const MAX_LABEL_LENGTH = 200;
const MAX_DESCRIPTION_LENGTH = 2_000;
/** Names travel as JSON keys and in dotted field paths, so a dot or space would make errors ambiguous. */
const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const INTEGER_TEXT = /^[+-]?\d+$/;
const NUMBER_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const NUMERIC_TYPES: readonly ParameterType[] = ['integer', 'number', 'seed'];

export type ValueCheck = { ok: true; value: ParameterValue } | { ok: false; message: string };
export type ValueRules = Pick<ParameterMappingItem, 'type' | 'min' | 'max' | 'options'>;

const bad = (message: string): ValueCheck => ({ ok: false, message });

const listOptions = (options: readonly (string | number)[]): string => {
  const shown = options.slice(0, 20).map((o) => JSON.stringify(o)).join(', ');
  return options.length > 20 ? `${shown} and ${options.length - 20} more` : shown;
};

const toInteger = (value: unknown): number | null => {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null;
  if (typeof value === 'string' && INTEGER_TEXT.test(value)) {
    const parsed = Number(value);
    return Number.isSafeInteger(parsed) ? parsed : null;
  }
  return null;
};

const toNumber = (value: unknown): number | null => {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && NUMBER_TEXT.test(value)) {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : null;
  }
  return null;
};

const inRange = (rules: ValueRules, value: number): ValueCheck => {
  if (rules.min !== undefined && value < rules.min) return bad(`must be at least ${rules.min} (got ${value})`);
  if (rules.max !== undefined && value > rules.max) return bad(`must be at most ${rules.max} (got ${value})`);
  return { ok: true, value };
};

/**
 * Checks one value against its mapping item and coerces form-style text ("42", "true") to the type.
 * A seed of -1 passes as -1: choosing the random seed is the renderer's job, not the checker's.
 */
export const checkParameterValue = (rules: ValueRules, value: unknown): ValueCheck => {
  switch (rules.type) {
    case 'string':
      if (typeof value !== 'string') return bad('must be a string');
      if (value.length > MAX_STRING_LENGTH) {
        return bad(`must be at most ${MAX_STRING_LENGTH} characters long (got ${value.length})`);
      }
      return { ok: true, value };
    case 'integer': {
      const parsed = toInteger(value);
      return parsed === null ? bad('must be an integer') : inRange(rules, parsed);
    }
    case 'number': {
      const parsed = toNumber(value);
      return parsed === null ? bad('must be a number') : inRange(rules, parsed);
    }
    case 'boolean':
      if (value === true || value === 'true') return { ok: true, value: true };
      if (value === false || value === 'false') return { ok: true, value: false };
      return bad('must be true or false');
    case 'enum': {
      const options = rules.options ?? [];
      if ((typeof value === 'string' || typeof value === 'number') && options.includes(value)) return { ok: true, value };
      return bad(`must be one of ${listOptions(options)}`);
    }
    case 'image':
      if (isUuid(value)) return { ok: true, value };
      return bad('must be the id (a UUID) of an upload or of one of your outputs');
    case 'seed': {
      const parsed = toInteger(value);
      if (parsed === RANDOM_SEED) return { ok: true, value: parsed };
      if (parsed === null || parsed < 0 || parsed > MAX_SEED) {
        return bad(`must be an integer from 0 to ${MAX_SEED}, or -1 for a random seed`);
      }
      return inRange(rules, parsed);
    }
  }
};

const isParameterType = (value: unknown): value is ParameterType =>
  typeof value === 'string' && (PARAMETER_TYPES as readonly string[]).includes(value);

/**
 * Validates an admin's parameter map against the template's workflow and category, so that rendering can
 * trust every item. Preset fields fill what the item leaves out; an explicit `"default": null` removes the
 * preset's default. Returns the normalised map (node ids as strings, defaults coerced, unknown fields dropped).
 */
export const validateParameterMap = (
  input: unknown,
  workflow: WorkflowGraph,
  category: Category,
): Result<ParameterMap> => {
  if (!isPlainObject(input)) {
    return validationFailed([{ field: 'parameter_map', message: 'must be an object from parameter name to mapping item' }]);
  }
  const problems: FieldProblem[] = [];
  const add = (field: string, message: string): void => {
    if (problems.length < MAX_PROBLEMS) problems.push({ field, message });
  };
  if (!isCategory(category)) add('category', `must be one of ${CATEGORIES.join(', ')}`);

  const map: ParameterMap = {};
  const presetUsers = new Map<string, string>();
  const mappedInputs = new Map<string, string>();

  for (const name of Object.keys(input)) {
    const field = `parameter_map.${name}`;
    const raw = input[name];
    if (!NAME_PATTERN.test(name)) {
      add(field, 'a parameter name must start with a letter or _ and hold only letters, digits and _ (at most 64)');
    } else if (name === '__proto__') {
      // Assigning it would replace the map's prototype: the item would be dropped without a word.
      add(field, 'is reserved and cannot name a parameter');
    }
    if (!isPlainObject(raw)) {
      add(field, 'must be an object with key, type, node_id and input_name');
      continue;
    }

    let preset: ParameterPreset | undefined;
    if (raw['preset'] !== undefined) {
      preset = typeof raw['preset'] === 'string' ? findPreset(raw['preset']) : undefined;
      if (!preset) {
        add(`${field}.preset`, `names no known preset (known: ${PARAMETER_PRESETS.map((p) => p.key).join(', ')})`);
      } else {
        const earlier = presetUsers.get(preset.key);
        if (earlier !== undefined) add(`${field}.preset`, `preset ${preset.key} is used twice (also by ${earlier})`);
        else presetUsers.set(preset.key, name);
      }
    }

    if (raw['key'] !== undefined && raw['key'] !== name) {
      add(`${field}.key`, `must equal the entry's name "${name}" (or be left out)`);
    } else if (preset && name !== preset.key) {
      add(`${field}.key`, `must be "${preset.key}" because the item uses preset ${preset.key}`);
    }

    const rawType = raw['type'] ?? preset?.type;
    let type: ParameterType | undefined;
    if (!isParameterType(rawType)) {
      add(`${field}.type`, `must be one of ${PARAMETER_TYPES.join(', ')}`);
    } else if (preset && rawType !== preset.type) {
      add(`${field}.type`, `must be ${preset.type} because the item uses preset ${preset.key}`);
    } else {
      type = rawType;
      const categoryPreset = isCategory(category) && REQUIRED_BY_CATEGORY[category].includes(name) ? findPreset(name) : undefined;
      if (categoryPreset && type !== categoryPreset.type) {
        add(`${field}.type`, `must be ${categoryPreset.type} because ${name} is required for category ${category}`);
        type = undefined;
      }
    }

    const nodeId = typeof raw['node_id'] === 'number' ? String(raw['node_id']) : raw['node_id'];
    const inputName = raw['input_name'];
    let location: { nodeId: string; inputName: string } | undefined;
    if (typeof nodeId !== 'string' || nodeId === '') {
      add(`${field}.node_id`, 'is required: the id of a node of the workflow');
    } else if (!Object.hasOwn(workflow, nodeId)) {
      add(`${field}.node_id`, `names node ${nodeId}, which does not exist in the workflow`);
    }
    if (typeof inputName !== 'string' || inputName === '') {
      add(`${field}.input_name`, 'is required: the name of an input of the node');
    } else if (typeof nodeId === 'string' && Object.hasOwn(workflow, nodeId)) {
      const node = workflow[nodeId]!;
      const where = `${nodeId} (${node.class_type})`;
      if (!Object.hasOwn(node.inputs, inputName)) {
        add(`${field}.input_name`, `node ${where} has no input "${inputName}"`);
      } else if (isLink(node.inputs[inputName])) {
        const source = String((node.inputs[inputName] as [unknown, number])[0]);
        add(`${field}.input_name`, `input "${inputName}" of node ${where} is linked to node ${source}; only a literal input can be a parameter`);
      } else {
        const slot = `${nodeId}\u0000${inputName}`;
        const owner = mappedInputs.get(slot);
        if (owner !== undefined) add(`${field}.input_name`, `input "${inputName}" of node ${where} is already mapped by parameter ${owner}`);
        else mappedInputs.set(slot, name);
        location = { nodeId, inputName };
      }
    }

    const label = raw['label'] ?? preset?.label;
    if (label !== undefined && (typeof label !== 'string' || label.length > MAX_LABEL_LENGTH)) {
      add(`${field}.label`, `must be a string of at most ${MAX_LABEL_LENGTH} characters`);
    }
    const description = raw['description'] ?? preset?.description;
    if (description !== undefined && (typeof description !== 'string' || description.length > MAX_DESCRIPTION_LENGTH)) {
      add(`${field}.description`, `must be a string of at most ${MAX_DESCRIPTION_LENGTH} characters`);
    }
    const required = raw['required'];
    if (required !== undefined && typeof required !== 'boolean') add(`${field}.required`, 'must be true or false');

    const rules = checkRules(raw, preset, type, field, add);

    let fallback: ParameterValue | undefined;
    const rawDefault = raw['default'] === undefined ? preset?.default : raw['default'];
    if (rawDefault !== undefined && rawDefault !== null && rules) {
      const checked = checkParameterValue(rules, rawDefault);
      if (checked.ok) fallback = checked.value;
      else add(`${field}.default`, checked.message);
    }

    if (!type || !location || !rules) continue;
    const item: ParameterMappingItem = { key: name, type, node_id: location.nodeId, input_name: location.inputName };
    if (typeof label === 'string') item.label = label;
    if (typeof description === 'string') item.description = description;
    if (fallback !== undefined) item.default = fallback;
    if (typeof required === 'boolean') item.required = required;
    if (rules.min !== undefined) item.min = rules.min;
    if (rules.max !== undefined) item.max = rules.max;
    if (rules.options !== undefined) item.options = rules.options;
    if (preset) item.preset = preset.key;
    map[name] = item;
  }

  if (isCategory(category)) {
    for (const key of requiredKeysFor(category, workflow)) {
      if (!Object.hasOwn(input, key)) add(`parameter_map.${key}`, `parameter ${key} is required for category ${category} but missing`);
    }
  }

  return problems.length > 0 ? validationFailed(problems) : ok(map);
};

/** min/max/options merged with the preset; undefined when they cannot be trusted to check a default. */
const checkRules = (
  raw: Record<string, unknown>,
  preset: ParameterPreset | undefined,
  type: ParameterType | undefined,
  field: string,
  add: (field: string, message: string) => void,
): ValueRules | undefined => {
  let sound = type !== undefined;
  const bound = (name: 'min' | 'max'): number | undefined => {
    const value = raw[name] ?? preset?.[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      add(`${field}.${name}`, 'must be a number');
      sound = false;
      return undefined;
    }
    if (type && !NUMERIC_TYPES.includes(type)) {
      add(`${field}.${name}`, 'applies only to integer, number and seed parameters');
      sound = false;
    }
    return value;
  };
  const min = bound('min');
  const max = bound('max');
  if (min !== undefined && max !== undefined && min > max) {
    add(`${field}.min`, `must not be greater than max (${min} > ${max})`);
    sound = false;
  }

  const rawOptions = raw['options'] ?? preset?.options;
  let options: (string | number)[] | undefined;
  if (type === 'enum') {
    if (!Array.isArray(rawOptions) || rawOptions.length === 0 || !rawOptions.every((o) => typeof o === 'string' || (typeof o === 'number' && Number.isFinite(o)))) {
      add(`${field}.options`, 'an enum needs a non-empty list of strings or numbers');
      sound = false;
    } else {
      const seen = new Set<string | number>();
      const repeated = rawOptions.find((o: string | number) => (seen.has(o) ? true : (seen.add(o), false)));
      if (repeated !== undefined) {
        add(`${field}.options`, `lists ${JSON.stringify(repeated)} twice`);
        sound = false;
      }
      options = [...(rawOptions as (string | number)[])];
    }
  } else if (rawOptions !== undefined) {
    add(`${field}.options`, 'applies only to enum parameters');
    sound = false;
  }

  if (!sound || !type) return undefined;
  const rules: ValueRules = { type };
  if (min !== undefined) rules.min = min;
  if (max !== undefined) rules.max = max;
  if (options !== undefined) rules.options = options;
  return rules;
};

/** The catalogue view. Without a default, the template's own literal is what rendering keeps, so it is shown as the default. */
export const publicParameters = (map: ParameterMap, workflow: WorkflowGraph): PublicParameter[] =>
  Object.values(map).map((item) => {
    const { node_id: nodeId, input_name: inputName, ...visible } = item;
    const literal = workflow[nodeId]?.inputs[inputName];
    // A seed without default is random and an image literal is a server-side file name: neither is a usable default.
    if (visible.default === undefined && !visible.required && item.type !== 'seed' && item.type !== 'image' && literal !== undefined) {
      const checked = checkParameterValue(item, literal);
      if (checked.ok) visible.default = checked.value;
    }
    return visible;
  });

export const withClassTypes = (map: ParameterMap, workflow: WorkflowGraph): Record<string, ParameterMappingItemWithClassType> => {
  const out: Record<string, ParameterMappingItemWithClassType> = {};
  for (const [name, item] of Object.entries(map)) {
    out[name] = { ...item, class_type: workflow[item.node_id]?.class_type ?? null };
  }
  return out;
};
