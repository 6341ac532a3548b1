import type { Container } from 'inversify';
import { newWebhookSecret } from '../../adapters/crypto/webhook-secret.ts';
import { webhookRoutes } from '../../adapters/http/routes/webhooks.routes.ts';
import { SequelizeWebhookSecretStore } from '../../adapters/sequelize/sequelize-webhook-secret-store.ts';
import { WebhookSecrets } from '../../core/use-cases/webhooks/webhook-secrets.service.ts';
import type { Config } from '../config.ts';
import { bindFeature, forApi, type Feature, type FeaturePorts } from './feature.ts';

export type WebhooksFeature = Feature<{ secrets: WebhookSecrets }>;

/** Webhook signing secrets (ADR 036): the routes that read and rotate them, and the service deliveries sign with. */
export function webhooksFeature(ports: FeaturePorts, config: Readonly<Config>): WebhooksFeature {
  const secrets = new WebhookSecrets({ store: new SequelizeWebhookSecretStore(ports.db().autocommit), clock: ports.clock(), newSecret: newWebhookSecret });
  return {
    exports: { secrets },
    routes: forApi(config, () => [webhookRoutes({ secrets })]),
    scheduled: [],
  };
}

export function bindWebhooks(container: Container, config: Readonly<Config>): () => WebhooksFeature {
  return bindFeature(container, 'webhooks', (ports) => webhooksFeature(ports, config));
}
