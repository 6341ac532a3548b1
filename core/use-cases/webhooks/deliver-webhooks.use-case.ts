import { webhookRetryDelay, type RetryBudget } from '../../domain/webhook-retry.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { JobMetrics } from '../../ports/metrics.port.ts';
import type { WebhookAttemptRecord, WebhookDelivery, WebhookDeliveryRepository } from '../../ports/webhook-delivery-repository.port.ts';
import type { WebhookResponse, WebhookSender } from '../../ports/webhook-sender.port.ts';

export interface DeliverWebhooksDeps {
  /** The repository outside any transaction: each claim and record commits on its own. */
  deliveries: WebhookDeliveryRepository;
  sender: WebhookSender;
  /** The secrets a delivery of this user signs with now. */
  signingSecrets: (userId: string) => Promise<string[]>;
  clock: Clock;
  logger: Logger;
  random: () => number;
  budget: RetryBudget;
  /** Deliveries sent at once (WEBHOOK_CONCURRENCY); also the most claimed per run. */
  concurrency: number;
  /** Bounds one send (WEBHOOK_TIMEOUT_MS); a claim lasts a little longer, so it expires only after a crash. */
  timeoutMs: number;
  /** This process, as the claims name it. */
  claimer: string;
  /** Counts each attempt once it is recorded. */
  metrics: Pick<JobMetrics, 'webhookAttempt'>;
}

/** A claim outlives the send by this much (the signing-secret read and the record). */
const CLAIM_MARGIN_MS = 30_000;

/**
 * The worker's webhook task (ADR 036): claims due deliveries (a conditional update, so two workers never send one
 * at once), sends each once with bounded concurrency, and records the attempt on the row with the next attempt time
 * from the retry schedule, or `failed` once the schedule gives up. Nothing here waits on a generation slot, and
 * one tick sends at most `concurrency` deliveries, each bounded by the sender's timeout.
 */
export class DeliverWebhooks {
  constructor(private readonly deps: DeliverWebhooksDeps) {}

  async execute(): Promise<{ sent: number }> {
    const { deliveries, clock, concurrency, timeoutMs, claimer } = this.deps;
    const now = clock.now();
    const claimed = await deliveries.claimDue(now, claimer, new Date(now.getTime() + timeoutMs + CLAIM_MARGIN_MS), concurrency);
    await Promise.all(claimed.map((delivery) => this.attempt(delivery)));
    return { sent: claimed.length };
  }

  private async attempt(delivery: WebhookDelivery): Promise<void> {
    const { sender, clock, logger } = this.deps;
    let response: WebhookResponse;
    try {
      const secrets = await this.deps.signingSecrets(delivery.userId);
      response = await sender.send({ url: delivery.url, id: delivery.id, timestamp: clock.now(), body: delivery.payload, secrets });
    } catch (error) {
      response = { delivered: false, statusCode: null, error: error instanceof Error ? error.message : String(error) };
    }
    const record = this.outcome(delivery, response);
    if (!(await this.deps.deliveries.record(delivery.id, this.deps.claimer, record))) {
      logger.warn('webhook attempt not recorded: the claim was lost (redelivered or expired)', { deliveryId: delivery.id });
      return;
    }
    this.deps.metrics.webhookAttempt(record.status === 'pending' ? 'retry' : record.status);
  }

  private outcome(delivery: WebhookDelivery, response: WebhookResponse): WebhookAttemptRecord {
    const at = this.deps.clock.now();
    const attempts = delivery.attempts + 1;
    const firstAttemptAt = delivery.firstAttemptAt ?? at;
    const answer = { attempts, firstAttemptAt, lastStatusCode: response.statusCode, at };
    if (response.delivered) return { ...answer, status: 'delivered', nextAttemptAt: null, lastError: null };
    const delay = webhookRetryDelay(attempts, (at.getTime() - firstAttemptAt.getTime()) / 1000, this.deps.budget, this.deps.random);
    if (delay === null) return { ...answer, status: 'failed', nextAttemptAt: null, lastError: response.error };
    return { ...answer, status: 'pending', nextAttemptAt: new Date(at.getTime() + delay * 1000), lastError: response.error };
  }
}
