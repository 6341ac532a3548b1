import type { Request, Response } from 'express';
import type { WebhookSecrets, WebhookSecretView } from '../../../core/use-cases/webhooks/webhook-secrets.service.ts';
import type { ApiRouter } from '../api-router.ts';

const secretSchema = {
  type: 'object',
  required: ['secret', 'createdAt', 'rotatedAt', 'previousValidUntil'],
  properties: {
    secret: { type: 'string', pattern: '^whsec_', description: 'Standard Webhooks signing secret (HMAC-SHA256, base64 after the prefix)' },
    createdAt: { type: 'string', format: 'date-time' },
    rotatedAt: { type: ['string', 'null'], format: 'date-time' },
    previousValidUntil: { type: ['string', 'null'], format: 'date-time', description: 'Until when deliveries also carry a signature made with the replaced secret' },
  },
};

const send = (res: Response, view: WebhookSecretView) => {
  // A secret: never kept by a browser or proxy cache.
  res.setHeader('Cache-Control', 'no-store');
  res.json({ secret: view.secret, createdAt: view.createdAt, rotatedAt: view.rotatedAt, previousValidUntil: view.previousValidUntil });
};

/** The caller's webhook signing secret (ADR 036). */
export const webhookRoutes = (deps: { secrets: WebhookSecrets }) => (api: ApiRouter) => {
  api.add(
    {
      method: 'get',
      path: '/webhook-secret',
      summary: "The caller's webhook signing secret (created on first read)",
      tag: 'webhooks',
      auth: 'access',
      responses: { 200: { description: 'The secret', schema: secretSchema } },
    },
    async (req: Request, res: Response) => send(res, await deps.secrets.get(req.principal!.userId)),
  );
  api.add(
    {
      method: 'post',
      path: '/webhook-secret/rotate',
      summary: 'Replace the webhook signing secret; the replaced one keeps signing (a second signature) for 24 hours',
      tag: 'webhooks',
      auth: 'access',
      responses: { 200: { description: 'The new secret', schema: secretSchema } },
    },
    async (req: Request, res: Response) => send(res, await deps.secrets.rotate(req.principal!.userId)),
  );
};
