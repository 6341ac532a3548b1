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
  const s = String(x);
  if (s.includes('e')) {
    // JS uses exponents from 1e21; Python prints the plain digits up to 1e16.
    return BigInt(Math.trunc(x)).toString() + '.0';
  }
  return s.includes('.') ? s : `${s}.0`;
};

const reprString = (s: string): string => {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
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

const FLOAT_LITERAL = /^[+-]?((\d+(_\d+)*)?\.?\d*(_\d+)*([eE][+-]?\d+)?)$/;

/** float(v) as Python does it. */
export const pyFloat = (v: unknown): number => {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const t = v.trim().toLowerCase();
    const special = /^([+-]?)(inf|infinity|nan)$/.exec(t);
    if (special) return special[2] === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity;
    if (t !== '' && FLOAT_LITERAL.test(t) && /\d/.test(t)) {
      const n = Number(t.replaceAll('_', ''));
      if (!Number.isNaN(n)) return n;
    }
    throw new PyException('ValueError', `could not convert string to float: ${reprString(v)}`);
  }
  throw new PyException('TypeError', `float() argument must be a string or a real number, not '${pyTypeName(v)}'`);
};

/** bool(v): Python truthiness. */
export const pyBool = (v: unknown): boolean => {
  if (v === null || v === undefined) return false;
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.length > 0;
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

/** Python `a == b` for JSON-like scalars (1 == 1.0 == True). */
export const pyEquals = (a: unknown, b: unknown): boolean => {
  const num = (x: unknown): number | null =>
    typeof x === 'number' ? x : typeof x === 'boolean' ? (x ? 1 : 0) : null;
  const na = num(a);
  const nb = num(b);
  if (na !== null && nb !== null) return na === nb;
  if (typeof a === 'object' || typeof b === 'object') return JSON.stringify(a) === JSON.stringify(b);
  return a === b;
};
