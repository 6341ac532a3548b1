import type { Request, Response } from 'express';
import type { WebhookDelivery } from '../../../core/ports/webhook-delivery-repository.port.ts';
import type { WebhookDeliveryLog } from '../../../core/use-cases/webhooks/webhook-delivery-log.service.ts';
import type { WebhookSecrets, WebhookSecretView } from '../../../core/use-cases/webhooks/webhook-secrets.service.ts';
import type { ApiRouter } from '../api-router.ts';
import { sendFail } from '../error-table.ts';
import { ref } from '../openapi.ts';

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

const deliverySchema = {
  type: 'object',
  required: ['id', 'jobId', 'event', 'url', 'status', 'attempts', 'nextAttemptAt', 'lastStatusCode', 'lastError', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string', format: 'uuid', description: 'The `webhook-id` header: the same on every attempt and redelivery' },
    jobId: { type: 'string', format: 'uuid' },
    event: { type: 'string', enum: ['started', 'output', 'completed'] },
    url: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    attempts: { type: 'integer' },
    nextAttemptAt: { type: ['string', 'null'], format: 'date-time' },
    lastStatusCode: { type: ['integer', 'null'] },
    lastError: { type: ['string', 'null'] },
    payload: { type: 'object', description: 'The signed body: `{type, timestamp, data}`' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};

const deliveryView = (delivery: WebhookDelivery) => ({
  id: delivery.id,
  jobId: delivery.jobId,
  event: delivery.event,
  url: delivery.url,
  status: delivery.status,
  attempts: delivery.attempts,
  nextAttemptAt: delivery.nextAttemptAt,
  lastStatusCode: delivery.lastStatusCode,
  lastError: delivery.lastError,
  payload: JSON.parse(delivery.payload) as unknown,
  createdAt: delivery.createdAt,
  updatedAt: delivery.updatedAt,
});

/** A job's webhook deliveries and their redelivery (ADR 036), for the job's owner. */
export const webhookDeliveryRoutes = (deps: { log: WebhookDeliveryLog }) => (api: ApiRouter) => {
  const notFound = { description: 'Unknown job (or not yours) or delivery', schema: ref('Error') };
  api.add(
    {
      method: 'get',
      path: '/generate/:id/webhooks',
      summary: "The job's webhook deliveries, oldest first",
      tag: 'webhooks',
      auth: 'access',
      responses: { 200: { description: 'The delivery log', schema: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: deliverySchema } } } }, 404: notFound },
    },
    async (req: Request, res: Response) => {
      const result = await deps.log.list(req.principal!.userId, String(req.params.id).toLowerCase());
      if (!result.ok) return sendFail(res, result);
      res.json({ items: result.value.map(deliveryView) });
    },
  );
  api.add(
    {
      method: 'post',
      path: '/generate/:id/webhooks/:deliveryId/redeliver',
      summary: 'Send a delivery again now: the same webhook-id, a new timestamp and signature, a fresh attempt budget',
      tag: 'webhooks',
      auth: 'access',
      responses: { 200: { description: 'The delivery, pending again', schema: deliverySchema }, 404: notFound },
    },
    async (req: Request, res: Response) => {
      const result = await deps.log.redeliver(req.principal!.userId, String(req.params.id).toLowerCase(), String(req.params.deliveryId).toLowerCase());
      if (!result.ok) return sendFail(res, result);
      res.json(deliveryView(result.value));
    },
  );
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
