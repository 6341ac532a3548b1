import { V2_ERROR_SCHEMA } from './comfy-v2-views.ts';
import { auditEntrySchema, transactionSchema } from './coin-dto.ts';
import { messageSchema, userSchema } from './dto.ts';
import type { JsonSchema } from './openapi.ts';
import { jobSchema } from './routes/generation.routes.ts';
import { V2_ASSET_SCHEMA } from './routes/comfy-v2-assets.routes.ts';
import { historyItemSchema } from './routes/outputs.routes.ts';
import { testRunBodySchema } from './routes/test-run.routes.ts';
import { uploadSchema } from './routes/uploads.routes.ts';
import { catalogueTemplateSchema, mappingItemSchema, parameterPresetSchema, templateSchema } from './template-dto.ts';

/**
 * The API's shared shapes under the names API.md gives them (ADR 041): wherever a body, or a part of one, equals
 * one of these, the document refers to it by this name instead of repeating it under an operation's name.
 */
export const NAMED_SCHEMAS: Record<string, JsonSchema> = {
  User: userSchema,
  Message: messageSchema,
  GenerationJob: jobSchema,
  HistoryItem: historyItemSchema,
  Upload: uploadSchema,
  CoinTransaction: transactionSchema,
  AuditEntry: auditEntrySchema,
  WorkflowTemplate: templateSchema,
  CatalogueTemplate: catalogueTemplateSchema,
  ParameterPreset: parameterPresetSchema,
  ParameterMappingItem: mappingItemSchema,
  ComfyV2Error: V2_ERROR_SCHEMA,
  ComfyV2Asset: V2_ASSET_SCHEMA,
  TemplateTestRunRequest: testRunBodySchema,
};
