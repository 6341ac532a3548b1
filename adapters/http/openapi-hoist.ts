import { STATUS_CODES } from 'node:http';
import type { JsonSchema, OperationDoc } from './openapi.ts';

/**
 * Every request and response body of an operation becomes a named component (ADR 041), so generated clients get
 * one named type per body instead of anonymous inline ones. A body (or any part of it) equal to a component that
 * is already named (User, GenerationJob, Error...) becomes a $ref to it; what is left is named after the operation
 * alone (`POST /generate` → `PostGenerateRequest`, `PostGenerateAccepted`), so a name never depends on which other
 * routes exist or in which order they were registered.
 */
export interface SchemaRegistry {
  /** The name of a registered component with exactly this schema, if any. */
  nameOf(schema: JsonSchema): string | null;
  /** Registers `schema` as `name`; throws when `name` already holds a different schema. */
  register(name: string, schema: JsonSchema): void;
}

const COMPONENT_REF = '#/components/schemas/';
const refTo = (name: string): JsonSchema => ({ $ref: `${COMPONENT_REF}${name}` });

/** A canonical text of a schema (keys sorted at every level): equal texts, equal schemas. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const isRecord = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** An object schema written in place: what a generator would otherwise turn into an anonymous type. */
export function isInlineObject(schema: unknown): boolean {
  if (!isRecord(schema) || '$ref' in schema) return false;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.includes('object') || 'properties' in schema || 'allOf' in schema || 'oneOf' in schema || 'anyOf' in schema;
}

const SCHEMA_LISTS = ['allOf', 'oneOf', 'anyOf', 'prefixItems'];
const SCHEMA_VALUES = ['items', 'additionalProperties', 'not'];

/** Replaces every part of `schema` equal to a named component by a $ref to it (the top level too, unless `keepTop`). */
export function refNamed(schema: JsonSchema, registry: SchemaRegistry, keepTop = false): JsonSchema {
  if (!keepTop) {
    const name = registry.nameOf(schema);
    if (name) return refTo(name);
  }
  const out: JsonSchema = { ...schema };
  if (isRecord(schema.properties)) {
    out.properties = Object.fromEntries(Object.entries(schema.properties).map(([key, value]) => [key, isRecord(value) ? refNamed(value, registry) : value]));
  }
  for (const key of SCHEMA_VALUES) if (isRecord(schema[key])) out[key] = refNamed(schema[key], registry);
  for (const key of SCHEMA_LISTS) {
    if (Array.isArray(schema[key])) out[key] = (schema[key] as unknown[]).map((item) => (isRecord(item) ? refNamed(item, registry) : item));
  }
  return out;
}

const pascal = (text: string): string =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');

/** `post` `/my-outputs/{id}/view-url` → `PostMyOutputsByIdViewUrl`; `get /` → `GetRoot`. */
export function operationName(method: string, path: string): string {
  const segments = path.split('/').filter(Boolean).map((segment) => {
    const parameter = /^\{(.+)\}$/.exec(segment);
    return parameter ? `By${pascal(parameter[1]!)}` : pascal(segment);
  });
  return `${pascal(method)}${segments.join('') || 'Root'}`;
}

/** `200` → `Ok`, `201` → `Created`, `429` → `TooManyRequests`, `default` → `Default`. */
export const statusName = (status: string): string => (status === '200' ? 'Ok' : pascal(STATUS_CODES[status] ?? `Status ${status}`));

/** The body schema as the document states it: a $ref, or something that is not an object (a string, binary...). */
function hoist(schema: JsonSchema, name: string, registry: SchemaRegistry): JsonSchema {
  const named = refNamed(schema, registry);
  if (isInlineObject(named)) {
    registry.register(name, named);
    return refTo(name);
  }
  // An array of objects: its items get the name (with an `Item` suffix), the array stays in place.
  if (named.type === 'array' && isInlineObject(named.items)) return { ...named, items: hoist(named.items as JsonSchema, `${name}Item`, registry) };
  return named;
}

type Content = Record<string, { schema?: JsonSchema } & Record<string, unknown>>;

function hoistContent(content: Content, name: string, registry: SchemaRegistry): Content {
  return Object.fromEntries(Object.entries(content).map(([type, media]) => [type, media.schema ? { ...media, schema: hoist(media.schema, name, registry) } : media]));
}

/** The operation with every body schema named (see above). */
export function hoistBodies(method: string, path: string, operation: OperationDoc, registry: SchemaRegistry): OperationDoc {
  const base = operationName(method, path);
  const requestBody = operation.requestBody as { content?: Content } | undefined;
  const responses = Object.fromEntries(
    Object.entries(operation.responses as Record<string, { content?: Content }>).map(([status, response]) => [
      status,
      response.content ? { ...response, content: hoistContent(response.content, `${base}${statusName(status)}`, registry) } : response,
    ]),
  );
  return {
    ...operation,
    ...(requestBody?.content ? { requestBody: { ...requestBody, content: hoistContent(requestBody.content, `${base}Request`, registry) } } : {}),
    responses,
  };
}
