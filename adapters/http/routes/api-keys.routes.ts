import type { Request, Response } from 'express';
import { API_KEY_SCOPES, type ApiKey } from '../../../core/domain/api-key.ts';
import { isUuid } from '../../../core/domain/ids.ts';
import type { CreateApiKey } from '../../../core/use-cases/api-keys/create-api-key.use-case.ts';
import type { ListApiKeys, RevokeApiKey } from '../../../core/use-cases/api-keys/manage-api-keys.use-case.ts';
import type { ApiRouter } from '../api-router.ts';
import { sendError, sendFail } from '../error-table.ts';
import { ref, type JsonSchema } from '../openapi.ts';

export interface ApiKeysRoutesDeps {
  create: CreateApiKey;
  list: ListApiKeys;
  revoke: RevokeApiKey;
}

/** What a key looks like after its creation: never its secret or its hash. */
export const apiKeyDto = (key: ApiKey) => ({
  id: key.id,
  name: key.name,
  scopes: key.scopes,
  prefix: key.prefix,
  createdAt: key.createdAt.toISOString(),
  expiresAt: key.expiresAt?.toISOString() ?? null,
  lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
});

const time = { type: 'string', format: 'date-time' };
const apiKeySchema: JsonSchema = {
  type: 'object',
  required: ['id', 'name', 'scopes', 'prefix', 'createdAt', 'expiresAt', 'lastUsedAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    scopes: { type: 'array', items: { type: 'string', enum: [...API_KEY_SCOPES] } },
    prefix: { type: 'string', description: 'The first characters of the key, for recognising it; not a secret' },
    createdAt: time,
    expiresAt: { type: ['string', 'null'], format: 'date-time' },
    lastUsedAt: { type: ['string', 'null'], format: 'date-time', description: 'Updated at most once a minute' },
  },
};

const SESSION_ONLY = 'Needs a session (cookie or access token): API keys cannot list, create or revoke keys';

export const apiKeysRoutes = (deps: ApiKeysRoutesDeps) => (api: ApiRouter) => {
  api.add(
    {
      method: 'post',
      path: '/api-keys',
      summary: `Create an API key for server-to-server calls; the key (mgs_…) is in this response only. ${SESSION_ONLY}`,
      tag: 'api-keys',
      auth: 'access',
      body: {
        type: 'object',
        required: ['name', 'scopes'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 64 },
          scopes: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: [...API_KEY_SCOPES] }, description: 'admin only for administrators' },
          expiresAt: { type: 'string', format: 'date-time' },
        },
      },
      responses: {
        201: { description: 'Created; store the key now', schema: { allOf: [apiKeySchema, { type: 'object', required: ['key'], properties: { key: { type: 'string' } } }] } },
        403: { description: 'admin scope asked for by a non-administrator; an API key; or a missing or bad X-XSRF-TOKEN header (cookie authentication)', schema: ref('Error') },
      },
    },
    async (req: Request, res: Response) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const result = await deps.create.execute({ user: req.principal!.user, name: body.name, scopes: body.scopes, expiresAt: body.expiresAt });
      if (!result.ok) return sendFail(res, result);
      res.setHeader('Cache-Control', 'no-store');
      res.status(201).json({ ...apiKeyDto(result.value.apiKey), key: result.value.key });
    },
  );

  api.add(
    { method: 'get', path: '/api-keys', summary: `The caller's API keys (no secrets). ${SESSION_ONLY}`, tag: 'api-keys', auth: 'access', responses: { 200: { description: 'Live keys, newest first', schema: { type: 'array', items: apiKeySchema } } } },
    async (req: Request, res: Response) => {
      res.json((await deps.list.execute({ userId: req.principal!.userId })).map(apiKeyDto));
    },
  );

  api.add(
    { method: 'delete', path: '/api-keys/:id', summary: `Revoke one of the caller's API keys; it is refused from the next request. ${SESSION_ONLY}`, tag: 'api-keys', auth: 'access', responses: { 204: { description: 'Revoked' }, 404: { description: 'Unknown, already revoked, or not yours', schema: ref('Error') } } },
    async (req: Request, res: Response) => {
      const keyId = String(req.params.id);
      if (!isUuid(keyId)) return sendError(res, 404, 'No such API key');
      const result = await deps.revoke.execute({ userId: req.principal!.userId, keyId: keyId.toLowerCase() });
      if (!result.ok) return sendFail(res, result);
      res.status(204).end();
    },
  );
};
