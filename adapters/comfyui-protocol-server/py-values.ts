/**
 * The few Python conversions ComfyUI's handlers apply to request values. A conversion that
 * raises in Python throws here, which the error middleware turns into aiohttp's plain 500.
 */
export class PyValueError extends Error {
  override name = 'ValueError';
}

const INT_TEXT = /^\s*[+-]?\d+(?:_\d+)*\s*$/;

/** Python `int(text)` for a query-string value. */
export const pyInt = (text: string): number => {
  if (!INT_TEXT.test(text)) throw new PyValueError(`invalid literal for int() with base 10: '${text}'`);
  return Number.parseInt(text.replaceAll('_', '').trim(), 10);
};

/** Python `float(value)` for a JSON value (the explicit `number` priority of POST /prompt). */
export const pyFloat = (value: unknown): number => {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') {
    const t = value.trim();
    if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
    if (/^[+-]?nan$/i.test(t)) return Number.NaN;
    // Python's float literal: underscores only between digits ('1_0', '1e1_0'; not '_1', '1__0', '1._5').
    if (/^[+-]?(\d(_?\d)*(\.(\d(_?\d)*)?)?|\.\d(_?\d)*)(e[+-]?\d(_?\d)*)?$/i.test(t)) return Number(t.replaceAll('_', ''));
  }
  throw new PyValueError(`could not convert to float: ${JSON.stringify(value)}`);
};

/** Python `str(value)` of a JSON value: how ComfyUI stringifies a client-supplied prompt_id. */
export const pyStr = (value: unknown): string => {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return value;
  // A number as String() prints it: JSON.stringify of a finite number is the same text.
  return JSON.stringify(value);
};

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
