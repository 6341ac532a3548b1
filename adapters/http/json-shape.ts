/**
 * JSON bodies walked without recursion, so a body nested 100,000 levels deep costs a loop, not the stack.
 * `express.json` (V8's JSON.parse) parses such a body iteratively; everything after it must too.
 */

/** The deepest nesting any route accepts; a deeper body is answered 400 before any route sees it. */
export const JSON_DEPTH_MAX = 64;

/** Nesting depth of a parsed JSON value (a scalar is 0, `[]` is 1), or Infinity once it passes `limit`. */
export function jsonDepth(value: unknown, limit = JSON_DEPTH_MAX): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    const here = depth + 1;
    if (here > limit) return Infinity;
    if (here > deepest) deepest = here;
    for (const inner of Array.isArray(current) ? current : Object.values(current as Record<string, unknown>)) {
      if (inner !== null && typeof inner === 'object') stack.push([inner, here]);
    }
  }
  return deepest;
}

type Work = { text: string } | { value: unknown };

/** JSON with object keys sorted at every level, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are one request. */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  // Work is popped from the end: each container pushes its closing bracket first and its opening one last.
  const stack: Work[] = [{ value }];
  while (stack.length > 0) {
    const work = stack.pop()!;
    if ('text' in work) {
      out.push(work.text);
      continue;
    }
    const current = work.value ?? null;
    if (Array.isArray(current)) {
      stack.push({ text: ']' });
      for (let i = current.length - 1; i >= 0; i--) {
        stack.push({ value: current[i] });
        if (i > 0) stack.push({ text: ',' });
      }
      stack.push({ text: '[' });
    } else if (current !== null && typeof current === 'object') {
      const entries = Object.entries(current as Record<string, unknown>)
        .filter(([, inner]) => inner !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      stack.push({ text: '}' });
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, inner] = entries[i]!;
        stack.push({ value: inner });
        stack.push({ text: `${JSON.stringify(key)}:` });
        if (i > 0) stack.push({ text: ',' });
      }
      stack.push({ text: '{' });
    } else {
      out.push(JSON.stringify(current));
    }
  }
  return out.join('');
}
