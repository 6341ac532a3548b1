/**
 * A small JSON Schema check for the keywords our documents use (type, const, enum, required, properties,
 * additionalProperties, items, minimum, minLength, maxLength, $ref into the same document). It returns every problem
 * with its path; an unknown keyword is a problem too, so a schema cannot claim more than is checked.
 */
type Schema = Record<string, unknown>;
const KNOWN = new Set(['type', 'const', 'enum', 'required', 'properties', 'additionalProperties', 'items', 'minimum', 'minLength', 'maxLength', '$ref', 'description', 'format']);

const typeOf = (value: unknown): string[] => {
  if (value === null) return ['null'];
  if (Array.isArray(value)) return ['array'];
  if (typeof value === 'number') return Number.isInteger(value) ? ['integer', 'number'] : ['number'];
  return [typeof value];
};

export function schemaProblems(value: unknown, schema: Schema, root: Record<string, unknown>, at = '$'): string[] {
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref.slice(2).split('/').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], root);
    if (!target) return [`${at}: unresolved ${schema.$ref}`];
    return schemaProblems(value, target as Schema, root, at);
  }
  const problems = Object.keys(schema).filter((key) => !KNOWN.has(key)).map((key) => `${at}: unchecked keyword ${key}`);
  if (schema.type !== undefined && ![schema.type].flat().some((type) => typeOf(value).includes(type as string))) return [...problems, `${at}: ${JSON.stringify(value)} is not ${JSON.stringify(schema.type)}`];
  if ('const' in schema && value !== schema.const) problems.push(`${at}: not ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) problems.push(`${at}: ${JSON.stringify(value)} not in enum`);
  if (typeof value === 'number' && typeof schema.minimum === 'number' && value < schema.minimum) problems.push(`${at}: below ${schema.minimum}`);
  if (typeof value === 'string' && typeof schema.minLength === 'number' && value.length < schema.minLength) problems.push(`${at}: shorter than ${schema.minLength}`);
  if (typeof value === 'string' && typeof schema.maxLength === 'number' && value.length > schema.maxLength) problems.push(`${at}: longer than ${schema.maxLength}`);
  if (Array.isArray(value) && schema.items) value.forEach((item, index) => problems.push(...schemaProblems(item, schema.items as Schema, root, `${at}[${index}]`)));
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const name of (schema.required ?? []) as string[]) if (!(name in record)) problems.push(`${at}.${name}: missing`);
    for (const [name, inner] of Object.entries(record)) {
      if (properties[name]) problems.push(...schemaProblems(inner, properties[name]!, root, `${at}.${name}`));
      else if (schema.additionalProperties === false) problems.push(`${at}.${name}: not in the schema`);
      else if (typeof schema.additionalProperties === 'object') problems.push(...schemaProblems(inner, schema.additionalProperties as Schema, root, `${at}.${name}`));
    }
  }
  return problems;
}
