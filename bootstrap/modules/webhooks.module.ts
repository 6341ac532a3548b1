import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Container } from 'inversify';
import { newWebhookSecret } from '../../adapters/crypto/webhook-secret.ts';
import { webhookDeliveryRoutes, webhookRoutes } from '../../adapters/http/routes/webhooks.routes.ts';
import { SequelizeWebhookSecretStore } from '../../adapters/sequelize/sequelize-webhook-secret-store.ts';
import { HttpWebhookSender } from '../../adapters/webhook/http-webhook-sender.ts';
import { DeliverWebhooks } from '../../core/use-cases/webhooks/deliver-webhooks.use-case.ts';
import { WebhookDeliveryLog } from '../../core/use-cases/webhooks/webhook-delivery-log.service.ts';
import { WebhookSecrets } from '../../core/use-cases/webhooks/webhook-secrets.service.ts';
import type { Config } from '../config.ts';
import { bindFeature, forApi, forWorker, type Feature, type FeaturePorts } from './feature.ts';

export type WebhooksFeature = Feature<{ secrets: WebhookSecrets }>;

/**
 * Signed webhooks (ADR 036): the signing secrets and their routes, a job's delivery log and redelivery, and the
 * worker's task that sends due deliveries from the database (the outbox the job's moves write into).
 */
export function webhooksFeature(ports: FeaturePorts, config: Readonly<Config>): WebhooksFeature {
  const { webhooks } = config;
  const secrets = new WebhookSecrets({ store: new SequelizeWebhookSecretStore(ports.db().autocommit), clock: ports.clock(), newSecret: newWebhookSecret });
  const deliveries = ports.repos().webhooks;
  return {
    exports: { secrets },
    routes: forApi(config, () => [
      webhookRoutes({ secrets }),
      webhookDeliveryRoutes({ log: new WebhookDeliveryLog({ jobs: ports.repos().jobs, deliveries, clock: ports.clock() }) }),
    ]),
    scheduled: forWorker(config, () => {
      const deliver = new DeliverWebhooks({
        deliveries,
        sender: new HttpWebhookSender({ policy: webhooks.policy, timeoutMs: webhooks.timeoutMs }),
        signingSecrets: (userId) => secrets.signingSecrets(userId),
        clock: ports.clock(),
        logger: ports.logger().child({ component: 'webhooks' }),
        random: Math.random,
        budget: { maxAttempts: webhooks.maxAttempts, windowSeconds: webhooks.retryWindowSeconds },
        concurrency: webhooks.concurrency,
        timeoutMs: webhooks.timeoutMs,
        metrics: ports.metrics(),
        claimer: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
      });
      return [{ name: 'webhook-delivery', roles: ['worker' as const], everyMs: webhooks.pollMs, run: () => deliver.execute() }];
    }),
  };
}

export function bindWebhooks(container: Container, config: Readonly<Config>): () => WebhooksFeature {
  return bindFeature(container, 'webhooks', (ports) => webhooksFeature(ports, config));
}
