import { PARAMETER_TYPES, withClassTypes } from '../../core/domain/parameter-map.ts';
import { requiredKeysFor } from '../../core/domain/category-inputs.ts';
import { CATEGORIES } from '../../core/domain/parameter-presets.ts';
import { OUTPUT_TYPES, type CatalogueTemplate } from '../../core/domain/workflow-template.ts';
import type { TemplateWithProblems } from '../../core/use-cases/templates/fleet-check.service.ts';
import type { JsonSchema } from './openapi.ts';

/**
 * WorkflowTemplateResponseDTO: each map item also names its node's class_type, so admins can check the wiring.
 * With a node catalogue, `problems` lists what keeps each engine server (by position) from running it.
 */
export const templateDto = (template: TemplateWithProblems) => ({
  id: template.id,
  name: template.name,
  description: template.description,
  category: template.category,
  workflow: template.workflow,
  parameter_map: withClassTypes(template.parameterMap, template.workflow),
  requiredParameters: requiredKeysFor(template.category, template.workflow),
  cost: template.cost,
  outputType: template.outputType,
  isActive: template.isActive,
  status: template.publishedAt === null ? ('draft' as const) : ('published' as const),
  publishedAt: template.publishedAt?.toISOString() ?? null,
  version: template.version,
  createdAt: template.createdAt.toISOString(),
  updatedAt: template.updatedAt.toISOString(),
  ...(template.problems ? { problems: template.problems } : {}),
});

export const catalogueDto = (template: CatalogueTemplate) => ({
  id: template.id,
  name: template.name,
  description: template.description,
  category: template.category,
  cost: template.cost,
  outputType: template.outputType,
  parameters: template.parameters,
});

const scalar = { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] };

const publicItemProperties: Record<string, JsonSchema> = {
  key: { type: 'string' },
  type: { type: 'string', enum: [...PARAMETER_TYPES] },
  label: { type: 'string' },
  description: { type: 'string' },
  default: scalar,
  required: { type: 'boolean' },
  min: { type: 'number' },
  max: { type: 'number' },
  options: { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'number' }] } },
  preset: { type: 'string' },
};

export const mappingItemSchema: JsonSchema = {
  type: 'object',
  required: ['node_id', 'input_name'],
  properties: { ...publicItemProperties, node_id: { type: 'string' }, input_name: { type: 'string' } },
};

export const parameterMapSchema: JsonSchema = {
  type: 'object',
  description: 'Parameter name → WorkflowParameterMappingItemDTO',
  additionalProperties: mappingItemSchema,
};

const workflowSchema: JsonSchema = {
  type: 'object',
  description: 'ComfyUI API format: node id → {class_type, inputs}; a link is [sourceNodeId, outputIndex]',
  additionalProperties: {
    type: 'object',
    required: ['class_type', 'inputs'],
    properties: { class_type: { type: 'string' }, inputs: { type: 'object' }, _meta: { type: 'object' } },
  },
};

const templateFields: Record<string, JsonSchema> = {
  name: { type: 'string', minLength: 1, maxLength: 100 },
  description: { type: ['string', 'null'], maxLength: 2000 },
  category: { type: 'string', enum: [...CATEGORIES] },
  workflow: workflowSchema,
  cost: { type: 'integer', minimum: 0, maximum: 1_000_000 },
  outputType: { type: 'string', enum: [...OUTPUT_TYPES] },
  isActive: { type: 'boolean', default: true },
};

export const createTemplateBodySchema: JsonSchema = {
  type: 'object',
  required: ['name', 'category', 'workflow', 'cost', 'outputType'],
  properties: templateFields,
};

export const patchTemplateBodySchema: JsonSchema = {
  type: 'object',
  properties: { ...templateFields, parameter_map: parameterMapSchema },
};

export const templateSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'name', 'description', 'category', 'workflow', 'parameter_map', 'cost', 'outputType', 'isActive', 'status', 'publishedAt', 'requiredParameters', 'version', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    ...templateFields,
    status: { type: 'string', enum: ['draft', 'published'], description: 'A draft is invisible to users and cannot be run by them (ADR 039)' },
    publishedAt: { type: ['string', 'null'], format: 'date-time' },
    requiredParameters: { type: 'array', items: { type: 'string' }, description: 'The parameters the map must have: what the category promises, where the workflow has an input for it' },
    parameter_map: {
      type: 'object',
      additionalProperties: { ...mappingItemSchema, properties: { ...(mappingItemSchema['properties'] as object), class_type: { type: ['string', 'null'] } } },
    },
    version: { type: 'integer', minimum: 1 },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    problems: {
      type: 'array',
      description: "What keeps each engine server from running the template (its /object_info checked as ComfyUI checks a prompt); absent without a node catalogue",
      items: {
        type: 'object',
        required: ['server', 'nodeId', 'classType', 'code', 'message'],
        properties: {
          server: { type: 'integer', minimum: 1, description: 'Position in COMFYUI_URLS' },
          nodeId: { type: 'string' },
          classType: { type: 'string' },
          input: { type: 'string' },
          code: { type: 'string' },
          message: { type: 'string' },
        },
      },
    },
  },
};

export const catalogueTemplateSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'name', 'description', 'category', 'cost', 'outputType', 'parameters'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: templateFields['name']!,
    description: templateFields['description']!,
    category: templateFields['category']!,
    cost: templateFields['cost']!,
    outputType: templateFields['outputType']!,
    parameters: { type: 'array', items: { type: 'object', required: ['key', 'type'], properties: publicItemProperties } },
  },
};

export const parameterPresetSchema: JsonSchema = {
  type: 'object',
  required: ['key', 'type', 'label', 'description', 'categories', 'requiredFor'],
  properties: {
    ...publicItemProperties,
    categories: { type: 'array', items: { type: 'string', enum: [...CATEGORIES] } },
    requiredFor: { type: 'array', items: { type: 'string', enum: [...CATEGORIES] } },
  },
};
