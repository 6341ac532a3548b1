/**
 * The few Python conversions ComfyUI's handlers apply to request values. A conversion that raises in Python throws
 * here, which the error middleware turns into aiohttp's plain 500. `int()`, `float()` and `str()` are the builtin
 * engine's, so the stand-in and the engine read and print values with one Python grammar: `int(text)` of a query value
 * (GET /history?max_items), `float(value)` of POST /prompt's explicit `number`, `str(value)` of a client's `prompt_id`.
 */
export { PyException, pyFloat, pyInt, pyStr } from '../builtin-engine/py-format.ts';

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Python truthiness of a JSON value. */
export const pyTruthy = (value: unknown): boolean => {
  if (Array.isArray(value)) return value.length > 0;
  if (isPlainObject(value)) return Object.keys(value).length > 0;
  return Boolean(value);
};

/** Python `key in container` for a parsed JSON body; raises where Python raises TypeError. */
export const pyIn = (key: string, container: unknown): boolean => {
  if (isPlainObject(container)) return Object.hasOwn(container, key);
  if (Array.isArray(container)) return container.includes(key);
  if (typeof container === 'string') return container.includes(key);
  throw new TypeError(`argument of type '${container === null ? 'NoneType' : typeof container}' is not iterable`);
};

/** Python iteration over a JSON value: list items, string characters, dict keys. */
export const pyIter = (value: unknown): unknown[] => {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return Array.from(value);
  if (isPlainObject(value)) return Object.keys(value);
  throw new TypeError('object is not iterable');
};
