/**
 * Python semantics the ComfyUI protocol leaks into its messages: str()/repr() of values,
 * int()/float() conversions with their exception texts, and banker's rounding.
 */

export class PyException extends Error {
  constructor(
    readonly pyType: string,
    message: string,
  ) {
    super(message);
    this.name = pyType;
  }
}

export const pyFloatRepr = (x: number): string => {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, expText] = x.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 16) {
    return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  // Between 1e-4 and 1e16 String() never uses an exponent (it does from 1e21 and below 1e-6).
  const s = String(x);
  return s.includes('.') ? s : `${s}.0`;
};

/** What str.isprintable() refuses: Unicode's Other and Separator categories, except the ASCII space. */
const NOT_PRINTABLE = /^[\p{C}\p{Z}]$/u;

const escapeCode = (code: number): string =>
  code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : code < 0x10000 ? `\\u${code.toString(16).padStart(4, '0')}` : `\\U${code.toString(16).padStart(8, '0')}`;

const reprString = (s: string): string => {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch !== ' ' && NOT_PRINTABLE.test(ch)) out += escapeCode(ch.codePointAt(0)!);
    else out += ch;
  }
  return quote + out + quote;
};

/** repr() of a JSON-like value (numbers are ints when integral, since JSON lost the difference). */
export const pyRepr = (v: unknown): string => {
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'string') return reprString(v);
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : pyFloatRepr(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (typeof v === 'object') {
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${reprString(k)}: ${pyRepr(x)}`)
      .join(', ')}}`;
  }
  return String(v);
};

/** str() of a value. */
export const pyStr = (v: unknown): string => (typeof v === 'string' ? v : pyRepr(v));

export const pyTypeName = (v: unknown): string => {
  if (v === null || v === undefined) return 'NoneType';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (Array.isArray(v)) return 'list';
  return 'dict';
};

const INT_LITERAL = /^[+-]?\d+(_\d+)*$/;

/** int(v) as Python does it, throwing PyException with Python's message. */
export const pyInt = (v: unknown): number => {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') {
    if (Number.isNaN(v)) throw new PyException('ValueError', 'cannot convert float NaN to integer');
    if (!Number.isFinite(v)) throw new PyException('OverflowError', 'cannot convert float infinity to integer');
    return Math.trunc(v);
  }
  if (typeof v === 'string') {
    const t = v.trim();
    if (INT_LITERAL.test(t)) return Number(t.replaceAll('_', ''));
    throw new PyException('ValueError', `invalid literal for int() with base 10: ${reprString(v)}`);
  }
  throw new PyException(
    'TypeError',
    `int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(v)}'`,
  );
};

/** Python's float literal (digits with single underscores between them, a fraction, an exponent), lowercased. */
const FLOAT_LITERAL = /^[+-]?(\d(_?\d)*(\.(\d(_?\d)*)?)?|\.\d(_?\d)*)(e[+-]?\d(_?\d)*)?$/;

/** float(v) as Python does it. */
export const pyFloat = (v: unknown): number => {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const t = v.trim().toLowerCase();
    const special = /^([+-]?)(inf|infinity|nan)$/.exec(t);
    if (special) return special[2] === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity;
    if (FLOAT_LITERAL.test(t)) return Number(t.replaceAll('_', ''));
    throw new PyException('ValueError', `could not convert string to float: ${reprString(v)}`);
  }
  throw new PyException('TypeError', `float() argument must be a string or a real number, not '${pyTypeName(v)}'`);
};

/** bool(v): Python truthiness. */
export const pyBool = (v: unknown): boolean => {
  if (v === null || v === undefined) return false;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'boolean') return v;
  // A str, list or dict is true when not empty (a string's keys are its indexes).
  return Object.keys(v as object).length > 0;
};

/** Python's round(): half to even. */
export const pyRound = (x: number): number => {
  const f = Math.floor(x);
  const diff = x - f;
  if (diff > 0.5) return f + 1;
  if (diff < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
};

const pyNumber = (x: unknown): number | null => (typeof x === 'number' ? x : typeof x === 'boolean' ? (x ? 1 : 0) : null);

const isDict = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);

/** Python `a == b` for JSON-like values (1 == 1.0 == True, lists item by item, dicts whatever their key order). */
export const pyEquals = (a: unknown, b: unknown): boolean => {
  const na = pyNumber(a);
  const nb = pyNumber(b);
  if (na !== null && nb !== null) return na === nb;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => pyEquals(x, b[i]));
  if (isDict(a) && isDict(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && pyEquals(a[k], b[k]));
  }
  return a === b;
};
